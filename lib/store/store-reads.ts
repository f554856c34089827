import { checkInteger, isRecord, quoteForMessage } from '../shared/checks.js';
import { sliceLines } from '../shared/text.js';
import type { EvictionRecord, HeldText, LinesRead, ListOptions, StoredResultInfo } from './offload-store.js';
import type { FailedKeys } from './store-operations.js';
import { StoreReadError } from './store-read-error.js';
import {
  byAge,
  type LoggedEviction,
  type StagedRecord,
  type StoreTx,
  toEvictionRecord,
  toInfo,
} from './store-records.js';
import type { TextLayout } from './text-chunks.js';
import { chunkSpan } from './text-chunks.js';

/**
 * Reading stored texts, shared by the memory and IndexedDB stores: a whole text, or only the chunks
 * that hold some of its lines. A text that cannot be read throws a StoreReadError saying why, as
 * data: 'evicted' (with its eviction record) or 'not-found' (with the damage, when it is unreadable).
 */

/** Lines [offset, offset + limit) as `readLines` promises them; `limit` undefined reads to the end. */
export function checkLineRange(offset: unknown, limit: unknown): void {
  checkInteger('readLines: offset', offset, 0);
  if (limit !== undefined) checkInteger('readLines: limit', limit, 0);
}

type TextRecord = TextLayout & { textId: string; threadId: string; key: string };

/** The chunks `first` to `last` of a record's text, or undefined when one is missing or not text. */
async function chunksOf(tx: StoreTx, record: TextRecord, first: number, last: number) {
  const chunks = await tx.chunks(record.textId, first, last, record);
  return chunks.includes(undefined) ? undefined : (chunks as string[]);
}

/** The joined chunks `first` to `last` of a record's text, or undefined when one is missing or not text. */
async function joinedChunks(tx: StoreTx, record: TextRecord, first: number, last: number) {
  return (await chunksOf(tx, record, first, last))?.join('');
}

/**
 * The live entry of the key, or else its staged result when its commit failed for a full quota
 * and was reported (S3): the preview naming its path is in the conversation, so it stays readable.
 */
async function readable(
  tx: StoreTx,
  threadId: string,
  key: string,
  failedKeys: FailedKeys,
): Promise<TextRecord | undefined> {
  const entry = await tx.entry(threadId, key);
  if (entry) return entry;
  const staged: StagedRecord | undefined = await tx.staged(threadId, key);
  return staged && (await failedKeys()).has(key) ? staged : undefined;
}

export async function readText(tx: StoreTx, threadId: string, key: string, failedKeys: FailedKeys): Promise<string> {
  const record = await readable(tx, threadId, key, failedKeys);
  const text = record && (await joinedChunks(tx, record, 0, record.chunkNewlines.length - 1));
  if (text !== undefined) return text;
  throw await notReadable(tx, threadId, key);
}

/** The whole text as its chunks, in order, not joined ('' has none). */
export async function readChunks(
  tx: StoreTx,
  threadId: string,
  key: string,
  failedKeys: FailedKeys,
): Promise<string[]> {
  const record = await readable(tx, threadId, key, failedKeys);
  const chunks = record && (await chunksOf(tx, record, 0, record.chunkNewlines.length - 1));
  if (chunks !== undefined) return chunks;
  throw await notReadable(tx, threadId, key);
}

/** Reads only the chunks that hold the lines (none when there are none to read). */
export async function readLines(
  tx: StoreTx,
  threadId: string,
  key: string,
  offset: number,
  limit: number | undefined,
  failedKeys: FailedKeys,
): Promise<LinesRead> {
  const entry = await readable(tx, threadId, key, failedKeys);
  if (entry) {
    const span = chunkSpan(entry, offset, limit);
    if (!span) return { text: '', totalLines: entry.lines };
    const text = await joinedChunks(tx, entry, span.first, span.last);
    if (text !== undefined) return { text: sliceLines(text, span.skip, limit), totalLines: entry.lines };
  }
  throw await notReadable(tx, threadId, key);
}

/**
 * Why the key's text cannot be read: 'evicted' (its latest eviction, 'cleared' among the reasons),
 * or 'not-found' — never stored, or stored but unreadable (its record or text malformed).
 */
async function notReadable(tx: StoreTx, threadId: string, key: string): Promise<StoreReadError> {
  const damage = tx.damage?.(threadId, key);
  if (damage !== undefined) return new StoreReadError(threadId, key, { damage });
  const eviction = (await tx.evictionsOfKey(threadId, key)).at(-1);
  if (eviction) return new StoreReadError(threadId, key, { eviction: toEvictionRecord(eviction) });
  return new StoreReadError(threadId, key, { neverStored: true });
}

/** What the store holds for a thread, from the records alone (no text is read). */
export async function heldText(tx: StoreTx, threadId: string): Promise<HeldText> {
  const [thread, undo, staged] = await Promise.all([tx.thread(threadId), tx.undoOf(threadId), tx.stagedOf(threadId)]);
  const evicted = undo.flatMap((record) =>
    record.steps.flatMap((step) => (step.kind === 'evicted' ? [step.entry] : [])),
  );
  return {
    live: thread?.totalBytes ?? 0,
    undo: evicted.reduce((sum, entry) => sum + entry.bytes, 0),
    staged: staged.reduce((sum, record) => sum + record.bytes, 0),
  };
}

/**
 * Throws a TypeError unless `options` is what `list` or `evictions` (`method`) takes: `keys` an
 * array of strings, with a thread.
 */
export function checkListOptions(threadId: unknown, options: ListOptions | undefined, method: string): void {
  if (options === undefined) return;
  if (!isRecord(options))
    throw new TypeError(`${method}: options must be an object like { keys: ['k1'] }, got ${quoteForMessage(options)}`);
  const { keys } = options;
  if (keys === undefined) return;
  if (!Array.isArray(keys) || !keys.every((key) => typeof key === 'string')) {
    throw new TypeError(`${method}: options.keys must be an array of strings, got ${quoteForMessage(keys)}`);
  }
  if (threadId === undefined) throw new TypeError(`${method}: options.keys needs a threadId (keys are per thread)`);
}

/**
 * The thread's entries, oldest first: all of them, or only those of `keys` (each read by its key);
 * without a thread, every thread's (byAge).
 */
export async function listEntries(
  tx: StoreTx,
  threadId: string | undefined,
  keys?: readonly string[],
): Promise<StoredResultInfo[]> {
  if (threadId === undefined) return (await tx.allEntries()).map(toInfo).sort(byAge);
  if (keys === undefined) return (await tx.entries(threadId)).map(toInfo);
  const found = await Promise.all([...new Set(keys)].map((key) => tx.entry(threadId, key)));
  return found
    .filter((entry) => entry !== undefined)
    .map(toInfo)
    .sort(byAge);
}

/**
 * The thread's eviction log, oldest first: all of it, or only the records of `keys` (each key's
 * through its own index); without a thread, every thread's.
 */
export async function listEvictions(
  tx: StoreTx,
  threadId: string | undefined,
  keys?: readonly string[],
): Promise<EvictionRecord[]> {
  let log: LoggedEviction[];
  if (threadId === undefined || keys === undefined) log = await tx.evictionsOf(threadId);
  else {
    const own = await Promise.all([...new Set(keys)].map((key) => tx.evictionsOfKey(threadId, key)));
    log = own.flat().sort((a, b) => a.id - b.id);
  }
  return log.map(toEvictionRecord);
}
