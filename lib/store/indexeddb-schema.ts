import type { DBSchema, IDBPDatabase, IDBPTransaction, StoreNames } from 'idb';
import type { RequestRecord, StoreFailure, UnreadableRecord } from './offload-store.js';
import type {
  ClearedRecord,
  EntryRecord,
  LoggedEviction,
  SeenRecord,
  StagedRecord,
  ThreadRecord,
  UndoRecord,
  UndoStep,
} from './store-records.js';
import { chunkText, defaultChunkChars, type TextLayout } from './text-chunks.js';

/** The offload database: records apart from the texts, so listing never loads a text. */
export interface OffloadDb extends DBSchema {
  /** Live entries' info, by [threadId, key]; `bySeq` is each thread's eviction queue. */
  entries: { key: [string, string]; value: EntryRecord; indexes: { bySeq: [string, number] } };
  /** Texts in chunks, by [textId, chunk index] (out-of-line keys), so a page reads only its chunks. */
  chunks: { key: [string, number]; value: string };
  staged: { key: [string, string]; value: StagedRecord };
  /** The eviction log; ids only grow. */
  evictions: {
    key: number;
    value: LoggedEviction;
    indexes: { byThread: string; byKey: [string, string] };
  };
  /** What each turn did, by [threadId, turnId]. */
  undo: { key: [string, string]; value: UndoRecord };
  /** Each thread's running total, next seq and entry count. */
  threads: { key: string; value: ThreadRecord };
  failures: { key: number; value: StoreFailure & { id?: number }; indexes: { byThread: string } };
  /** Results offloadResult stored, by [threadId, key], live or evicted (A1, A2); `bySeq` finds the oldest. */
  seen: { key: [string, string]; value: SeenRecord; indexes: { bySeq: [string, number] } };
  /** Results cleared from a thread's requests, by [threadId, toolCallId]; `byStep` reads them in order (C4). */
  cleared: { key: [string, string]; value: ClearedRecord; indexes: { byStep: [string, number, number] } };
  /** The context ledger: one record per model request, by [threadId, step]. */
  requests: { key: [string, number]; value: RequestRecord };
}

/** The database's object stores: one per kind of record (`UnreadableRecord['store']` names them). */
export type OffloadStoreName = UnreadableRecord['store'];

/** A transaction over some of the offload's object stores (a readonly one is passed where only reads are made). */
export type OffloadTransaction = IDBPTransaction<OffloadDb, OffloadStoreName[], 'readwrite'>;

/**
 * 1: one value a text, in 'texts'. 2: texts in chunks, in 'chunks', their layout on the records.
 * 3: 'seen', the results offloadResult stored (a database of version 2 gains it empty).
 * 4: 'cleared' and 'requests', the context budget's cleared results and the context ledger (a
 * database of version 3 gains them empty; its thread records gain their step count at the first request).
 */
export const OFFLOAD_DB_VERSION = 4;

export const OFFLOAD_STORES: readonly OffloadStoreName[] = [
  'entries',
  'chunks',
  'staged',
  'evictions',
  'undo',
  'threads',
  'failures',
  'seen',
  'cleared',
  'requests',
];

/** The object stores of each version (the connection refuses a database holding anything else, S6). */
export const OFFLOAD_DB_LAYOUTS: Readonly<Record<number, readonly string[]>> = {
  1: ['entries', 'texts', 'staged', 'evictions', 'undo', 'threads', 'failures'],
  2: ['entries', 'chunks', 'staged', 'evictions', 'undo', 'threads', 'failures'],
  3: ['entries', 'chunks', 'staged', 'evictions', 'undo', 'threads', 'failures', 'seen'],
  4: OFFLOAD_STORES,
};

type UpgradeTransaction = IDBPTransaction<OffloadDb, StoreNames<OffloadDb>[], 'versionchange'>;

/**
 * The upgrade from `oldVersion` (0: a new database, or an empty one adopted) to `newVersion`
 * (default the current one; a test makes a database of an older version with it), with idb's
 * `upgrade` callback arguments. What it returns is the conversion still running in `tx`: if it rejects, the
 * connection aborts the upgrade (the database stays at its version) and the open says why.
 */
export function upgradeOffloadDb(
  database: IDBPDatabase<OffloadDb>,
  oldVersion: number,
  newVersion: number | null,
  tx: UpgradeTransaction,
): Promise<void> | undefined {
  const target = newVersion ?? OFFLOAD_DB_VERSION;
  let converting: Promise<void> | undefined;
  if (oldVersion < 1) {
    const entries = database.createObjectStore('entries', { keyPath: ['threadId', 'key'] });
    entries.createIndex('bySeq', ['threadId', 'seq'], { unique: true });
    database.createObjectStore('staged', { keyPath: ['threadId', 'key'] });
    const evictions = database.createObjectStore('evictions', { keyPath: 'id', autoIncrement: true });
    evictions.createIndex('byThread', 'threadId');
    evictions.createIndex('byKey', ['threadId', 'key']);
    database.createObjectStore('undo', { keyPath: ['threadId', 'turnId'] });
    database.createObjectStore('threads', { keyPath: 'threadId' });
    const failures = database.createObjectStore('failures', { keyPath: 'id', autoIncrement: true });
    failures.createIndex('byThread', 'threadId');
  }
  if (oldVersion < 2 && target >= 2) {
    database.createObjectStore('chunks');
    // Version 1's 'texts' is gone after this upgrade, so code of version 1 in another tab refuses
    // this database (it lacks 'texts') instead of writing texts this code cannot read.
    if (oldVersion === 1) converting = chunkVersion1Texts(tx);
  }
  if (oldVersion < 3 && target >= 3) {
    const seen = database.createObjectStore('seen', { keyPath: ['threadId', 'key'] });
    seen.createIndex('bySeq', ['threadId', 'seq'], { unique: true });
  }
  if (oldVersion < 4 && target >= 4) {
    const cleared = database.createObjectStore('cleared', { keyPath: ['threadId', 'toolCallId'] });
    cleared.createIndex('byStep', ['threadId', 'step', 'rank']);
    database.createObjectStore('requests', { keyPath: ['threadId', 'step'] });
  }
  return converting;
}

/** Version 1 → 2: each text into chunks, each record given its text's layout, then 'texts' deleted. */
async function chunkVersion1Texts(tx: UpgradeTransaction): Promise<void> {
  const v1 = tx as unknown as IDBPTransaction<unknown, string[], 'versionchange'>;
  const texts = v1.objectStore('texts');
  const chunks = tx.objectStore('chunks');
  const layouts = new Map<string, TextLayout>();
  for (let cursor = await texts.openCursor(); cursor; cursor = await cursor.continue()) {
    const textId = cursor.key as string;
    const { chunks: parts, layout } = chunkText(cursor.value as string, defaultChunkChars);
    for (const [index, part] of parts.entries()) await chunks.put(part, [textId, index]);
    layouts.set(textId, layout);
  }
  // A record whose text was already missing keeps a missing chunk: reading it still fails.
  const layoutOf = (textId: string): TextLayout => layouts.get(textId) ?? { chunkNewlines: [0], lines: 0 };
  for (const name of ['entries', 'staged'] as const) {
    for (let cursor = await tx.objectStore(name).openCursor(); cursor; cursor = await cursor.continue()) {
      await cursor.update({ ...cursor.value, ...layoutOf(cursor.value.textId) });
    }
  }
  // Version 1's undo steps named their eviction's log id; now the log record carries the entry's seq.
  const evictions = tx.objectStore('evictions');
  for (let cursor = await tx.objectStore('undo').openCursor(); cursor; cursor = await cursor.continue()) {
    const steps: UndoStep[] = [];
    // Version 1 knew only these two kinds of step.
    const v1Steps = cursor.value.steps as Array<
      Extract<UndoStep, { kind: 'stored' | 'evicted' }> & { evictionId?: number }
    >;
    for (const step of v1Steps) {
      if (step.kind === 'stored') {
        steps.push(step);
        continue;
      }
      const { evictionId, entry } = step;
      const logged = evictionId === undefined ? undefined : await evictions.get(evictionId);
      if (logged) await evictions.put({ ...logged, seq: entry.seq });
      steps.push({ kind: 'evicted', entry: { ...entry, ...layoutOf(entry.textId) } });
    }
    await cursor.update({ ...cursor.value, steps });
  }
  tx.db.deleteObjectStore('texts' as StoreNames<OffloadDb>);
}

/** Every key [threadId, …] of one thread: arrays sort after strings, so [threadId, []] is past them all. */
export function threadRange(threadId: string): IDBKeyRange {
  return IDBKeyRange.bound([threadId], [threadId, []]);
}

/** One thread's part of the [threadId, seq] queue. */
export function queueRange(threadId: string): IDBKeyRange {
  return IDBKeyRange.bound([threadId, -Infinity], [threadId, Infinity]);
}

/** Every chunk of one text: [textId, n] for any n. */
export function textRange(textId: string): IDBKeyRange {
  return IDBKeyRange.bound([textId, -Infinity], [textId, Infinity]);
}
