import type { StoreEvent, UnreadableRecord } from './offload-store.js';
import type { StoreTx } from './store-records.js';

/** The kinds of record an operation reads or writes (IndexedDB opens its transaction over their object stores). */
export type RecordKind = UnreadableRecord['store'];

/** How instances of one store tell each other of their changes (IndexedDB: across tabs and workers). */
export interface StoreNotifications {
  /** Starts hearing the other instances (lazily, so an unused store holds nothing open). */
  open(): void;
  /** Tells the other instances what a committed change did. */
  post(events: StoreEvent[]): void;
  /** Stops hearing them; a later `open` starts again. */
  close(): void;
}

/**
 * What an engine supplies to the store shell (store-shell.ts), which runs every rule over it: its
 * atomic unit, and how other instances hear of a change. The memory engine keeps its tables with a
 * journal; the IndexedDB engine runs an IndexedDB transaction.
 */
export interface StoreEngine {
  /**
   * Runs `operation` as one atomic unit over the records of `kinds`: it keeps all of the
   * operation's writes or, when the operation throws (or the engine fails to keep them), none; it
   * resolves once they are kept. A 'readonly' unit only reads.
   */
  transaction<T>(
    kinds: readonly RecordKind[],
    mode: 'readonly' | 'readwrite',
    operation: (tx: StoreTx) => Promise<T>,
  ): Promise<T>;
  /** Other instances of the same store, told of each change and telling theirs to `receive`; absent when there are none. */
  notifications?(receive: (events: StoreEvent[]) => void): StoreNotifications;
  /** Called before each checked result is staged (IndexedDB asks for persistent storage at the first). */
  staging?(): void;
  /** The malformed records met in one thread (or all), skipped by every read. */
  unreadable(threadId?: string): Promise<UnreadableRecord[]>;
  /** The thread was cleared: the engine forgets what it noted of the thread besides its records. */
  forgetThread?(threadId: string): void;
  /** Releases what the engine holds open; a later transaction opens it again. */
  close(): Promise<void>;
}
