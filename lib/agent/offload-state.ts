import type { OffloadEvent } from '../offload/events.js';
import { resultPath } from '../offload/result-path.js';
import type { OffloadCommit } from '../offload/store-result.js';
import type { ToolOutputOffload } from '../offload/tool-output-offload.js';
import type { HookContext, StateKey, TurnEnd } from '../runtime/middleware.js';
import type { ToolContext } from '../runtime/tool.js';
import { isRecord, quoteForMessage } from '../shared/checks.js';
import { errorMessage } from '../shared/errors.js';
import { cutToChars } from '../shared/text.js';
import type { StoreChange, WritableOffloadStore } from '../store/offload-store.js';
import { commitStaged } from './offload-staging.js';

/** What the offload's state key holds in a thread's checkpoint: the thread's stored results, in short. */
interface OffloadStateValue {
  entries: number;
  totalBytes: number;
  /**
   * The turns of this thread that changed the store and are not settled yet: the next turn's
   * beforeAgent settles them by name, so a turn another agent is still running is left alone.
   */
  turns: string[];
}

/** The update beforeAgent writes: settle these finished turns in the store, and expire what is too old. */
export interface SettleTurns {
  type: 'settle';
  turns: string[];
  /** The age limit (maxAgeMs) as of the turn's start: entries created before it are evicted first. */
  expireBefore?: number;
}

/**
 * The update wrapModelCall writes when fitting the request to the context budget cleared results
 * (and stored those under the threshold, C3): the store changed for the turn, so it is among the
 * thread's unsettled turns, an output Block restores it (its clearings and what was stored for them
 * go, C7) and a later settle forgets it. The store was written already: applying it changes nothing there.
 */
export interface ContextCleared {
  type: 'context-cleared';
  threadId: string;
  turnId: string;
}

/**
 * The stagings of one middleware still being written, by thread and turn, so a turn's end waits
 * for them before it deletes what the turn staged and never committed.
 */
export class StagingsInFlight {
  readonly #inFlight = new Map<string, Set<Promise<unknown>>>();

  /** Tracks a staging of the turn until it settles (whatever it ends with). */
  track<T>(threadId: string, turnId: string, staging: Promise<T>): Promise<T> {
    const id = JSON.stringify([threadId, turnId]);
    const inFlight = this.#inFlight.get(id) ?? new Set();
    this.#inFlight.set(id, inFlight);
    inFlight.add(staging);
    const forget = () => {
      inFlight.delete(staging);
      if (inFlight.size === 0 && this.#inFlight.get(id) === inFlight) this.#inFlight.delete(id);
    };
    staging.then(forget, forget);
    return staging;
  }

  /** Waits until no staging of the turn is being written. */
  async done(threadId: string, turnId: string): Promise<void> {
    const id = JSON.stringify([threadId, turnId]);
    for (let inFlight = this.#inFlight.get(id); inFlight?.size; inFlight = this.#inFlight.get(id)) {
      await Promise.allSettled([...inFlight]);
    }
  }
}

/** Staged results older than this are orphans of a closed or crashed tab: any settle deletes them. */
export const orphanAgeMs = 60 * 60 * 1000;

/** Emits one of the offload's events as a run event of this middleware; the runtime puts the thread in every run event itself. */
export function emitOffloadEvent(context: HookContext | ToolContext, event: OffloadEvent): void {
  const { threadId: _thread, ...details } = event;
  context.emit(details);
}

/** A store's error as a run event carries it: its name and message, cut short (events are small). */
export function storeProblem(error: unknown): string {
  const named = error instanceof Error && error.name && error.name !== 'Error';
  return cutToChars(named ? `${error.name}: ${error.message}` : errorMessage(error), 500);
}

function fail(problem: string): never {
  throw new TypeError(`ToolOutputOffload state update: ${problem}`);
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}

/** The unsettled turns a value names ([] for a value saved before they were kept). */
export function unsettledTurns(value: unknown): string[] {
  const turns = isRecord(value) ? value.turns : undefined;
  return isStringArray(turns) ? turns : [];
}

/** Checks that an update written to the offload's key is a store change for this thread, or a settle. */
function checkStoreChange(
  update: unknown,
  threadId: string,
): OffloadCommit | StoreChange | SettleTurns | ContextCleared {
  if (!isRecord(update)) fail(`expected a store change object, got ${quoteForMessage(update)}`);
  const change = update;
  if (change.type === 'settle') {
    if (!isStringArray(change.turns) || change.turns.some((turn) => turn === '')) {
      fail(`a settle needs turns as an array of non-empty strings, got ${quoteForMessage(change.turns)}`);
    }
    const { expireBefore } = change;
    if (expireBefore === undefined) return { type: 'settle', turns: change.turns };
    if (typeof expireBefore !== 'number' || !Number.isFinite(expireBefore)) {
      fail(`a settle's expireBefore must be a finite time in milliseconds, got ${quoteForMessage(expireBefore)}`);
    }
    return { type: 'settle', turns: change.turns, expireBefore };
  }
  if (change.threadId !== threadId) {
    fail(
      `the change is for thread ${quoteForMessage(change.threadId)}, but it was applied in thread ${quoteForMessage(threadId)}`,
    );
  }
  if (typeof change.turnId !== 'string' || change.turnId === '') fail('turnId must be a non-empty string');
  if (change.type === 'commit') {
    if (typeof change.key !== 'string' || change.key === '') fail('a commit needs a non-empty string key');
    const max = change.maxTotalBytes;
    if (typeof max !== 'number' || !Number.isSafeInteger(max) || max < 1) {
      fail(`a commit needs maxTotalBytes as a positive integer, got ${quoteForMessage(max)}`);
    }
    const before = change.expireBefore;
    if (before !== undefined && (typeof before !== 'number' || !Number.isFinite(before))) {
      fail(`a commit's expireBefore must be a finite time in milliseconds, got ${quoteForMessage(before)}`);
    }
    if (typeof change.toolName !== 'string') fail('a commit needs the toolName it stores');
    if (typeof change.bytes !== 'number' || !Number.isSafeInteger(change.bytes) || change.bytes < 0) {
      fail(`a commit needs bytes as an integer of at least 0, got ${quoteForMessage(change.bytes)}`);
    }
    return change as unknown as OffloadCommit;
  }
  if (change.type === 'drop') {
    if (!isStringArray(change.keys)) fail('a drop needs keys as an array of strings');
    if (change.reason !== 'summarized')
      fail(`a drop's reason must be "summarized", got ${quoteForMessage(change.reason)}`);
    return change as unknown as StoreChange;
  }
  if (change.type === 'context-cleared') return { type: 'context-cleared', threadId, turnId: change.turnId };
  return fail(`type must be "commit", "drop", "context-cleared" or "settle", got ${quoteForMessage(change.type)}`);
}

async function currentValue(
  store: WritableOffloadStore,
  threadId: string,
  turns: string[],
): Promise<OffloadStateValue> {
  const [entries, totalBytes] = await Promise.all([store.list(threadId), store.totalBytes(threadId)]);
  return { entries: entries.length, totalBytes, turns };
}

/** `turns` with `turnId` added once. */
function withTurn(turns: string[], turnId: string): string[] {
  return turns.includes(turnId) ? turns : [...turns, turnId];
}

/**
 * The offload's state key. Applying an update is one store transaction, which evicts the thread's
 * oldest results until its stored bytes are within its bound (O3); an output Block undoes the turn
 * in the store: what it stored goes, what it evicted comes back (O8).
 */
export function offloadStateKey(offload: ToolOutputOffload, stagings: StagingsInFlight): StateKey<OffloadStateValue> {
  const { store } = offload;
  const { maxTotalBytes } = offload.limits;
  return {
    initial: { entries: 0, totalBytes: 0, turns: [] },
    async apply(current, update, context: HookContext) {
      const change = checkStoreChange(update, context.threadId);
      const turns = unsettledTurns(current);
      if (change.type === 'settle') {
        // The age limit at the turn's start: one transaction of its own (nothing to undo).
        let expired: Awaited<ReturnType<WritableOffloadStore['apply']>> | undefined;
        try {
          if (change.expireBefore !== undefined) {
            expired = await store.apply({ type: 'expire', threadId: context.threadId, before: change.expireBefore });
          }
          await store.settle(context.threadId, change.turns, { stagedBefore: Date.now() - orphanAgeMs });
        } catch (error) {
          // S3: a store failing never fails the run. The turns stay unsettled: the next turn tries again.
          emitOffloadEvent(context, {
            type: 'store-unavailable',
            threadId: context.threadId,
            why: storeProblem(error),
          });
          return expired ? { entries: expired.entries, totalBytes: expired.totalBytes, turns } : current;
        }
        const left = turns.filter((turn) => !change.turns.includes(turn));
        if (!expired) return { ...current, turns: left };
        return { entries: expired.entries, totalBytes: expired.totalBytes, turns: left };
      }
      const withThisTurn = withTurn(turns, context.turnId);
      if (change.type === 'context-cleared') {
        // Only the counts to refresh (results stored to clear them); a store failing here fails nothing (S3).
        return currentValue(store, context.threadId, withThisTurn).catch(() => ({ ...current, turns: withThisTurn }));
      }
      if (change.type !== 'commit') {
        const applied = await store.apply(change);
        return { entries: applied.entries, totalBytes: applied.totalBytes, turns: withThisTurn };
      }
      const committed = await commitStaged(offload, change as OffloadCommit);
      if ('applied' in committed) {
        const { entries, totalBytes } = committed.applied;
        return { entries, totalBytes, turns: withThisTurn };
      }
      // S3: a full quota never fails the run. The store evicted what it could and the commit still
      // failed: the failure is recorded, and reads of the path are served from the staged text (the
      // preview naming it is already in the conversation).
      const { threadId, key, toolName, bytes } = change as OffloadCommit;
      const why = committed.failed;
      emitOffloadEvent(context, { type: 'offload-failed', threadId, toolName, path: resultPath(key), bytes, why });
      return currentValue(store, context.threadId, withThisTurn);
    },
    onBlock: 'restore',
    async restore(_current, before, context: HookContext) {
      await store.restoreTurn(context.threadId, context.turnId, maxTotalBytes);
      // The turns unsettled before this one; settling one again changes nothing.
      return currentValue(store, context.threadId, unsettledTurns(before));
    },
    endTurn: (current, ending, context) => endTurn(store, stagings, current, ending, context),
  };
}

/**
 * The turn's run ended: its undo copies go now, not at the next turn, so a thread holds its bound
 * plus what turns in flight hold, also when the state naming the turn is lost (a reload with
 * MemoryCheckpointer). A run that failed may still be recovered and blocked: what the turn stored
 * stays undoable and it stays unsettled (the next turn forgets it entirely). What the turn staged
 * and never committed goes too, once the stagings still being written are done.
 */
async function endTurn(
  store: WritableOffloadStore,
  stagings: StagingsInFlight,
  current: OffloadStateValue,
  ending: TurnEnd,
  context: HookContext,
): Promise<OffloadStateValue> {
  const { threadId, turnId } = context;
  await stagings.done(threadId, turnId);
  const continuing = ending.status === 'failed';
  await store.settle(threadId, [turnId], { continuing });
  const turns = unsettledTurns(current);
  if (continuing || !turns.includes(turnId)) return current;
  return { ...current, turns: turns.filter((turn) => turn !== turnId) };
}
