import type { HookContext, StateKey } from '../runtime/middleware.js';
import type { OffloadStore, StoreChange } from '../store/offload-store.js';
import type { PendingCommits, StagedDetails } from './pending-commits.js';
import { reportStoreFailure } from './report-failure.js';
import { resultPath } from './result-path.js';

/** What the offload's state key holds in a thread's checkpoint: the thread's stored results, in short. */
export interface OffloadStateValue {
  entries: number;
  totalBytes: number;
}

function fail(problem: string): never {
  throw new TypeError(`ToolOutputOffload state update: ${problem}`);
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}

/** Checks that an update written to the offload's key is a store change for this thread. */
export function checkStoreChange(update: unknown, threadId: string): StoreChange {
  if (typeof update !== 'object' || update === null)
    fail(`expected a store change object, got ${JSON.stringify(update)}`);
  const change = update as Record<string, unknown>;
  if (change.threadId !== threadId) {
    fail(
      `the change is for thread ${JSON.stringify(change.threadId)}, but it was applied in thread ${JSON.stringify(threadId)}`,
    );
  }
  if (typeof change.turnId !== 'string' || change.turnId === '') fail('turnId must be a non-empty string');
  if (change.type === 'commit') {
    if (typeof change.key !== 'string' || change.key === '') fail('a commit needs a non-empty string key');
    const max = change.maxTotalBytes;
    if (typeof max !== 'number' || !Number.isSafeInteger(max) || max < 1) {
      fail(`a commit needs maxTotalBytes as a positive integer, got ${JSON.stringify(max)}`);
    }
    return change as unknown as StoreChange;
  }
  if (change.type === 'drop') {
    if (!isStringArray(change.keys)) fail('a drop needs keys as an array of strings');
    if (change.reason !== 'summarized')
      fail(`a drop's reason must be "summarized", got ${JSON.stringify(change.reason)}`);
    return change as unknown as StoreChange;
  }
  return fail(`type must be "commit" or "drop", got ${JSON.stringify(change.type)}`);
}

function isQuotaError(error: unknown): error is Error {
  return error instanceof Error && error.name === 'QuotaExceededError';
}

async function reportCommitFailure(
  store: OffloadStore,
  change: Extract<StoreChange, { type: 'commit' }>,
  staged: StagedDetails | undefined,
  error: Error,
  context: HookContext,
): Promise<void> {
  const path = resultPath(change.key);
  const why = `${error.name}: ${error.message} (while making ${path} live; it was not stored)`;
  // A commit this instance did not stage (or staged in a closed turn) is reported without them.
  const { toolName, bytes } = staged ?? { toolName: '', bytes: 0 };
  context.emit({ type: 'offload-failed', path, bytes, why });
  await reportStoreFailure(store, {
    threadId: change.threadId,
    key: change.key,
    path,
    toolName,
    bytes,
    at: Date.now(),
    error: why,
  });
}

async function currentValue(store: OffloadStore, threadId: string): Promise<OffloadStateValue> {
  const [entries, totalBytes] = await Promise.all([store.list(threadId), store.totalBytes(threadId)]);
  return { entries: entries.length, totalBytes };
}

/**
 * The offload's state key. Applying an update is one store transaction (the bound is enforced
 * there, when the update is applied, O3); an output Block undoes the turn in the store (O8).
 */
export function offloadStateKey(store: OffloadStore, pending: PendingCommits): StateKey<OffloadStateValue> {
  return {
    initial: { entries: 0, totalBytes: 0 },
    async apply(_current, update, context: HookContext) {
      const change = checkStoreChange(update, context.threadId);
      const staged = change.type === 'commit' ? pending.take(change.threadId, change.key) : undefined;
      try {
        const applied = await store.apply(change);
        return { entries: applied.entries, totalBytes: applied.totalBytes };
      } catch (error) {
        // S3: a full quota never fails the run. The commit changed nothing (one transaction), so
        // the thread keeps what it had; the failure is recorded for the inspector.
        if (!isQuotaError(error) || change.type !== 'commit') throw error;
        await reportCommitFailure(store, change, staged, error, context);
        return currentValue(store, context.threadId);
      }
    },
    onBlock: 'restore',
    async restore(_current, _before, context: HookContext) {
      await store.restoreTurn(context.threadId, context.turnId);
      return currentValue(store, context.threadId);
    },
  };
}
