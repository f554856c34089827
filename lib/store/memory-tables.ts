import type { MapJournal } from './memory-journal.js';
import type { RequestRecord, StoreFailure } from './offload-store.js';
import { byStepAndRank, requestFields } from './record-checks.js';
import {
  type ClearedRecord,
  defaultLogRetention,
  type EntryRecord,
  type LoggedEviction,
  type LogName,
  type SeenRecord,
  type StagedRecord,
  type StoreTx,
  type ThreadRecord,
  type UndoRecord,
} from './store-records.js';

/**
 * A thread's entries in seq order, so the oldest is found without a scan: a commit appends (its
 * seq is the thread's highest), and entries no longer live are skipped when met. Anything out of
 * order (a restored entry, a rolled-back operation) drops the queue; it is rebuilt once, sorted.
 */
class SeqQueue {
  #items: Array<{ seq: number; key: string }>;
  #head = 0;

  constructor(entries: Iterable<EntryRecord>) {
    this.#items = Array.from(entries, ({ seq, key }) => ({ seq, key })).sort((a, b) => a.seq - b.seq);
  }

  /** False when `seq` is not past the last one (the queue must then be rebuilt). */
  append(seq: number, key: string): boolean {
    const last = this.#items.at(-1);
    if (last && last.seq >= seq) return false;
    this.#items.push({ seq, key });
    return true;
  }

  /** The live entry with the lowest seq; what it skips stays skipped, and goes once it is most of the queue. */
  oldest(entries: Map<string, EntryRecord>): EntryRecord | undefined {
    let oldest: EntryRecord | undefined;
    while (this.#head < this.#items.length) {
      const { seq, key } = this.#items[this.#head]!;
      const entry = entries.get(key);
      if (entry?.seq === seq) {
        oldest = entry;
        break;
      }
      this.#head++;
    }
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return oldest;
  }
}

/** The memory store's tables: per thread where a thread is what is asked for. */
export class MemoryTables {
  readonly threads = new Map<string, ThreadRecord>();
  readonly entries = new Map<string, Map<string, EntryRecord>>();
  readonly staged = new Map<string, Map<string, StagedRecord>>();
  /** Each text's chunks, by text id. */
  readonly texts = new Map<string, readonly string[]>();
  readonly evictions = new Map<string, Map<number, LoggedEviction>>();
  /** The same eviction records by thread and key, so a key's own are found without a scan. */
  readonly evictionsByKey = new Map<string, Map<string, Map<number, LoggedEviction>>>();
  /** Each logged eviction's thread and key, by id. */
  readonly evictionIds = new Map<number, { threadId: string; key: string }>();
  readonly undo = new Map<string, Map<string, UndoRecord>>();
  readonly seen = new Map<string, Map<string, SeenRecord>>();
  /** Each thread's recorded failures, by an id that only grows. */
  readonly failures = new Map<string, Map<number, StoreFailure>>();
  /** Each thread's cleared results (C4), by toolCallId. */
  readonly cleared = new Map<string, Map<string, ClearedRecord>>();
  /** Each thread's context ledger, by step, in step order. */
  readonly requests = new Map<string, Map<number, RequestRecord>>();
  /** Each thread's eviction queue, built on demand. */
  readonly queues = new Map<string, SeqQueue>();
  nextEvictionId = 1;
  nextFailureId = 1;

  /** @param logRetention eviction and failure records kept per thread, the newest. */
  constructor(readonly logRetention = defaultLogRetention) {}

  queue(threadId: string): SeqQueue {
    let queue = this.queues.get(threadId);
    if (!queue) {
      queue = new SeqQueue(this.entries.get(threadId)?.values() ?? []);
      this.queues.set(threadId, queue);
    }
    return queue;
  }

  /**
   * After a rollback the queues may list what is gone or miss what came back: rebuild them. Seen
   * records put back went to the end of their map: sort them into seq order again.
   */
  afterRollback(): void {
    this.queues.clear();
    for (const [threadId, seen] of this.seen) {
      this.seen.set(threadId, new Map([...seen].sort(([, a], [, b]) => a.seq - b.seq)));
    }
    // Ledger records put back went to the end too: the trim takes the oldest from the front.
    for (const [threadId, ledger] of this.requests) {
      this.requests.set(threadId, new Map([...ledger].sort(([a], [b]) => a - b)));
    }
  }
}

/** The thread's table in `tables` (an empty one is created on demand; it holds no data). */
function of<V>(tables: Map<string, Map<string, V>>, threadId: string): Map<string, V>;
function of<V>(tables: Map<string, Map<number, V>>, threadId: string): Map<number, V>;
function of<V>(tables: Map<string, Map<string | number, V>>, threadId: string): Map<string | number, V> {
  let table = tables.get(threadId);
  if (!table) {
    table = new Map();
    tables.set(threadId, table);
  }
  return table;
}

/**
 * Entry, staged, thread and eviction records are flat but for an entry's `chunkNewlines`, which
 * nothing ever changes: a shallow copy is as good as a full one, and cheap at 10,000 entries.
 */
const copy = <T extends object>(value: T | undefined): T | undefined =>
  value === undefined ? undefined : { ...value };
/** Undo records nest their steps. */
const deepCopy = <T>(value: T | undefined): T | undefined => (value === undefined ? undefined : structuredClone(value));

/**
 * The `count` lowest ids of a log. Ids only grow; a rollback may put one back out of insertion
 * order, so they are compared. A write past the retention drops one: a scan, not a sort.
 */
function oldestIds(log: Map<number, unknown>, count: number): number[] {
  if (count === 1) {
    let oldest = Number.POSITIVE_INFINITY;
    for (const id of log.keys()) if (id < oldest) oldest = id;
    return [oldest];
  }
  return [...log.keys()].sort((a, b) => a - b).slice(0, count);
}

/** `StoreTx` over the memory tables; records are copied in and out so no caller shares them. */
export class MemoryTx implements StoreTx {
  constructor(
    readonly tables: MemoryTables,
    readonly journal: MapJournal,
  ) {}

  async thread(threadId: string) {
    return copy(this.tables.threads.get(threadId));
  }
  async putThread(record: ThreadRecord) {
    this.journal.set(this.tables.threads, record.threadId, copy(record)!);
  }

  async entry(threadId: string, key: string) {
    return copy(of(this.tables.entries, threadId).get(key));
  }
  async oldestEntry(threadId: string) {
    return copy(this.tables.queue(threadId).oldest(of(this.tables.entries, threadId)));
  }
  async entries(threadId: string) {
    return [...of(this.tables.entries, threadId).values()].map((entry) => copy(entry)!).sort((a, b) => a.seq - b.seq);
  }
  async highestSeq(threadId: string) {
    let highest = 0;
    for (const record of of(this.tables.entries, threadId).values()) highest = Math.max(highest, record.seq);
    return highest;
  }
  async allEntries() {
    return [...this.tables.entries.values()].flatMap((entries) => [...entries.values()].map((entry) => copy(entry)!));
  }
  async putEntry(record: EntryRecord) {
    this.journal.set(of(this.tables.entries, record.threadId), record.key, copy(record)!);
    const queue = this.tables.queues.get(record.threadId);
    if (queue && !queue.append(record.seq, record.key)) this.tables.queues.delete(record.threadId);
  }
  async deleteEntry(threadId: string, key: string) {
    this.journal.delete(of(this.tables.entries, threadId), key);
  }

  async staged(threadId: string, key: string) {
    return copy(of(this.tables.staged, threadId).get(key));
  }
  async stagedOf(threadId: string) {
    return [...of(this.tables.staged, threadId).values()].map((staged) => copy(staged)!);
  }
  async putStaged(record: StagedRecord) {
    this.journal.set(of(this.tables.staged, record.threadId), record.key, copy(record)!);
  }
  async deleteStaged(threadId: string, key: string) {
    this.journal.delete(of(this.tables.staged, threadId), key);
  }

  async chunks(textId: string, first: number, last: number, _owner?: unknown) {
    const chunks = this.tables.texts.get(textId) ?? [];
    return Array.from({ length: last - first + 1 }, (_, i) => chunks[first + i]);
  }
  async putText(textId: string, chunks: readonly string[]) {
    this.journal.set(this.tables.texts, textId, [...chunks]);
  }
  async deleteText(textId: string) {
    this.journal.delete(this.tables.texts, textId);
  }

  /** The key's own eviction records, by id. */
  #evictionsOfKey(threadId: string, key: string): Map<number, LoggedEviction> {
    const byKey = of(this.tables.evictionsByKey, threadId);
    let records = byKey.get(key);
    if (!records) {
      records = new Map();
      byKey.set(key, records);
    }
    return records;
  }
  async addEviction(record: Omit<LoggedEviction, 'id'>) {
    const id = this.tables.nextEvictionId++;
    const logged = { ...record, id };
    this.journal.set(of(this.tables.evictions, record.threadId), id, logged);
    this.journal.set(this.#evictionsOfKey(record.threadId, record.key), id, logged);
    this.journal.set(this.tables.evictionIds, id, { threadId: record.threadId, key: record.key });
    return id;
  }
  async deleteEviction(id: number) {
    const where = this.tables.evictionIds.get(id);
    if (!where) return;
    this.journal.delete(of(this.tables.evictions, where.threadId), id);
    this.journal.delete(this.#evictionsOfKey(where.threadId, where.key), id);
    this.journal.delete(this.tables.evictionIds, id);
  }
  async evictionsOf(threadId?: string) {
    const logs = threadId === undefined ? [...this.tables.evictions.values()] : [of(this.tables.evictions, threadId)];
    return logs.flatMap((log) => [...log.values()].map((record) => copy(record)!)).sort((a, b) => a.id - b.id);
  }
  async evictionsOfKey(threadId: string, key: string) {
    // Ids only grow; a rollback may put a record back out of insertion order: sorted.
    return [...this.#evictionsOfKey(threadId, key).values()].map((record) => copy(record)!).sort((a, b) => a.id - b.id);
  }

  async seen(threadId: string, key: string) {
    return copy(of(this.tables.seen, threadId).get(key));
  }
  async putSeen(record: SeenRecord) {
    this.journal.set(of(this.tables.seen, record.threadId), record.key, copy(record)!);
  }
  async deleteSeenThrough(threadId: string, maxSeq: number) {
    // In seq order (commits add the newest; a rollback sorts them again): the oldest go first.
    const seen = of(this.tables.seen, threadId);
    for (const [key, record] of seen) {
      if (record.seq > maxSeq) break;
      this.journal.delete(seen, key);
    }
  }

  get logRetention() {
    return this.tables.logRetention;
  }
  async logSize(log: LogName, threadId: string) {
    return (this.tables[log].get(threadId)?.size ?? 0) as number;
  }
  async deleteOldestLogged(log: LogName, threadId: string, count: number) {
    const records = of(this.tables[log] as Map<string, Map<number, unknown>>, threadId);
    for (const id of oldestIds(records, count)) {
      if (log === 'evictions') await this.deleteEviction(id);
      else this.journal.delete(records, id);
    }
  }

  async failures(threadId?: string) {
    const logs = threadId === undefined ? [...this.tables.failures.values()] : [of(this.tables.failures, threadId)];
    return logs
      .flatMap((log) => [...log])
      .sort(([a], [b]) => a - b)
      .map(([, failure]) => copy(failure)!);
  }
  async addFailure(record: StoreFailure) {
    this.journal.set(of(this.tables.failures, record.threadId), this.tables.nextFailureId++, copy(record)!);
  }
  async deleteFailures(threadId: string) {
    const log = of(this.tables.failures, threadId);
    for (const id of [...log.keys()]) this.journal.delete(log, id);
  }

  async undo(threadId: string, turnId: string) {
    return deepCopy(of(this.tables.undo, threadId).get(turnId));
  }
  async undoOf(threadId: string) {
    return [...of(this.tables.undo, threadId).values()].map((record) => deepCopy(record)!);
  }
  async putUndo(record: UndoRecord) {
    this.journal.set(of(this.tables.undo, record.threadId), record.turnId, deepCopy(record)!);
  }
  async deleteUndo(threadId: string, turnId: string) {
    this.journal.delete(of(this.tables.undo, threadId), turnId);
  }

  async clearedOne(threadId: string, toolCallId: string) {
    return copy(of(this.tables.cleared, threadId).get(toolCallId));
  }
  async clearedOf(threadId: string) {
    return [...of(this.tables.cleared, threadId).values()].map((record) => copy(record)!).sort(byStepAndRank);
  }
  async putCleared(record: ClearedRecord) {
    this.journal.set(of(this.tables.cleared, record.threadId), record.toolCallId, copy(record)!);
  }
  async deleteCleared(threadId: string, toolCallId: string) {
    this.journal.delete(of(this.tables.cleared, threadId), toolCallId);
  }
  async deleteClearedOf(threadId: string) {
    const cleared = of(this.tables.cleared, threadId);
    for (const toolCallId of [...cleared.keys()]) this.journal.delete(cleared, toolCallId);
  }

  async requestsOf(threadId: string, after = 0, newest?: number) {
    const ledger = of(this.tables.requests, threadId);
    // The steps only (the map is in step order), then copied field by field (a record nests its
    // parts and results): only the records asked for.
    let steps = [...ledger.keys()].filter((step) => step > after);
    if (newest !== undefined) steps = steps.slice(Math.max(steps.length - newest, 0));
    return steps.map((step) => requestFields(ledger.get(step)!));
  }
  async lastRequestStep(threadId: string) {
    let last: number | undefined;
    for (const step of of(this.tables.requests, threadId).keys()) last = step;
    return last;
  }
  async putRequest(record: RequestRecord) {
    const ledger = of(this.tables.requests, record.threadId);
    // A step is put once, past the thread's newest (the map stays in step order).
    this.journal.set(ledger, record.step, requestFields(record));
  }
  async deleteRequestsThrough(threadId: string, maxStep: number) {
    const ledger = of(this.tables.requests, threadId);
    // From the oldest (deleting while iterating a Map is safe): only what goes is visited.
    for (const step of ledger.keys()) {
      if (step > maxStep) break;
      this.journal.delete(ledger, step);
    }
  }
}
