import { IdbConnection } from '../shared/indexeddb-connection.js';
import {
  OFFLOAD_DB_LAYOUTS,
  OFFLOAD_DB_VERSION,
  OFFLOAD_STORES,
  type OffloadDb,
  type OffloadTransaction,
  upgradeOffloadDb,
} from './indexeddb-schema.js';
import { IdbTx } from './indexeddb-tx.js';
import type { StoreEvent, UnreadableRecord } from './offload-store.js';
import { UnreadableLog } from './record-checks.js';
import { StoreBroadcast } from './store-broadcast.js';
import type { RecordKind, StoreEngine, StoreNotifications } from './store-engine.js';
import type { StoreTx } from './store-records.js';
import { unreadableRecords } from './unreadable-scan.js';

/** Asks the browser to keep this origin's storage under pressure; false where it cannot be asked. */
export async function persistStorage(): Promise<boolean> {
  const storage = globalThis.navigator?.storage;
  return typeof storage?.persist === 'function' ? storage.persist() : false;
}

interface IdbEngineOptions {
  name: string;
  blockedTimeoutMs: number;
  /** Ask for persistent storage at the first stage. */
  persist: boolean;
  logRetention: number;
}

/**
 * The IndexedDB engine of the store shell: each atomic unit is one IndexedDB transaction (S1),
 * every record read is checked (malformed ones are skipped and noted in the unreadable log), and
 * other instances on the same database hear of each change through a BroadcastChannel named
 * `<name>:changes`.
 */
export class IdbEngine implements StoreEngine {
  readonly #connection: IdbConnection<OffloadDb>;
  readonly #unreadable = new UnreadableLog();
  readonly #name: string;
  readonly #logRetention: number;
  #askToPersist: boolean;

  constructor(options: IdbEngineOptions) {
    this.#name = options.name;
    this.#logRetention = options.logRetention;
    this.#askToPersist = options.persist;
    this.#connection = new IdbConnection<OffloadDb>({
      name: options.name,
      version: OFFLOAD_DB_VERSION,
      upgrade: upgradeOffloadDb,
      layouts: OFFLOAD_DB_LAYOUTS,
      blockedTimeoutMs: options.blockedTimeoutMs,
    });
  }

  transaction<T>(
    kinds: readonly RecordKind[],
    mode: 'readonly' | 'readwrite',
    operation: (tx: StoreTx) => Promise<T>,
  ): Promise<T> {
    return this.#run(kinds, mode, (tx) => operation(new IdbTx(tx, this.#unreadable, this.#logRetention)));
  }

  #run<T>(
    stores: readonly RecordKind[],
    mode: IDBTransactionMode,
    operation: (tx: OffloadTransaction) => Promise<T>,
  ): Promise<T> {
    // Read-only operations only read: one transaction type serves both modes.
    return this.#connection.run([...stores], mode, (tx) => operation(tx as OffloadTransaction));
  }

  notifications(receive: (events: StoreEvent[]) => void): StoreNotifications {
    return new StoreBroadcast(`${this.#name}:changes`, receive);
  }

  staging(): void {
    if (!this.#askToPersist) return;
    this.#askToPersist = false;
    // Not awaited: the answer does not change how this result is stored.
    persistStorage().catch((error) => console.warn('IndexedDbOffloadStore: persist() failed', error));
  }

  /** Reads the records anew (chunks only where a read found one that is not text). */
  unreadable(threadId?: string): Promise<UnreadableRecord[]> {
    return this.#run(OFFLOAD_STORES, 'readonly', (tx) => unreadableRecords(tx, this.#unreadable, threadId));
  }

  forgetThread(threadId: string): void {
    this.#unreadable.forgetThread(threadId);
  }

  close(): Promise<void> {
    return this.#connection.close();
  }

  deleteDatabase(): Promise<void> {
    return this.#connection.deleteDatabase();
  }
}
