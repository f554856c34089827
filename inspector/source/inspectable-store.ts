import type { OffloadStore, StoreFailure, UnreadableRecord } from '../../lib/index.js';

/**
 * The read side of a store: all the inspector needs. `failures` is optional so a store written
 * before it existed (or any custom store) still works; `estimate` (IndexedDbOffloadStore has it)
 * and `persisted` are shown in the header where the store has them.
 */
export type InspectableStore = Pick<OffloadStore, 'list' | 'read' | 'evictions' | 'totalBytes' | 'subscribe'> & {
  failures?: OffloadStore['failures'];
  /** Records the store found malformed and skipped (IndexedDbOffloadStore reports them). */
  unreadable?: OffloadStore['unreadable'];
  /** A thread's bound, for its gauge (the built-in stores report it). */
  bound?: OffloadStore['bound'];
  /** A thread's context ledger, for the Context tab and the budget beside its gauge (the built-in stores keep it). */
  requests?: OffloadStore['requests'];
  /** The results cleared from a thread's requests, for the "cleared" marks (the built-in stores keep them). */
  cleared?: OffloadStore['cleared'];
  /** The origin's `navigator.storage.estimate()`, where the browser tells. */
  estimate?(): Promise<StorageEstimate | undefined>;
  /** The origin's `navigator.storage.persisted()`. */
  persisted?(): Promise<boolean>;
};

/** A result cleared from a thread's requests (the store's record; lib/index.ts names it through OffloadStore). */
export type ClearedResult = Awaited<ReturnType<NonNullable<OffloadStore['cleared']>>>[number];

const storeMethods = ['list', 'read', 'evictions', 'totalBytes', 'subscribe'] as const;

/** Throws a TypeError naming the first method a store lacks. */
export function assertInspectableStore(store: unknown, where: string): asserts store is InspectableStore {
  if (typeof store !== 'object' || store === null) {
    throw new TypeError(
      `${where}: store must be an OffloadStore object, got ${store === null ? 'null' : typeof store}`,
    );
  }
  for (const method of storeMethods) {
    if (typeof (store as Record<string, unknown>)[method] !== 'function') {
      throw new TypeError(`${where}: store has no ${method}() method; pass an OffloadStore`);
    }
  }
}

/** Reads failures where the store keeps them (feature-detected), else none. */
export function storeFailures(store: InspectableStore, threadId?: string): Promise<StoreFailure[]> {
  return typeof store.failures === 'function' ? store.failures(threadId) : Promise.resolve([]);
}

/** Reads a thread's bound where the store reports it (feature-detected), else undefined. */
export async function storeBound(store: InspectableStore, threadId: string): Promise<number | undefined> {
  return typeof store.bound === 'function' ? store.bound(threadId) : undefined;
}

/** Reads the records a store skipped as malformed, where it reports them (feature-detected), else none. */
export function storeUnreadable(store: InspectableStore, threadId?: string): Promise<UnreadableRecord[]> {
  if (typeof store.unreadable !== 'function') return Promise.resolve([]);
  return threadId === undefined ? store.unreadable() : store.unreadable(threadId);
}

/** `list` or `evictions` of a thread, of only `keys` when given (a store written without the option is called as before). */
export function readKeyed<M extends 'list' | 'evictions'>(
  store: InspectableStore,
  method: M,
  threadId?: string,
  keys?: readonly string[],
): ReturnType<InspectableStore[M]> {
  const read = store[method] as (threadId?: string, options?: { keys: readonly string[] }) => unknown;
  return (keys ? read.call(store, threadId, { keys }) : read.call(store, threadId)) as ReturnType<InspectableStore[M]>;
}

/** Reads the thread's cleared results where the store keeps them (feature-detected), else none. */
export function storeCleared(store: InspectableStore, threadId: string): Promise<ClearedResult[]> {
  return typeof store.cleared === 'function' ? store.cleared(threadId) : Promise.resolve([]);
}
