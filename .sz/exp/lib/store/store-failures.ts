import { quoteForMessage } from '../shared/checks.js';
import type { StoreEvent, StoreFailure } from './offload-store.js';
import type { Outcome, StoreTx } from './store-records.js';
import { rebuiltThread } from './thread-record.js';

/**
 * Results that could not be stored (S3), as a store records them: an operation of their own, in
 * one atomic unit like every other change, with the thread's total read in that same unit.
 */
export async function recordFailure(tx: StoreTx, failure: StoreFailure): Promise<Outcome<void>> {
  await tx.addFailure(failure);
  await tx.trimFailures(failure.threadId);
  const thread = (await tx.thread(failure.threadId)) ?? (await rebuiltThread(tx, failure.threadId));
  return { value: undefined, events: [failedEvent(failure, thread.totalBytes)] };
}

/** The event that tells subscribers of a recorded failure. */
export function failedEvent(failure: StoreFailure, totalBytes: number): StoreEvent {
  const { threadId, key, error } = failure;
  return { type: 'failed', threadId, key, totalBytes, error };
}

/** The keys of a thread's recorded failures. */
export function failedKeysOf(failures: Iterable<StoreFailure>, threadId: string): Set<string> {
  const keys = new Set<string>();
  for (const failure of failures) if (failure.threadId === threadId) keys.add(failure.key);
  return keys;
}

/** Checks a reported failure and keeps only its fields, so the inspector never shows a malformed one. */
export function failureRecord(failure: StoreFailure): StoreFailure {
  for (const field of ['threadId', 'key', 'path', 'toolName', 'error'] as const) {
    if (typeof failure?.[field] !== 'string') {
      throw new TypeError(`reportFailure: ${field} must be a string, got ${quoteForMessage(failure?.[field])}`);
    }
  }
  for (const field of ['bytes', 'at'] as const) {
    if (!Number.isFinite(failure[field])) {
      throw new TypeError(`reportFailure: ${field} must be a finite number, got ${quoteForMessage(failure[field])}`);
    }
  }
  const { threadId, key, path, toolName, bytes, at, error } = failure;
  return { threadId, key, path, toolName, bytes, at, error };
}

/** Failures of one thread (or all), oldest first, as copies. */
export function failuresOf(failures: Iterable<StoreFailure>, threadId?: string): StoreFailure[] {
  return [...failures]
    .filter((failure) => threadId === undefined || failure.threadId === threadId)
    .map((failure) => ({ ...failure }))
    .sort((a, b) => a.at - b.at);
}

/** Drops a thread's oldest failures (in the order reported) beyond `keep`, in place. */
export function trimFailures(failures: StoreFailure[], threadId: string, keep: number): void {
  let excess = failures.filter((failure) => failure.threadId === threadId).length - keep;
  for (let i = 0; i < failures.length && excess > 0; ) {
    if (failures[i]!.threadId === threadId) {
      failures.splice(i, 1);
      excess--;
    } else i++;
  }
}
