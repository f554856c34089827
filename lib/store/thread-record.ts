import type { StoreTx, ThreadRecord } from './store-records.js';

/**
 * A thread's record when it is missing or was found malformed (skipped and reported): rebuilt from
 * the entries that are readable, so the total and the bound hold for the entries that exist. The
 * next seq is past every seq the thread's entries (a damaged one's too, which still holds its seq in
 * the queue's unique index) and eviction log hold, so none is reused. For a
 * thread that never stored anything both reads are empty.
 */
export async function rebuiltThread(tx: StoreTx, threadId: string): Promise<ThreadRecord> {
  const [entries, log, highestSeq] = await Promise.all([
    tx.entries(threadId),
    tx.evictionsOf(threadId),
    tx.highestSeq(threadId),
  ]);
  let totalBytes = 0;
  let lastSeq = highestSeq;
  for (const entry of entries) {
    totalBytes += entry.bytes;
    lastSeq = Math.max(lastSeq, entry.seq);
  }
  for (const eviction of log) lastSeq = Math.max(lastSeq, eviction.seq);
  return { threadId, totalBytes, nextSeq: lastSeq + 1, entries: entries.length };
}

/**
 * The bound a thread is held to: the smallest maxTotalBytes of the agents that write to it, kept on
 * its record, so no agent grows a thread past what another promised.
 */
export function holdToBound(thread: ThreadRecord, maxTotalBytes: number): number {
  thread.maxTotalBytes = Math.min(thread.maxTotalBytes ?? maxTotalBytes, maxTotalBytes);
  return thread.maxTotalBytes;
}
