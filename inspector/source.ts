import type {
  EvictionRecord,
  OffloadStore,
  StoredResultInfo,
  StoreEvent,
  StoreFailure,
} from '../lib/store/offload-store.js';
import { readStoreInfo, type StoreInfo } from './store-info.js';

/**
 * The read side of a store: all the inspector needs. `failures` is optional so a store written
 * before it existed (or any custom store) still works; `estimate` (IndexedDbOffloadStore has it)
 * and `persisted` are shown in the header where the store has them.
 */
export type InspectableStore = Pick<OffloadStore, 'list' | 'read' | 'evictions' | 'totalBytes' | 'subscribe'> & {
  failures?: OffloadStore['failures'];
  /** The origin's `navigator.storage.estimate()`, where the browser tells. */
  estimate?(): Promise<StorageEstimate | undefined>;
  /** The origin's `navigator.storage.persisted()`. */
  persisted?(): Promise<boolean>;
};

/** What the panel reads from: a store in this window, or a store behind a channel. */
export interface InspectorSource {
  /** Says where the data comes from, for the panel's header. */
  readonly label: string;
  /** The store itself when it lives in this window (enables "Pop out"). */
  readonly store?: InspectableStore;
  list(): Promise<StoredResultInfo[]>;
  evictions(): Promise<EvictionRecord[]>;
  /** Results that could not be stored; empty when the store does not track them. */
  failures(): Promise<StoreFailure[]>;
  totalBytes(threadId: string): Promise<number>;
  read(threadId: string, key: string): Promise<string>;
  /** The bound and the origin's storage, as far as the store's side knows them. */
  info(): Promise<StoreInfo>;
  /** Calls back on every change notice, unbatched: the panel coalesces them. */
  onChange(listener: () => void): () => void;
  /** Stops listening and releases whatever the source holds (a channel). */
  close(): void;
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
export function storeFailures(store: InspectableStore): Promise<StoreFailure[]> {
  return typeof store.failures === 'function' ? store.failures() : Promise.resolve([]);
}

/** A source over a store in this window: one subscription to the store, however many listen. */
export function storeSource(store: InspectableStore): InspectorSource {
  const listeners = new Set<() => void>();
  let unsubscribe: (() => void) | undefined;
  const stopListening = () => {
    unsubscribe?.();
    unsubscribe = undefined;
  };
  return {
    label: 'this window',
    store,
    list: () => store.list(),
    evictions: () => store.evictions(),
    failures: () => storeFailures(store),
    totalBytes: (threadId) => store.totalBytes(threadId),
    read: (threadId, key) => store.read(threadId, key),
    // The bound of a store in this window is mountInspector's own option.
    info: () => readStoreInfo(store, undefined),
    onChange(listener) {
      listeners.add(listener);
      unsubscribe ??= store.subscribe((_event: StoreEvent) => {
        for (const each of [...listeners]) each();
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
