import { BackendError } from '../backends/backend.js';
import { sliceLines } from '../text.js';
import type { EvictionReason, LinesRead } from './offload-store.js';
import type { EntryRecord, StoreTx } from './store-records.js';
import { chunkSpan } from './text-chunks.js';

/**
 * Reading stored texts, shared by the memory and IndexedDB stores: a whole text, or only the chunks
 * that hold some of its lines. A text that cannot be read says why: 'evicted' (and why) or 'not-found'.
 */

const reasonInWords: Record<EvictionReason, string> = {
  bound: "to keep the thread's stored results within maxTotalBytes (the oldest results go first)",
  summarized: 'because a summary now covers the conversation that produced it',
  blocked: 'because the turn that stored it was blocked by an output check',
  replaced: 'because a rerun of the same call replaced it',
};

/** Lines [offset, offset + limit) as `readLines` promises them; `limit` undefined reads to the end. */
export function checkLineRange(offset: unknown, limit: unknown): void {
  if (typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < 0) {
    throw new RangeError(`readLines: offset must be a non-negative integer, got ${String(offset)}`);
  }
  if (limit !== undefined && (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 0)) {
    throw new RangeError(`readLines: limit must be a non-negative integer or undefined, got ${String(limit)}`);
  }
}

/** The joined chunks `first` to `last` of a record's text, or undefined when one is missing. */
async function joinedChunks(tx: StoreTx, record: EntryRecord, first: number, last: number) {
  const chunks = await tx.chunks(record.textId, first, last);
  return chunks.includes(undefined) ? undefined : chunks.join('');
}

export async function readText(tx: StoreTx, threadId: string, key: string): Promise<string> {
  const entry = await tx.entry(threadId, key);
  const text = entry && (await joinedChunks(tx, entry, 0, entry.chunkNewlines.length - 1));
  if (text !== undefined) return text;
  throw await notReadable(tx, threadId, key);
}

/** Reads only the chunks that hold the lines (none when there are none to read). */
export async function readLines(
  tx: StoreTx,
  threadId: string,
  key: string,
  offset: number,
  limit: number | undefined,
): Promise<LinesRead> {
  const entry = await tx.entry(threadId, key);
  if (entry) {
    const span = chunkSpan(entry, offset, limit);
    if (!span) return { text: '', totalLines: entry.lines };
    const text = await joinedChunks(tx, entry, span.first, span.last);
    if (text !== undefined) return { text: sliceLines(text, span.skip, limit), totalLines: entry.lines };
  }
  throw await notReadable(tx, threadId, key);
}

/** Why the key's text cannot be read: 'evicted' (saying why) or 'not-found'. */
async function notReadable(tx: StoreTx, threadId: string, key: string): Promise<BackendError> {
  const eviction = await tx.lastEviction(threadId, key);
  if (eviction) {
    return new BackendError('evicted', `${eviction.path} was evicted ${reasonInWords[eviction.reason]}.`);
  }
  return new BackendError('not-found', `${key} not found: no result was stored under this key in thread ${threadId}.`);
}
