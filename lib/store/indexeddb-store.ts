import { quoteForMessage } from '../shared/checks.js';
import { IdbConnection } from '../shared/indexeddb-connection.js';
import {
  OFFLOAD_DB_VERSION,
  OFFLOAD_STORES,
  type OffloadDb,
  type OffloadStoreName,
  upgradeOffloadDb,
} from './indexeddb-schema.js';
import { IdbTx, type OffloadTransaction, trimThreadLog } from './indexeddb-tx.js';
import type {
  AppliedChange,
  EvictionRecord,
  HeldText,
  LinesRead,
  ListOptions,
  OffloadStore,
  SeenResult,
  SettleOptions,
  StagedResult,
  StoreChange,
  StoredResultInfo,
  StoreEvent,
  StoreFailure,
  UnreadableRecord,
} from './offload-store.js';
import { entryProblem, evictionProblem, failureProblem, UnreadableLog } from './record-checks.js';
import { StoreBroadcast } from './store-broadcast.js';
import { failedKeysOf, failureRecord, failuresOf, trimFailures } from './store-failures.js';
import { StoreListeners } from './store-listeners.js';
import * as operations from './store-operations.js';
import * as reads from './store-reads.js';
import {
  byAge,
  checkLogRetention,
  type EntryRecord,
  type LoggedEviction,
  type StoreTx,
  toEvictionRecord,
  toInfo,
} from './store-records.js';
import { checkChunkChars, defaultChunkChars } from './text-chunks.js';
import { rebuiltThread } from './thread-record.js';
import { clearUnreadable, unreadableRecords } from './unreadable-scan.js';

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
  /** Eviction and failure records kept per thread, the newest; default 1,000. */
  logRetention?: number;
}

const CHANGE_STORES: OffloadStoreName[] = ['threads', 'entries', 'staged', 'chunks', 'evictions', 'undo', 'seen'];
/** A read may fall back to a staged text whose commit failed (S3), known from the failures. */
const READ_STORES: OffloadStoreName[] = ['entries', 'chunks', 'evictions', 'staged', 'failures'];

/**
 * The OffloadStore in IndexedDB (S1–S5): crash-safe, a full quota never loses stored data, another
 * tab's upgrade closes this connection, and it runs without a DOM (workers, service workers).
 * Each operation is one transaction; a commit's eviction walks the thread's [threadId, seq] index
 * from its start, so its cost does not grow with the number of entries. Other instances on the same
 * database hear of each change through a BroadcastChannel named `<name>:changes`, and their
 * subscribers get the same events.
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
  /** Malformed records met by reads (record-checks.ts). */
  readonly #unreadable = new UnreadableLog();
  readonly #logRetention: number;

  constructor(options: IndexedDbOffloadStoreOptions = {}) {
    this.name = options.name ?? 'tool-output-offload';
    this.#chunkChars = checkChunkChars(options.chunkChars ?? defaultChunkChars);
    if (options.persist !== undefined && typeof options.persist !== 'boolean') {
      throw new TypeError(`IndexedDbOffloadStore: persist must be a boolean, got ${quoteForMessage(options.persist)}`);
    }
    this.#askToPersist = options.persist === true;
    this.#logRetention = checkLogRetention('IndexedDbOffloadStore', options.logRetention);
    this.#connection = new IdbConnection<OffloadDb>({
      name: this.name,
      version: OFFLOAD_DB_VERSION,
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
    return this.#transaction(stores, mode, (tx) => operation(this.#tx(tx)));
  }

  /** `StoreTx` over `tx`, checking every record it reads. */
  #tx(tx: OffloadTransaction): IdbTx {
    return new IdbTx(tx, this.#unreadable, this.#logRetention);
  }

  #announce(events: StoreEvent[]): void {
    this.#listeners.emit(events);
    this.#broadcast.post(events);
  }

  async list(threadId?: string, options?: ListOptions): Promise<StoredResultInfo[]> {
    reads.checkListOptions(threadId, options);
    if (threadId !== undefined)
      return this.#run(['entries'], 'readonly', (tx) => reads.listEntries(tx, threadId, options?.keys));
    const all = await this.#transaction(['entries'], 'readonly', (tx) => tx.objectStore('entries').getAll());
    return all
      .flatMap((record) => this.#check<EntryRecord>('entries', [record?.threadId, record?.key], record, entryProblem))
      .map(toInfo)
      .sort(byAge);
  }

  /** `record` in a list when it is well-formed; else nothing, and it is reported. */
  #check<T>(
    store: 'entries' | 'evictions' | 'failures',
    key: unknown,
    record: unknown,
    problem: (r: unknown) => string | undefined,
  ): T[] {
    const checked = this.#unreadable.check<T>(store, key, record, problem);
    return checked === undefined ? [] : [checked];
  }

  /** The keys of the thread's reported failures (saved or not), read in `tx`: their staged texts serve reads. */
  #failedKeys(tx: OffloadTransaction, threadId: string): operations.FailedKeys {
    return async () => {
      const saved = await tx.objectStore('failures').index('byThread').getAll(threadId);
      const readable = saved.flatMap((record) =>
        this.#check<StoreFailure>('failures', record?.id, record, failureProblem),
      );
      return failedKeysOf([...readable, ...this.#unsavedFailures], threadId);
    };
  }

  read(threadId: string, key: string): Promise<string> {
    return this.#transaction(READ_STORES, 'readonly', (tx) =>
      reads.readText(this.#tx(tx), threadId, key, this.#failedKeys(tx, threadId)),
    );
  }

  async readLines(threadId: string, key: string, offset: number, limit?: number): Promise<LinesRead> {
    reads.checkLineRange(offset, limit);
    return this.#transaction(READ_STORES, 'readonly', (tx) =>
      reads.readLines(this.#tx(tx), threadId, key, offset, limit, this.#failedKeys(tx, threadId)),
    );
  }

  async evictions(threadId?: string): Promise<EvictionRecord[]> {
    const log = await this.#transaction(['evictions'], 'readonly', (tx) => {
      const evictions = tx.objectStore('evictions');
      return threadId === undefined ? evictions.getAll() : evictions.index('byThread').getAll(threadId);
    });
    return log
      .flatMap((record) => this.#check<LoggedEviction>('evictions', record?.id, record, evictionProblem))
      .map(toEvictionRecord);
  }

  /** The thread's running total; a malformed thread record is rebuilt from its readable entries (not saved). */
  async totalBytes(threadId: string): Promise<number> {
    const thread = await this.#run(['threads', 'entries', 'evictions'], 'readonly', async (tx) => {
      return (await tx.thread(threadId)) ?? rebuiltThread(tx, threadId);
    });
    return thread.totalBytes;
  }

  /** The bytes held for the thread: live, kept to undo a turn, staged (HeldText). */
  heldText(threadId: string): Promise<HeldText> {
    return this.#run(['threads', 'undo', 'staged'], 'readonly', (tx) => reads.heldText(tx, threadId));
  }

  /** Listens to this store's changes and other instances' on the same database (the channel closes with the last listener). */
  subscribe(listener: (event: StoreEvent) => void): () => void {
    const unsubscribe = this.#listeners.subscribe(listener);
    this.#broadcast.open();
    return () => {
      unsubscribe();
      if (this.#listeners.size === 0) this.#broadcast.close();
    };
  }

  async failures(threadId?: string): Promise<StoreFailure[]> {
    const saved = await this.#transaction(['failures'], 'readonly', (tx) => {
      const failures = tx.objectStore('failures');
      return threadId === undefined ? failures.getAll() : failures.index('byThread').getAll(threadId);
    });
    const readable = saved.flatMap((record) =>
      this.#check<StoreFailure>('failures', record?.id, record, failureProblem),
    );
    return failuresOf([...readable.map((failure) => failureRecord(failure)), ...this.#unsavedFailures], threadId);
  }

  async reportFailure(failure: StoreFailure): Promise<void> {
    const record = failureRecord(failure);
    const { threadId, key, error } = record;
    try {
      await this.#transaction(['failures'], 'readwrite', async (tx) => {
        await tx.objectStore('failures').add(record);
        await trimThreadLog(tx, 'failures', threadId, this.#logRetention);
      });
    } catch {
      // The quota that failed the result may fail this write too: the failure is still kept here.
      this.#unsavedFailures.push(record);
      trimFailures(this.#unsavedFailures, threadId, this.#logRetention);
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
      operations.settle(this.#tx(tx), threadId, turnIds, checked, this.#failedKeys(tx, threadId)),
    );
  }

  async clearThread(threadId: string): Promise<void> {
    const now = Date.now();
    const outcome = await this.#transaction([...OFFLOAD_STORES], 'readwrite', async (tx) => {
      const cleared = await operations.clearThread(this.#tx(tx), threadId, now);
      const failures = tx.objectStore('failures');
      for (const id of await failures.index('byThread').getAllKeys(threadId)) await failures.delete(id);
      // Malformed records the checked reads skipped go too.
      await clearUnreadable(tx, threadId);
      return cleared;
    });
    this.#unsavedFailures.splice(0, Infinity, ...this.#unsavedFailures.filter((f) => f.threadId !== threadId));
    this.#unreadable.forgetThread(threadId);
    this.#announce(outcome.events);
  }

  /**
   * The malformed records of one thread (or all), with their keys: each is skipped by every read.
   * Reads the records anew (chunks only where a read found one that is not text).
   */
  unreadable(threadId?: string): Promise<UnreadableRecord[]> {
    return this.#transaction([...OFFLOAD_STORES], 'readonly', (tx) =>
      unreadableRecords(tx, this.#unreadable, threadId),
    );
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

  /**
   * Closes the connection and the change channel, so the database can be deleted or upgraded
   * without waiting; a later call opens them again.
   */
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
