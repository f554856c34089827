import type { MapJournal } from './memory-journal.js';
import type { EntryRecord, LoggedEviction, StagedRecord, StoreTx, ThreadRecord, UndoRecord } from './store-records.js';

/** The memory store's tables: per thread where a thread is what is asked for. */
export class MemoryTables {
  readonly threads = new Map<string, ThreadRecord>();
  readonly entries = new Map<string, Map<string, EntryRecord>>();
  readonly staged = new Map<string, Map<string, StagedRecord>>();
  readonly texts = new Map<string, string>();
  readonly evictions = new Map<string, Map<number, LoggedEviction>>();
  readonly undo = new Map<string, Map<string, UndoRecord>>();
  nextEvictionId = 1;
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

/** Entry, staged, thread and eviction records are flat: a shallow copy is a full one, and cheap at 10,000 entries. */
const copy = <T extends object>(value: T | undefined): T | undefined =>
  value === undefined ? undefined : { ...value };
/** Undo records nest their steps. */
const deepCopy = <T>(value: T | undefined): T | undefined => (value === undefined ? undefined : structuredClone(value));

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
    let oldest: EntryRecord | undefined;
    for (const entry of of(this.tables.entries, threadId).values())
      if (!oldest || entry.seq < oldest.seq) oldest = entry;
    return copy(oldest);
  }
  async entries(threadId: string) {
    return [...of(this.tables.entries, threadId).values()].map((entry) => copy(entry)!).sort((a, b) => a.seq - b.seq);
  }
  async putEntry(record: EntryRecord) {
    this.journal.set(of(this.tables.entries, record.threadId), record.key, copy(record)!);
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

  async text(textId: string) {
    return this.tables.texts.get(textId);
  }
  async putText(textId: string, text: string) {
    this.journal.set(this.tables.texts, textId, text);
  }
  async deleteText(textId: string) {
    this.journal.delete(this.tables.texts, textId);
  }

  async addEviction(record: Omit<LoggedEviction, 'id'>) {
    const id = this.tables.nextEvictionId++;
    this.journal.set(of(this.tables.evictions, record.threadId), id, { ...record, id });
    return id;
  }
  async deleteEviction(id: number) {
    for (const log of this.tables.evictions.values()) this.journal.delete(log, id);
  }
  async lastEviction(threadId: string, key: string) {
    const matching = (await this.evictionsOf(threadId)).filter((eviction) => eviction.key === key);
    return matching.at(-1);
  }
  async evictionsOf(threadId: string) {
    return [...of(this.tables.evictions, threadId).values()].map((record) => copy(record)!).sort((a, b) => a.id - b.id);
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
}
