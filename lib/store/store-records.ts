import { checkInteger } from '../shared/checks.js';
import type {
  ClearedResult,
  EvictionRecord,
  RequestRecord,
  SeenDetails,
  StagedResult,
  StoredResultInfo,
  StoreEvent,
  StoreFailure,
} from './offload-store.js';
import type { TextLayout } from './text-chunks.js';

/**
 * What every store keeps, whatever holds it (maps in memory, object stores in IndexedDB). Texts
 * live apart from their records, in chunks under ids of their own, so listing never loads a text,
 * a page reads only its chunks, and a staged rerun of a key never overwrites the live text of that key.
 */

/** A live entry: its info, where its text is, and how its lines fall in its chunks. */
export interface EntryRecord extends StoredResultInfo, TextLayout {
  textId: string;
}

/** A staged result: its info without a place in the queue, and where its text is. */
export interface StagedRecord extends Omit<StagedResult, 'text'>, TextLayout {
  textId: string;
}

/** An eviction as logged: the public record plus what the store needs to undo it. */
export interface LoggedEviction extends EvictionRecord {
  id: number;
  turnId: string;
  /**
   * The evicted entry's seq: with the thread and key it names this record (an entry is evicted at
   * most once until it is restored, which deletes the record), so an undo step needs no log id.
   */
  seq: number;
}

/**
 * One thing a turn did, in order, so `restoreTurn` can undo it backwards: a result stored, an entry
 * evicted, a result cleared from the thread's requests at a step (C7).
 */
export type UndoStep =
  | { kind: 'stored'; key: string; seq: number }
  | { kind: 'evicted'; entry: EntryRecord }
  | { kind: 'cleared'; toolCallId: string; step: number };

/**
 * A cleared result as kept: `rank` is its place in the change that cleared it, so those of one
 * step read back in that order (by [threadId, step, rank]).
 */
export interface ClearedRecord extends ClearedResult {
  rank: number;
}

export interface UndoRecord {
  threadId: string;
  turnId: string;
  steps: UndoStep[];
  /** When the turn last changed the store; an older log is an orphan for `settle`'s `stagedBefore`. */
  at?: number;
}

/**
 * A result `offloadResult` stored: kept apart from its entry and the eviction log, so offering it
 * again stores nothing, even after it was evicted (A1, A2). Small: no text, no preview.
 */
export interface SeenRecord extends SeenDetails {
  threadId: string;
  key: string;
  /** Its entry's seq: a thread keeps the records of its newest `seenPerThread` results. */
  seq: number;
}

/** A thread's running total, its next sequence number (never reused) and its entry count. */
export interface ThreadRecord {
  threadId: string;
  totalBytes: number;
  nextSeq: number;
  entries: number;
  /** The smallest maxTotalBytes of the agents that wrote to the thread: the bound it is held to. */
  maxTotalBytes?: number;
  /** The thread's last model request step (`recordRequest`); absent before the first (and after a clear). */
  requestStep?: number;
}

/**
 * What one atomic store operation gives back: its value and the events to tell once it is kept. It
 * never throws on a rule (a result larger than the bound): that is returned as `error`, so the
 * transaction still commits what it cleaned up.
 */
export interface Outcome<T> {
  value: T;
  events: StoreEvent[];
  error?: Error;
}

/**
 * The reads and writes one atomic store operation may make. The IndexedDB store implements it
 * over one transaction (only IndexedDB requests are awaited); the memory store over its maps,
 * journaled so a failed operation is rolled back.
 */
export interface StoreTx {
  thread(threadId: string): Promise<ThreadRecord | undefined>;
  putThread(record: ThreadRecord): Promise<void>;

  entry(threadId: string, key: string): Promise<EntryRecord | undefined>;
  /** The entry with the lowest seq; its cost must not grow with the number of entries. */
  oldestEntry(threadId: string): Promise<EntryRecord | undefined>;
  /** The thread's entries, lowest seq first. */
  entries(threadId: string): Promise<EntryRecord[]>;
  /**
   * The highest seq the thread's entries hold, readable or not (0 for none): a damaged entry still
   * holds its seq in the queue's unique index, so a rebuilt thread record must go past it.
   */
  highestSeq(threadId: string): Promise<number>;
  /** Every thread's entries, in no particular order. */
  allEntries(): Promise<EntryRecord[]>;
  putEntry(record: EntryRecord): Promise<void>;
  deleteEntry(threadId: string, key: string): Promise<void>;

  staged(threadId: string, key: string): Promise<StagedRecord | undefined>;
  stagedOf(threadId: string): Promise<StagedRecord[]>;
  putStaged(record: StagedRecord): Promise<void>;
  deleteStaged(threadId: string, key: string): Promise<void>;

  /**
   * Chunks `first` to `last` of a text, in order; undefined where a chunk is missing (or is not
   * text, reported as unreadable for `owner`, the entry whose text it is).
   */
  chunks(
    textId: string,
    first: number,
    last: number,
    owner?: { threadId: string; key: string },
  ): Promise<Array<string | undefined>>;
  putText(textId: string, chunks: readonly string[]): Promise<void>;
  /** Deletes every chunk of the text. */
  deleteText(textId: string): Promise<void>;

  /** Logs an eviction; returns its id (ids only grow). */
  addEviction(record: Omit<LoggedEviction, 'id'>): Promise<number>;
  deleteEviction(id: number): Promise<void>;
  /** The thread's eviction log (every thread's without one), oldest first. */
  evictionsOf(threadId?: string): Promise<LoggedEviction[]>;
  /**
   * The key's own eviction records, oldest first (a few at most: an entry is evicted once until it
   * is restored); its cost must not grow with the thread's log.
   */
  evictionsOfKey(threadId: string, key: string): Promise<LoggedEviction[]>;
  /** Eviction and failure records kept per thread, the newest (the store's `logRetention`; trimLog keeps it). */
  readonly logRetention: number;
  /** How many records the thread's log holds (malformed ones too). */
  logSize(log: LogName, threadId: string): Promise<number>;
  /** Deletes the thread's `count` oldest records of the log (ids only grow). */
  deleteOldestLogged(log: LogName, threadId: string, count: number): Promise<void>;

  /** Why the key's entry or text was found unreadable in this operation, if it was. */
  damage?(threadId: string, key: string): string | undefined;
  /** Deletes the thread's malformed records, which checked reads skip; none where the engine reads only its own writes. */
  deleteUnreadable?(threadId: string): Promise<void>;

  /** The thread's recorded failures (every thread's without one), in the order recorded. */
  failures(threadId?: string): Promise<StoreFailure[]>;
  addFailure(record: StoreFailure): Promise<void>;
  deleteFailures(threadId: string): Promise<void>;

  seen(threadId: string, key: string): Promise<SeenRecord | undefined>;
  putSeen(record: SeenRecord): Promise<void>;
  /** Deletes the thread's seen records with seq at most `maxSeq`; its cost grows with what it deletes. */
  deleteSeenThrough(threadId: string, maxSeq: number): Promise<void>;

  undo(threadId: string, turnId: string): Promise<UndoRecord | undefined>;
  undoOf(threadId: string): Promise<UndoRecord[]>;
  putUndo(record: UndoRecord): Promise<void>;
  deleteUndo(threadId: string, turnId: string): Promise<void>;

  /** The result's cleared record (C4), if it has one. */
  clearedOne(threadId: string, toolCallId: string): Promise<ClearedRecord | undefined>;
  /** The thread's cleared records, by [step, rank]. */
  clearedOf(threadId: string): Promise<ClearedRecord[]>;
  putCleared(record: ClearedRecord): Promise<void>;
  deleteCleared(threadId: string, toolCallId: string): Promise<void>;
  deleteClearedOf(threadId: string): Promise<void>;

  /**
   * The thread's ledger records of steps after `after` (all without it), oldest first; with
   * `newest`, only the newest that many, read from the newest down (never the whole ledger). A
   * record past the thread's step counter is out of order (S2): skipped, as unreadable.
   */
  requestsOf(threadId: string, after?: number, newest?: number): Promise<RequestRecord[]>;
  /** The step of the thread's newest ledger record, if it has one; its cost must not grow with the ledger. */
  lastRequestStep(threadId: string): Promise<number | undefined>;
  putRequest(record: RequestRecord): Promise<void>;
  /** Deletes the thread's ledger records of steps up to `maxStep`; its cost grows with what it deletes. */
  deleteRequestsThrough(threadId: string, maxStep: number): Promise<void>;
}

/** A thread's logs, each kept at its newest `logRetention` records. */
export type LogName = 'evictions' | 'failures';

/**
 * Deletes the thread's oldest records of the log beyond the store's log retention. `loggedAtMost`,
 * when given, bounds the log's length: a log that cannot be over the retention costs no request.
 */
export async function trimLog(
  tx: StoreTx,
  log: LogName,
  threadId: string,
  loggedAtMost = Number.POSITIVE_INFINITY,
): Promise<void> {
  if (loggedAtMost <= tx.logRetention) return;
  const excess = (await tx.logSize(log, threadId)) - tx.logRetention;
  if (excess > 0) await tx.deleteOldestLogged(log, threadId, excess);
}

/** Eviction and failure records a store keeps per thread, the newest: its `logRetention` option's default. */
export const defaultLogRetention = 1000;

/** Checks a store's `logRetention` option: an integer of at least 1. */
export function checkLogRetention(store: string, logRetention: unknown): number {
  return checkInteger(`${store}: logRetention`, logRetention ?? defaultLogRetention, 1);
}

/** Ledger records a store keeps per thread, the newest: its `requestRetention` option's default. */
const defaultRequestRetention = 10_000;

/** Checks a store's `requestRetention` option: an integer of at least 1. */
export function checkRequestRetention(store: string, requestRetention: unknown): number {
  return checkInteger(`${store}: requestRetention`, requestRetention ?? defaultRequestRetention, 1);
}

export function toInfo(record: EntryRecord): StoredResultInfo {
  const { textId: _textId, chunkNewlines: _chunks, lines: _lines, ...info } = record;
  return info;
}

export function toEvictionRecord(record: LoggedEviction): EvictionRecord {
  const { threadId, key, path, bytes, at, reason, toolName } = record;
  return {
    threadId,
    key,
    path,
    bytes,
    at,
    reason,
    ...(toolName === undefined ? {} : { toolName }),
    ...previewFacts(record),
  };
}

export type PreviewFacts = Pick<EvictionRecord, 'toolCallId' | 'estimatedTokens' | 'previewDigest' | 'headerOnly'>;

/**
 * What an eviction record keeps of its entry's preview, so a later request still knows the preview
 * (C4): only for an entry that named its tool call, and only the facts it kept.
 */
export function previewFacts(record: PreviewFacts): PreviewFacts {
  const { toolCallId, estimatedTokens, previewDigest, headerOnly } = record;
  if (toolCallId === undefined) return {};
  return {
    toolCallId,
    ...(estimatedTokens === undefined ? {} : { estimatedTokens }),
    ...(previewDigest === undefined ? {} : { previewDigest }),
    ...(headerOnly === undefined ? {} : { headerOnly }),
  };
}

/** Oldest first across threads: by creation time, then by place in the thread's queue. */
export function byAge(a: StoredResultInfo, b: StoredResultInfo): number {
  return a.createdAt - b.createdAt || a.seq - b.seq;
}

/** A fresh id for a text: random, so two tabs writing one database never collide. */
export function newTextId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}
