import { MapJournal } from './memory-journal.js';
import { MemoryTables, MemoryTx } from './memory-tables.js';
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
import { failedKeysOf, failureRecord, failuresOf, trimFailures } from './store-failures.js';
import { StoreListeners } from './store-listeners.js';
import * as operations from './store-operations.js';
import * as reads from './store-reads.js';
import { byAge, checkLogRetention, type StoreTx, toEvictionRecord, toInfo } from './store-records.js';
import { checkChunkChars, defaultChunkChars } from './text-chunks.js';

export interface MemoryOffloadStoreOptions {
  /** Code units in each chunk a text is kept in (the same rule as IndexedDbOffloadStore); default 131,072. */
  chunkChars?: number;
  /** Eviction and failure records kept per thread, the newest; default 1,000. */
  logRetention?: number;
}

/**
 * An `OffloadStore` in memory: the same rules as the IndexedDB store (shared in
 * store-operations.ts), for Node, tests, and wherever `indexedDB` is missing. Operations run one
 * at a time, and one that throws is rolled back, so each is atomic like a transaction.
 */
export class MemoryOffloadStore implements OffloadStore {
  readonly #chunkChars: number;
  readonly #tables: MemoryTables;
  readonly #failures: StoreFailure[] = [];
  readonly #listeners = new StoreListeners();
  #queue: Promise<unknown> = Promise.resolve();

  constructor(options: MemoryOffloadStoreOptions = {}) {
    this.#chunkChars = checkChunkChars(options.chunkChars ?? defaultChunkChars);
    this.#tables = new MemoryTables(checkLogRetention('MemoryOffloadStore', options.logRetention));
  }

  #atomic<T>(operation: (tx: StoreTx) => Promise<T>): Promise<T> {
    const run = this.#queue.then(async () => {
      const journal = new MapJournal();
      try {
        return await operation(new MemoryTx(this.#tables, journal));
      } catch (error) {
        journal.rollback();
        this.#tables.afterRollback();
        throw error;
      }
    });
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async list(threadId?: string, options?: ListOptions): Promise<StoredResultInfo[]> {
    reads.checkListOptions(threadId, options);
    return this.#atomic(async (tx) => {
      if (threadId !== undefined) return reads.listEntries(tx, threadId, options?.keys);
      const all = await Promise.all([...this.#tables.entries.keys()].map((thread) => tx.entries(thread)));
      return all.flat().map(toInfo).sort(byAge);
    });
  }

  /** The keys of the thread's reported failures, whose staged texts serve reads. */
  #failedKeys(threadId: string): operations.FailedKeys {
    return async () => failedKeysOf(this.#failures, threadId);
  }

  read(threadId: string, key: string): Promise<string> {
    return this.#atomic((tx) => reads.readText(tx, threadId, key, this.#failedKeys(threadId)));
  }

  async readLines(threadId: string, key: string, offset: number, limit?: number): Promise<LinesRead> {
    reads.checkLineRange(offset, limit);
    return this.#atomic((tx) => reads.readLines(tx, threadId, key, offset, limit, this.#failedKeys(threadId)));
  }

  async evictions(threadId?: string): Promise<EvictionRecord[]> {
    return this.#atomic(async (tx) => {
      const threads = threadId === undefined ? [...this.#tables.evictions.keys()] : [threadId];
      const logs = await Promise.all(threads.map((thread) => tx.evictionsOf(thread)));
      return logs
        .flat()
        .sort((a, b) => a.id - b.id)
        .map(toEvictionRecord);
    });
  }

  async totalBytes(threadId: string): Promise<number> {
    return this.#atomic(async (tx) => (await tx.thread(threadId))?.totalBytes ?? 0);
  }

  /** The bytes held for the thread: live, kept to undo a turn, staged (HeldText). */
  heldText(threadId: string): Promise<HeldText> {
    return this.#atomic((tx) => reads.heldText(tx, threadId));
  }

  subscribe(listener: (event: StoreEvent) => void): () => void {
    return this.#listeners.subscribe(listener);
  }

  async failures(threadId?: string): Promise<StoreFailure[]> {
    return failuresOf(this.#failures, threadId);
  }

  async reportFailure(failure: StoreFailure): Promise<void> {
    this.#failures.push(failureRecord(failure));
    trimFailures(this.#failures, failure.threadId, this.#tables.logRetention);
    const totalBytes = await this.totalBytes(failure.threadId);
    this.#listeners.emit([
      { type: 'failed', threadId: failure.threadId, key: failure.key, totalBytes, error: failure.error },
    ]);
  }

  async seen(threadId: string, key: string): Promise<SeenResult | undefined> {
    return this.#atomic((tx) => operations.readSeen(tx, threadId, key));
  }

  async stage(result: StagedResult): Promise<void> {
    operations.checkStaged(result);
    await this.#atomic((tx) => operations.stageResult(tx, result, this.#chunkChars));
  }

  async apply(change: StoreChange): Promise<AppliedChange> {
    const now = Date.now();
    const outcome =
      change?.type === 'commit'
        ? await operations.commitMakingRoom({
            commit: () => this.#atomic((tx) => operations.applyChange(tx, change, now)),
            evictOldest: () =>
              this.#atomic((tx) => operations.evictOldest(tx, change.threadId, change.turnId ?? '', Date.now())),
            announce: (events) => this.#listeners.emit(events),
          })
        : await this.#atomic((tx) => operations.applyChange(tx, change, now));
    this.#listeners.emit(outcome.events);
    if (outcome.error) throw outcome.error;
    return outcome.value;
  }

  async restoreTurn(threadId: string, turnId: string, maxTotalBytes: number): Promise<void> {
    const now = Date.now();
    const outcome = await this.#atomic((tx) => operations.restoreTurn(tx, threadId, turnId, maxTotalBytes, now));
    this.#listeners.emit(outcome.events);
  }

  async settle(threadId: string, turnIds: readonly string[], options?: SettleOptions): Promise<void> {
    const checked = operations.checkSettle(turnIds, options);
    await this.#atomic((tx) => operations.settle(tx, threadId, turnIds, checked, this.#failedKeys(threadId)));
  }

  async clearThread(threadId: string): Promise<void> {
    const now = Date.now();
    const outcome = await this.#atomic((tx) => operations.clearThread(tx, threadId, now));
    this.#failures.splice(0, this.#failures.length, ...this.#failures.filter((f) => f.threadId !== threadId));
    this.#listeners.emit(outcome.events);
  }

  /** Never any: this store's records are written only by itself, from results `stage` checked. */
  async unreadable(_threadId?: string): Promise<UnreadableRecord[]> {
    return [];
  }

  /** Nothing to release: the records stay, for later calls. */
  async close(): Promise<void> {}
}
