import { quoteForMessage } from '../shared/checks.js';
import type { AppliedChange, StoreChange } from './offload-store.js';
import type { Outcome, StoreTx } from './store-records.js';
import { ThreadChange } from './thread-change.js';

/** Checks the time a change expires entries before (milliseconds since the epoch, as `createdAt`). */
export function checkExpireBefore(operation: string, before: unknown): void {
  if (typeof before !== 'number' || !Number.isFinite(before)) {
    throw new TypeError(
      `${operation}: expireBefore must be a finite time in milliseconds, got ${quoteForMessage(before)}`,
    );
  }
}

/**
 * Evicts the thread's entries created before `before` (reason 'expired'), texts and all: an age
 * limit is there so old results are not kept, so nothing keeps them for an undo either (a Block of
 * the turn does not bring them back). Every entry is looked at, not only the oldest by queue
 * position: a result is created when staged and queued when committed, so the two orders can differ.
 * Returns the keys it evicted.
 */
export async function evictExpired(run: ThreadChange, before: number, turnId: string): Promise<Set<string>> {
  const expired = new Set<string>();
  for (const entry of await run.tx.entries(run.thread.threadId)) {
    if (entry.createdAt >= before) continue;
    run.evict(entry, 'expired', turnId, true);
    expired.add(entry.key);
  }
  return expired;
}

/** An 'expire' change: evicts the thread's entries created before `before`, in one transaction. */
export async function expire(
  tx: StoreTx,
  change: Extract<StoreChange, { type: 'expire' }>,
  now: number,
): Promise<Outcome<AppliedChange>> {
  checkExpireBefore('expire', change.before);
  const run = await ThreadChange.open(tx, change.threadId, undefined, now);
  const expired = await evictExpired(run, change.before, '');
  const value = expired.size > 0 ? await run.finish() : run.summary();
  return { value, events: run.events };
}
