import { checkThreadId } from '../shared/checks.js';
import type {
  AppliedChange,
  ClearedResult,
  EvictionRecord,
  HeldText,
  LinesRead,
  ListOptions,
  RecordedRequest,
  RequestChange,
  RequestRecord,
  RequestsOptions,
  SeenResult,
  SettleOptions,
  StagedResult,
  StoreChange,
  StoredResultInfo,
  StoreEvent,
  StoreFailure,
  UnreadableRecord,
  UsageChange,
  WritableOffloadStore,
} from './offload-store.js';
import { clearedFields } from './record-checks.js';
import type { RecordKind, StoreEngine, StoreNotifications } from './store-engine.js';
import { failedEvent, failedKeysOf, failureRecord, failuresOf, recordFailure, trimFailures } from './store-failures.js';
import { StoreListeners } from './store-listeners.js';
import * as operations from './store-operations.js';
import * as reads from './store-reads.js';
import type { Outcome, StoreTx } from './store-records.js';
import * as ledger from './store-requests.js';
import { rebuiltThread } from './thread-record.js';

/** What each operation reads or writes. A read may fall back to a staged text whose commit failed (S3), known from the failures. */
const READ: RecordKind[] = ['entries', 'chunks', 'evictions', 'staged', 'failures'];
const CHANGE: RecordKind[] = ['threads', 'entries', 'staged', 'chunks', 'evictions', 'undo', 'seen'];
const TOTAL: RecordKind[] = ['threads', 'entries', 'evictions'];
const FAILURE: RecordKind[] = [...TOTAL, 'failures'];
/** A Block takes back the turn's clearings too (C7). */
const RESTORE: RecordKind[] = [...CHANGE, 'cleared'];
/** A request's record: the thread (its step count; rebuilt from its entries and log when lost), the ledger, the clearings and their undo. */
const REQUEST: RecordKind[] = [...TOTAL, 'undo', 'cleared', 'requests'];
const EVERY: RecordKind[] = [...CHANGE, 'failures', 'cleared', 'requests'];

/** A store's settings the shell applies, checked by the store that names them. */
interface ShellSettings {
  /** Code units in each chunk a text is stored in. */
  chunkChars: number;
  /** Eviction and failure records kept per thread, the newest. */
  logRetention: number;
  /** Ledger records kept per thread, the newest. */
  requestRetention: number;
}

/**
 * The OffloadStore over an engine: every operation's rules (store-operations.ts, store-reads.ts,
 * store-failures.ts) run here once, each in one atomic unit of the engine, and the events of a change
 * are told once it is kept — to this store's subscribers and, through the engine, to other instances.
 * The memory and IndexedDB stores are this shell over their engines.
 */
export class OffloadStoreShell implements WritableOffloadStore {
  readonly #engine: StoreEngine;
  readonly #settings: ShellSettings;
  readonly #listeners = new StoreListeners();
  readonly #notifications: StoreNotifications | undefined;
  /** Failures whose own write failed too (the full quota that failed the result): kept here instead. */
  #unsavedFailures: StoreFailure[] = [];

  constructor(engine: StoreEngine, settings: ShellSettings) {
    this.#engine = engine;
    this.#settings = settings;
    this.#notifications = engine.notifications?.((events) => this.#listeners.emit(events));
  }

  #read<T>(kinds: readonly RecordKind[], operation: (tx: StoreTx) => Promise<T>): Promise<T> {
    return this.#engine.transaction(kinds, 'readonly', operation);
  }

  #write<T>(kinds: readonly RecordKind[], operation: (tx: StoreTx) => Promise<T>): Promise<T> {
    return this.#engine.transaction(kinds, 'readwrite', operation);
  }

  /** Tells a kept change's events to this store's subscribers and the other instances. */
  #announce(events: StoreEvent[]): void {
    this.#listeners.emit(events);
    this.#notifications?.post(events);
  }

  /** The keys of the thread's failures (saved in `tx` or not), read when asked: their staged texts serve reads. */
  #failedKeys(tx: StoreTx, threadId: string): operations.FailedKeys {
    return async () => failedKeysOf([...(await tx.failures(threadId)), ...this.#unsavedFailures], threadId);
  }

  async list(threadId?: string, options?: ListOptions): Promise<StoredResultInfo[]> {
    reads.checkListOptions(threadId, options, 'list');
    return this.#read(['entries'], (tx) => reads.listEntries(tx, threadId, options?.keys));
  }

  read(threadId: string, key: string): Promise<string> {
    return this.#read(READ, (tx) => reads.readText(tx, threadId, key, this.#failedKeys(tx, threadId)));
  }

  readChunks(threadId: string, key: string): Promise<string[]> {
    return this.#read(READ, (tx) => reads.readChunks(tx, threadId, key, this.#failedKeys(tx, threadId)));
  }

  async readLines(threadId: string, key: string, offset: number, limit?: number): Promise<LinesRead> {
    reads.checkLineRange(offset, limit);
    return this.#read(READ, (tx) => reads.readLines(tx, threadId, key, offset, limit, this.#failedKeys(tx, threadId)));
  }

  async evictions(threadId?: string, options?: ListOptions): Promise<EvictionRecord[]> {
    reads.checkListOptions(threadId, options, 'evictions');
    return this.#read(['evictions'], (tx) => reads.listEvictions(tx, threadId, options?.keys));
  }

  /** The thread's running total; a malformed thread record is rebuilt from its readable entries (not saved). */
  async totalBytes(threadId: string): Promise<number> {
    const thread = await this.#read(TOTAL, async (tx) => (await tx.thread(threadId)) ?? rebuiltThread(tx, threadId));
    return thread.totalBytes;
  }

  /**
   * The thread's bound as its record keeps it; undefined for a thread never committed to, or whose
   * record is malformed (a bound read back from IndexedDB is checked like every field, never trusted).
   */
  async bound(threadId: string): Promise<number | undefined> {
    const thread = await this.#read(['threads'], (tx) => tx.thread(threadId));
    return thread?.maxTotalBytes;
  }

  /** The bytes held for the thread: live, kept to undo a turn, staged (HeldText). */
  heldText(threadId: string): Promise<HeldText> {
    return this.#read(['threads', 'undo', 'staged'], (tx) => reads.heldText(tx, threadId));
  }

  /** Listens to this store's changes and other instances' (their channel closes with the last listener). */
  subscribe(listener: (event: StoreEvent) => void): () => void {
    const unsubscribe = this.#listeners.subscribe(listener);
    this.#notifications?.open();
    return () => {
      unsubscribe();
      if (this.#listeners.size === 0) this.#notifications?.close();
    };
  }

  /**
   * The failures saved and those whose record could not be written. When the store cannot be read
   * at all (it cannot open), those kept in memory are still given, so the inspector can show which
   * results were cut; with none, the read's error is thrown.
   */
  async failures(threadId?: string): Promise<StoreFailure[]> {
    let saved: StoreFailure[];
    try {
      saved = await this.#read(['failures'], (tx) => tx.failures(threadId));
    } catch (error) {
      const unsaved = failuresOf(this.#unsavedFailures, threadId);
      if (unsaved.length === 0) throw error;
      return unsaved;
    }
    return failuresOf([...saved, ...this.#unsavedFailures], threadId);
  }

  /** Records the failure in one atomic unit with its trim; its 'failed' event is told once it is kept. */
  async reportFailure(failure: StoreFailure): Promise<void> {
    const record = failureRecord(failure);
    let outcome: Outcome<void>;
    try {
      outcome = await this.#write(FAILURE, (tx) => recordFailure(tx, record));
    } catch {
      // The quota that failed the result may fail this write too: the failure is still kept, here.
      this.#unsavedFailures.push(record);
      trimFailures(this.#unsavedFailures, record.threadId, this.#settings.logRetention);
      const totalBytes = await this.totalBytes(record.threadId).catch(() => 0);
      outcome = { value: undefined, events: [failedEvent(record, totalBytes)] };
    }
    this.#announce(outcome.events);
  }

  seen(threadId: string, key: string): Promise<SeenResult | undefined> {
    return this.#read(['seen', 'entries'], (tx) => operations.readSeen(tx, threadId, key));
  }

  async stage(result: StagedResult): Promise<void> {
    operations.checkStaged(result);
    this.#engine.staging?.();
    await this.#write(['staged', 'chunks'], (tx) => operations.stageResult(tx, result, this.#settings.chunkChars));
  }

  async apply(change: StoreChange): Promise<AppliedChange> {
    const now = Date.now();
    const applyIt = () => this.#write(CHANGE, (tx) => operations.applyChange(tx, change, now));
    const outcome =
      // An optional copy (evict: false) makes no room: a full quota refuses it at once.
      change?.type === 'commit' && change.evict !== false
        ? await operations.commitMakingRoom({
            commit: applyIt,
            evictOldest: () =>
              this.#write(CHANGE, (tx) => operations.evictOldest(tx, change.threadId, change.turnId ?? '', Date.now())),
            announce: (events) => this.#announce(events),
          })
        : await applyIt();
    this.#announce(outcome.events);
    if (outcome.error) throw outcome.error;
    return outcome.value;
  }

  async restoreTurn(threadId: string, turnId: string, maxTotalBytes: number): Promise<void> {
    const now = Date.now();
    const outcome = await this.#write(RESTORE, (tx) =>
      operations.restoreTurn(tx, threadId, turnId, maxTotalBytes, now),
    );
    this.#announce(outcome.events);
  }

  async settle(threadId: string, turnIds: readonly string[], options?: SettleOptions): Promise<void> {
    const checked = operations.checkSettle(turnIds, options);
    await this.#write(['undo', 'chunks', 'staged', 'failures'], (tx) =>
      operations.settle(tx, threadId, turnIds, checked, this.#failedKeys(tx, threadId)),
    );
  }

  /** The thread's cleared results (C4), by the step that cleared them. */
  async cleared(threadId: string): Promise<ClearedResult[]> {
    checkThreadId(threadId); // a key part: IndexedDB refuses anything else
    const records = await this.#read(['cleared'], (tx) => tx.clearedOf(threadId));
    return records.map(clearedFields);
  }

  /** The thread's context ledger, oldest first; with `after` and `newest`, only those steps (read through the key, not the whole ledger). */
  async requests(threadId: string, options?: RequestsOptions): Promise<RequestRecord[]> {
    checkThreadId(threadId);
    const { after, newest } = ledger.checkRequestsOptions(options);
    // The thread's record too: its step counter bounds the ledger (S2).
    return this.#read(['threads', 'requests'], (tx) => tx.requestsOf(threadId, after, newest));
  }

  /** Records one model request in one atomic unit; its 'request' event is told once it is kept. */
  async recordRequest(change: RequestChange): Promise<RecordedRequest> {
    ledger.checkRequestChange(change);
    const now = Date.now();
    const retention = this.#settings.requestRetention;
    const outcome = await this.#write(REQUEST, (tx) => ledger.recordRequest(tx, change, retention, now));
    this.#announce(outcome.events);
    return outcome.value;
  }

  /** Adds a provider's reported usage to one ledger record in one atomic unit; its 'request' event is told once it is kept. */
  async recordUsage(change: UsageChange): Promise<boolean> {
    ledger.checkUsageChange(change);
    const outcome = await this.#write(['threads', 'requests'], (tx) => ledger.recordUsage(tx, change));
    this.#announce(outcome.events);
    return outcome.value;
  }

  async clearThread(threadId: string): Promise<void> {
    const now = Date.now();
    const unsaved = failuresOf(this.#unsavedFailures, threadId);
    const outcome = await this.#write(EVERY, (tx) => operations.clearThread(tx, threadId, now, unsaved));
    this.#unsavedFailures = this.#unsavedFailures.filter((failure) => failure.threadId !== threadId);
    this.#engine.forgetThread?.(threadId);
    this.#announce(outcome.events);
  }

  /**
   * The malformed records of one thread (or all), with their keys: each is skipped by every read.
   * Reads the records anew.
   */
  unreadable(threadId?: string): Promise<UnreadableRecord[]> {
    return this.#engine.unreadable(threadId);
  }

  /** Releases what the store holds open (its engine, the channel to other instances); a later call opens them again. */
  async close(): Promise<void> {
    this.#notifications?.close();
    await this.#engine.close();
  }

  /** Forgets the failures kept only here (their database is being deleted). */
  protected forgetUnsavedFailures(): void {
    this.#unsavedFailures = [];
  }
}
