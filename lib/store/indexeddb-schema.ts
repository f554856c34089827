import type { DBSchema, IDBPDatabase } from 'idb';
import type { StoreFailure } from './offload-store.js';
import type { EntryRecord, LoggedEviction, StagedRecord, ThreadRecord, UndoRecord } from './store-records.js';

/** The offload database: records apart from the texts, so listing never loads a text. */
export interface OffloadDb extends DBSchema {
  /** Live entries' info, by [threadId, key]; `bySeq` is each thread's eviction queue. */
  entries: { key: [string, string]; value: EntryRecord; indexes: { bySeq: [string, number] } };
  /** Texts by text id (out-of-line keys). */
  texts: { key: string; value: string };
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
}

export type OffloadStoreName = 'entries' | 'texts' | 'staged' | 'evictions' | 'undo' | 'threads' | 'failures';

export const OFFLOAD_DB_VERSION = 1;

export const OFFLOAD_STORES: readonly OffloadStoreName[] = [
  'entries',
  'texts',
  'staged',
  'evictions',
  'undo',
  'threads',
  'failures',
];

export function upgradeOffloadDb(database: IDBPDatabase<OffloadDb>, oldVersion: number): void {
  if (oldVersion < 1) {
    const entries = database.createObjectStore('entries', { keyPath: ['threadId', 'key'] });
    entries.createIndex('bySeq', ['threadId', 'seq'], { unique: true });
    database.createObjectStore('texts');
    database.createObjectStore('staged', { keyPath: ['threadId', 'key'] });
    const evictions = database.createObjectStore('evictions', { keyPath: 'id', autoIncrement: true });
    evictions.createIndex('byThread', 'threadId');
    evictions.createIndex('byKey', ['threadId', 'key']);
    database.createObjectStore('undo', { keyPath: ['threadId', 'turnId'] });
    database.createObjectStore('threads', { keyPath: 'threadId' });
    const failures = database.createObjectStore('failures', { keyPath: 'id', autoIncrement: true });
    failures.createIndex('byThread', 'threadId');
  }
}

/** Every key [threadId, …] of one thread: arrays sort after strings, so [threadId, []] is past them all. */
export function threadRange(threadId: string): IDBKeyRange {
  return IDBKeyRange.bound([threadId], [threadId, []]);
}

/** One thread's part of the [threadId, seq] queue. */
export function queueRange(threadId: string): IDBKeyRange {
  return IDBKeyRange.bound([threadId, -Infinity], [threadId, Infinity]);
}
