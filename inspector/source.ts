import type {
  EvictionRecord,
  OffloadStore,
  StoredResultInfo,
  StoreEvent,
  StoreFailure,
  UnreadableRecord,
} from '../lib/store/offload-store.js';
import { readStoreInfo, type StoreInfo } from './store-info.js';

/**
 * The read side of a store: all the inspector needs. `failures` is optional so a store written
 * before it existed (or any custom store) still works; `estimate` (IndexedDbOffloadStore has it)
 * and `persisted` are shown in the header where the store has them.
 */
export type InspectableStore = Pick<OffloadStore, 'list' | 'read' | 'evictions' | 'totalBytes' | 'subscribe'> & {
  failures?: OffloadStore['failures'];
  /** Records the store found malformed and skipped (IndexedDbOffloadStore reports them). */
  unreadable?: OffloadStore['unreadable'];
  /** The origin's `navigator.storage.estimate()`, where the browser tells. */
  estimate?(): Promise<StorageEstimate | undefined>;
  /** The origin's `navigator.storage.persisted()`. */
  persisted?(): Promise<boolean>;
};

/**
 * One store change as the panel hears it: what happened to which key of which thread, and the
 * thread's total after it when the store said. It tells the panel which thread to read again.
 */
export interface SourceChange {
  type: string;
  threadId: string;
  key: string;
  totalBytes?: number;
}

/**
 * Called on every change notice, unbatched (the panel coalesces them): the changes it stands for,
 * or undefined when anything may have changed (read everything again).
 */
export type ChangeListener = (changes: readonly SourceChange[] | undefined) => void;

/**
 * What the panel reads from: a store in this window, or a store behind a channel. Lists are of
 * one thread when one is given, else of all; their items are checked by the panel (records.ts).
 */
export interface InspectorSource {
  /** Says where the data comes from, for the panel's header. */
  readonly label: string;
  /** The store itself when it lives in this window (enables "Pop out"). */
  readonly store?: InspectableStore;
  /** With `keys` (and a thread), only those keys' entries; a source may answer with more. */
  list(threadId?: string, keys?: readonly string[]): Promise<StoredResultInfo[]>;
  evictions(threadId?: string): Promise<EvictionRecord[]>;
  /** Results that could not be stored; empty when the store does not track them. */
  failures(threadId?: string): Promise<StoreFailure[]>;
  /** Records the store skipped as malformed, of every thread; empty when the store does not say. */
  unreadable(): Promise<UnreadableRecord[]>;
  totalBytes(threadId: string): Promise<number>;
  read(threadId: string, key: string): Promise<string>;
  /** The bound and the origin's storage, as far as the store's side knows them. */
  info(): Promise<StoreInfo>;
  onChange(listener: ChangeListener): () => void;
  /** Stops listening and releases whatever the source holds (a channel). */
  close(): void;
}

const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0;

/**
 * The change a store event stands for, or undefined when the event does not say which thread
 * (a custom store's own events): then the panel reads everything again.
 */
export function toSourceChange(event: unknown): SourceChange | undefined {
  if (typeof event !== 'object' || event === null) return undefined;
  const { type, threadId, key, totalBytes } = event as Record<string, unknown>;
  if (typeof type !== 'string' || typeof threadId !== 'string' || typeof key !== 'string') return undefined;
  return isCount(totalBytes) ? { type, threadId, key, totalBytes } : { type, threadId, key };
}

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

/** Reads the records a store skipped as malformed, where it reports them (feature-detected), else none. */
export function storeUnreadable(store: InspectableStore): Promise<UnreadableRecord[]> {
  return typeof store.unreadable === 'function' ? store.unreadable() : Promise.resolve([]);
}

/** A source over a store in this window: one subscription to the store, however many listen. */
export function storeSource(store: InspectableStore): InspectorSource {
  const listeners = new Set<ChangeListener>();
  let unsubscribe: (() => void) | undefined;
  const stopListening = () => {
    unsubscribe?.();
    unsubscribe = undefined;
  };
  return {
    label: 'this window',
    store,
    list: (threadId, keys) => (keys ? store.list(threadId, { keys }) : store.list(threadId)),
    evictions: (threadId) => store.evictions(threadId),
    failures: (threadId) => storeFailures(store, threadId),
    unreadable: () => storeUnreadable(store),
    totalBytes: (threadId) => store.totalBytes(threadId),
    read: (threadId, key) => store.read(threadId, key),
    // The bound of a store in this window is mountInspector's own option.
    info: () => readStoreInfo(store, undefined),
    onChange(listener) {
      listeners.add(listener);
      unsubscribe ??= store.subscribe((event: StoreEvent) => {
        const change = toSourceChange(event);
        for (const each of [...listeners]) each(change && [change]);
      });
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0) stopListening();
      };
    },
    close() {
      listeners.clear();
      stopListening();
    },
  };
}
