import type { StoreEvent, StoreFailure } from './offload-store.js';
import { failureProblem } from './record-checks.js';
import { type Outcome, type StoreTx, trimLog } from './store-records.js';
import { rebuiltThread } from './thread-record.js';

/**
 * Results that could not be stored (S3), as a store records them: an operation of their own, in
 * one atomic unit like every other change, with the thread's total read in that same unit.
 */
export async function recordFailure(tx: StoreTx, failure: StoreFailure): Promise<Outcome<void>> {
  await tx.addFailure(failure);
  await trimLog(tx, 'failures', failure.threadId);
  const thread = (await tx.thread(failure.threadId)) ?? (await rebuiltThread(tx, failure.threadId));
  return { value: undefined, events: [failedEvent(failure, thread.totalBytes, thread.maxTotalBytes)] };
}

/** The event that tells subscribers of a recorded failure. */
export function failedEvent(failure: StoreFailure, totalBytes: number, bound?: number): StoreEvent {
  const { threadId, key, error } = failure;
  return { type: 'failed', threadId, key, totalBytes, ...(bound === undefined ? {} : { bound }), error };
}

/** The keys of a thread's recorded failures. */
export function failedKeysOf(failures: Iterable<StoreFailure>, threadId: string): Set<string> {
  const keys = new Set<string>();
  for (const failure of failures) if (failure.threadId === threadId) keys.add(failure.key);
  return keys;
}

/**
 * Checks a reported failure as reads will check it (record-checks.ts: a store never writes what it
 * could not read back), and keeps only its fields.
 */
export function failureRecord(failure: StoreFailure): StoreFailure {
  const problem = failureProblem(failure);
  if (problem) throw new TypeError(`reportFailure: ${problem}`);
  return failureFields(failure);
}

/** Only a failure's own fields (not its id, nor whatever else another writer added), so the inspector never shows more. */
export function failureFields({ threadId, key, path, toolName, bytes, at, error }: StoreFailure): StoreFailure {
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
