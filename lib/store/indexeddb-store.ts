import { quoteForMessage } from '../checks.js';
import { IdbConnection } from './indexeddb-connection.js';
import {
  OFFLOAD_DB_VERSION,
  OFFLOAD_STORES,
  type OffloadDb,
  type OffloadStoreName,
  upgradeOffloadDb,
} from './indexeddb-schema.js';
import { IdbTx, type OffloadTransaction } from './indexeddb-tx.js';
import type {
  AppliedChange,
  EvictionRecord,
  HeldText,
  LinesRead,
  OffloadStore,
  SeenResult,
  SettleOptions,
  StagedResult,
  StoreChange,
  StoredResultInfo,
  StoreEvent,
  StoreFailure,
} from './offload-store.js';
import { StoreBroadcast } from './store-broadcast.js';
import { failedKeysOf, failureRecord, failuresOf } from './store-failures.js';
import { StoreListeners } from './store-listeners.js';
import * as operations from './store-operations.js';
import * as reads from './store-reads.js';
import { byAge, type StoreTx, toEvictionRecord, toInfo } from './store-records.js';
import { checkChunkChars, defaultChunkChars } from './text-chunks.js';

export interface IndexedDbOffloadStoreOptions {
  /** The database name; default 'tool-output-offload'. */
  name?: string;
  /** How long opening may stay blocked by another tab before it fails; default 3000 ms. */
  blockedTimeoutMs?: number;
  /** Code units in each chunk a text is stored in (a page reads only its chunks); default 131,072. */
  chunkChars?: number;
  /**
   * Ask the browser, once, at the first stored result, to keep this origin's storage under
   * pressure (`navigator.storage.persist()`), so stored results are not cleared behind the agent's
   * back. Default false: the browser may show the user a prompt.
   */
  persist?: boolean;
}

const CHANGE_STORES: OffloadStoreName[] = ['threads', 'entries', 'staged', 'chunks', 'evictions', 'undo', 'seen'];
/** A read may fall back to a staged text whose commit failed (S3), known from the failures. */
const READ_STORES: OffloadStoreName[] = ['entries', 'chunks', 'evictions', 'staged', 'failures'];

/**
 * The OffloadStore in IndexedDB (S1–S5). Each operation is one transaction; a commit's eviction
 * walks the thread's [threadId, seq] index from its start, so its cost does not grow with the
 * number of entries. Other instances on the same database hear of each change through a
 * BroadcastChannel named `<name>:changes`, and their subscribers get the same events.
 */
export class IndexedDbOffloadStore implements OffloadStore {
  readonly name: string;
  readonly #chunkChars: number;
  #askToPersist: boolean;
  readonly #connection: IdbConnection<OffloadDb>;
  readonly #listeners = new StoreListeners();
  readonly #broadcast: StoreBroadcast;
  /** Failures whose own write to the database failed too (a full quota): kept here instead. */
  readonly #unsavedFailures: StoreFailure[] = [];

  constructor(options: IndexedDbOffloadStoreOptions = {}) {
    this.name = options.name ?? 'tool-output-offload';
    this.#chunkChars = checkChunkChars(options.chunkChars ?? defaultChunkChars);
    if (options.persist !== undefined && typeof options.persist !== 'boolean') {
      throw new TypeError(`IndexedDbOffloadStore: persist must be a boolean, got ${quoteForMessage(options.persist)}`);
    }
    this.#askToPersist = options.persist === true;
    this.#connection = new IdbConnection<OffloadDb>({
      name: this.name,
      version: OFFLOAD_DB_VERSION,
      stores: OFFLOAD_STORES,
      upgrade: upgradeOffloadDb,
      blockedTimeoutMs: options.blockedTimeoutMs ?? 3000,
    });
    this.#broadcast = new StoreBroadcast(`${this.name}:changes`, (events) => this.#listeners.emit(events));
  }

  #transaction<T>(
    stores: OffloadStoreName[],
    mode: IDBTransactionMode,
    operation: (tx: OffloadTransaction) => Promise<T>,
  ): Promise<T> {
    // Read-only operations only read: one transaction type serves both modes.
    return this.#connection.run(stores, mode, (tx) => operation(tx as OffloadTransaction));
  }

  #run<T>(stores: OffloadStoreName[], mode: IDBTransactionMode, operation: (tx: StoreTx) => Promise<T>) {
    return this.#transaction(stores, mode, (tx) => operation(new IdbTx(tx)));
  }

  #announce(events: StoreEvent[]): void {
    this.#listeners.emit(events);
    this.#broadcast.post(events);
  }

  async list(threadId?: string): Promise<StoredResultInfo[]> {
    if (threadId !== undefined)
      return (await this.#run(['entries'], 'readonly', (tx) => tx.entries(threadId))).map(toInfo);
    const all = await this.#transaction(['entries'], 'readonly', (tx) => tx.objectStore('entries').getAll());
    return all.map(toInfo).sort(byAge);
  }

  /** The keys of the thread's reported failures (saved or not), read in `tx`: their staged texts serve reads. */
  #failedKeys(tx: OffloadTransaction, threadId: string): operations.FailedKeys {
    return async () => {
      const saved = await tx.objectStore('failures').index('byThread').getAll(threadId);
      return failedKeysOf([...saved, ...this.#unsavedFailures], threadId);
    };
  }

  read(threadId: string, key: string): Promise<string> {
    return this.#transaction(READ_STORES, 'readonly', (tx) =>
      reads.readText(new IdbTx(tx), threadId, key, this.#failedKeys(tx, threadId)),
    );
  }

  async readLines(threadId: string, key: string, offset: number, limit?: number): Promise<LinesRead> {
    reads.checkLineRange(offset, limit);
    return this.#transaction(READ_STORES, 'readonly', (tx) =>
      reads.readLines(new IdbTx(tx), threadId, key, offset, limit, this.#failedKeys(tx, threadId)),
    );
  }

  async evictions(threadId?: string): Promise<EvictionRecord[]> {
    const log = await this.#transaction(['evictions'], 'readonly', (tx) => {
      const evictions = tx.objectStore('evictions');
      return threadId === undefined ? evictions.getAll() : evictions.index('byThread').getAll(threadId);
    });
    return log.map(toEvictionRecord);
  }

  async totalBytes(threadId: string): Promise<number> {
    return (await this.#run(['threads'], 'readonly', (tx) => tx.thread(threadId)))?.totalBytes ?? 0;
  }

  /** The bytes held for the thread: live, kept to undo a turn, staged (HeldText). */
  heldText(threadId: string): Promise<HeldText> {
    return this.#run(['threads', 'undo', 'staged'], 'readonly', (tx) => reads.heldText(tx, threadId));
  }

  subscribe(listener: (event: StoreEvent) => void): () => void {
    const unsubscribe = this.#listeners.subscribe(listener);
    this.#broadcast.open();
    return unsubscribe;
  }

  async failures(threadId?: string): Promise<StoreFailure[]> {
    const saved = await this.#transaction(['failures'], 'readonly', (tx) => {
      const failures = tx.objectStore('failures');
      return threadId === undefined ? failures.getAll() : failures.index('byThread').getAll(threadId);
    });
    return failuresOf([...saved.map(({ id: _id, ...failure }) => failure), ...this.#unsavedFailures], threadId);
  }

  async reportFailure(failure: StoreFailure): Promise<void> {
    const record = failureRecord(failure);
    const { threadId, key, error } = record;
    try {
      await this.#transaction(['failures'], 'readwrite', (tx) => tx.objectStore('failures').add(record));
    } catch {
      // The quota that failed the result may fail this write too: the failure is still kept here.
      this.#unsavedFailures.push(record);
    }
    const totalBytes = await this.totalBytes(threadId).catch(() => 0);
    this.#announce([{ type: 'failed', threadId, key, totalBytes, error }]);
  }

  seen(threadId: string, key: string): Promise<SeenResult | undefined> {
    return this.#run(['seen', 'entries'], 'readonly', (tx) => operations.readSeen(tx, threadId, key));
  }

  async stage(result: StagedResult): Promise<void> {
    operations.checkStaged(result);
    if (this.#askToPersist) {
      this.#askToPersist = false;
      // Not awaited: the answer does not change how this result is stored.
      this.persist().catch((error) => console.warn('IndexedDbOffloadStore: persist() failed', error));
    }
    await this.#run(['staged', 'chunks'], 'readwrite', (tx) => operations.stageResult(tx, result, this.#chunkChars));
  }

  async apply(change: StoreChange): Promise<AppliedChange> {
    const now = Date.now();
    const applyIt = () => this.#run(CHANGE_STORES, 'readwrite', (tx) => operations.applyChange(tx, change, now));
    const outcome =
      change?.type === 'commit'
        ? await operations.commitMakingRoom({
            commit: applyIt,
            evictOldest: () =>
              this.#run(CHANGE_STORES, 'readwrite', (tx) =>
                operations.evictOldest(tx, change.threadId, change.turnId ?? '', Date.now()),
              ),
            announce: (events) => this.#announce(events),
          })
        : await applyIt();
    this.#announce(outcome.events);
    if (outcome.error) throw outcome.error;
    return outcome.value;
  }

  async restoreTurn(threadId: string, turnId: string, maxTotalBytes: number): Promise<void> {
    const now = Date.now();
    const outcome = await this.#run(CHANGE_STORES, 'readwrite', (tx) =>
      operations.restoreTurn(tx, threadId, turnId, maxTotalBytes, now),
    );
    this.#announce(outcome.events);
  }

  async settle(threadId: string, turnIds: readonly string[], options?: SettleOptions): Promise<void> {
    const checked = operations.checkSettle(turnIds, options);
    await this.#transaction(['undo', 'chunks', 'staged', 'failures'], 'readwrite', (tx) =>
      operations.settle(new IdbTx(tx), threadId, turnIds, checked, this.#failedKeys(tx, threadId)),
    );
  }

  async clearThread(threadId: string): Promise<void> {
    const outcome = await this.#transaction([...OFFLOAD_STORES], 'readwrite', async (tx) => {
      const cleared = await operations.clearThread(new IdbTx(tx), threadId);
      const failures = tx.objectStore('failures');
      for (const id of await failures.index('byThread').getAllKeys(threadId)) await failures.delete(id);
      return cleared;
    });
    this.#unsavedFailures.splice(0, Infinity, ...this.#unsavedFailures.filter((f) => f.threadId !== threadId));
    this.#announce(outcome.events);
  }

  /** Asks the browser to keep this origin's storage under pressure; false where it cannot be asked. */
  async persist(): Promise<boolean> {
    const storage = globalThis.navigator?.storage;
    return typeof storage?.persist === 'function' ? storage.persist() : false;
  }

  /** The origin's usage and quota, where the browser tells. */
  /** Whether the browser already keeps this origin's storage under pressure (never asks, unlike persist()). */
  async persisted(): Promise<boolean> {
    const storage = globalThis.navigator?.storage;
    return typeof storage?.persisted === 'function' ? storage.persisted() : false;
  }

  async estimate(): Promise<StorageEstimate | undefined> {
    const storage = globalThis.navigator?.storage;
    return typeof storage?.estimate === 'function' ? storage.estimate() : undefined;
  }

  /** Closes the connection and the change channel; a later call opens them again. */
  async close(): Promise<void> {
    this.#broadcast.close();
    await this.#connection.close();
  }

  /** Closes and deletes the whole database (every thread). */
  async deleteDatabase(): Promise<void> {
    this.#broadcast.close();
    this.#unsavedFailures.length = 0;
    await this.#connection.deleteDatabase();
  }
}
