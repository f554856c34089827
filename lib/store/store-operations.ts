import { checkInteger, isRecord, quoteForMessage } from '../shared/checks.js';
import { isQuotaError } from '../shared/errors.js';
import type {
  AppliedChange,
  EvictionRecord,
  SeenResult,
  SettleOptions,
  StagedResult,
  StoreChange,
  StoreEvent,
  StoreFailure,
} from './offload-store.js';
import { stagedResultProblem } from './record-checks.js';
import { checkExpireBefore, evictExpired, expire } from './store-expiry.js';
import {
  newTextId,
  type Outcome,
  type PreviewFacts,
  previewFacts,
  type StagedRecord,
  type StoreTx,
  trimLog,
  type UndoRecord,
} from './store-records.js';
import { chunkText } from './text-chunks.js';
import { ThreadChange } from './thread-change.js';
import { holdToBound } from './thread-record.js';

/**
 * The store's rules, written once over `StoreTx` so the memory and IndexedDB stores behave the
 * same. Each function is one atomic operation, returning an `Outcome` (store-records.ts).
 */

/** Checks every field as reads will (record-checks.ts: what a store writes, it can read back), and the text. */
export function checkStaged(result: StagedResult): void {
  const problem = stagedResultProblem(result) ?? (typeof result.text === 'string' ? undefined : 'text is not a string');
  if (problem) throw new TypeError(`stage: ${isRecord(result) ? `${result.path || result.key}: ` : ''}${problem}`);
}

/** Checks a thread's bound as a commit or restore is given it. */
function checkBound(operation: string, maxTotalBytes: unknown): number {
  return checkInteger(`${operation}: maxTotalBytes`, maxTotalBytes, 1);
}

/** Writes the text, in chunks, under a fresh id and the staged record beside it, replacing an earlier staging. */
export async function stageResult(tx: StoreTx, result: StagedResult, chunkChars: number): Promise<void> {
  const { text, ...info } = result;
  const { chunks, layout } = chunkText(text, chunkChars);
  const textId = newTextId();
  // Requests run in the order they are made: this read sees the staging the put below replaces.
  const [earlier] = await Promise.all([
    tx.staged(result.threadId, result.key),
    tx.putStaged({ ...info, ...layout, textId }),
    tx.putText(textId, chunks),
  ]);
  if (earlier) await tx.deleteText(earlier.textId);
}

/** A thread keeps the seen records (A1, A2) of at least its newest this many results. */
export const seenPerThread = 10_000;

export async function commit(
  tx: StoreTx,
  change: Extract<StoreChange, { type: 'commit' }>,
  now: number,
): Promise<Outcome<AppliedChange>> {
  const { threadId, key, turnId, seen } = change;
  checkBound('commit', change.maxTotalBytes);
  if (change.expireBefore !== undefined) checkExpireBefore('commit', change.expireBefore);
  if (change.evict !== undefined && typeof change.evict !== 'boolean') {
    throw new TypeError(`commit: evict must be a boolean, got ${quoteForMessage(change.evict)}`);
  }
  // Everything the commit may need, read at once; the oldest entry in case one must be evicted.
  const [run, staged, live, oldestBefore, seenBefore] = await Promise.all([
    ThreadChange.open(tx, threadId, turnId, now),
    tx.staged(threadId, key),
    tx.entry(threadId, key),
    tx.oldestEntry(threadId),
    seen ? tx.seen(threadId, key) : undefined,
  ]);
  const logTurn = turnId ?? '';
  // The age limit first, in this same transaction: whatever else happens, nothing older is kept.
  const expired =
    change.expireBefore === undefined ? new Set<string>() : await evictExpired(run, change.expireBefore, logTurn);
  const expiredOnly = async () => ({
    value: expired.size > 0 ? await run.finish() : run.summary(),
    events: run.events,
  });
  if (seenBefore) {
    // Offered again (or twice at once): the first commit stored it; this copy goes, nothing else changes.
    if (staged) await Promise.all([tx.deleteStaged(threadId, key), tx.deleteText(staged.textId)]);
    return expiredOnly();
  }
  if (!staged) return expiredOnly();
  const maxTotalBytes = holdToBound(run.thread, change.maxTotalBytes);
  /** Not stored: its staged copy goes; the thread keeps its (maybe lowered) bound and its expiry. */
  const notStored = async () => {
    await Promise.all([tx.deleteStaged(threadId, key), tx.deleteText(staged.textId)]);
    const outcome = await expiredOnly();
    if (expired.size === 0) await tx.putThread(run.thread);
    return outcome;
  };
  if (staged.bytes > maxTotalBytes) {
    const lower =
      maxTotalBytes < change.maxTotalBytes ? ', the smallest bound of the agents writing to the thread' : '';
    const error = new RangeError(
      `${staged.path} takes ${staged.bytes} bytes, more than maxTotalBytes (${maxTotalBytes}${lower}); it was not stored`,
    );
    return { ...(await notStored()), error };
  }
  const liveNow = live && !expired.has(live.key) ? live : undefined;
  // An optional copy (C3) that fits only by evicting is not stored: nothing else changes.
  if (change.evict === false && (liveNow || run.thread.totalBytes + staged.bytes > maxTotalBytes)) return notStored();
  if (liveNow) run.evict(liveNow, 'replaced', logTurn);
  // Still the oldest unless it was the entry just replaced or it expired.
  let oldest =
    oldestBefore && (oldestBefore.key === live?.key || expired.has(oldestBefore.key)) ? undefined : oldestBefore;
  while (run.thread.totalBytes + staged.bytes > maxTotalBytes) {
    oldest ??= await tx.oldestEntry(threadId);
    if (!oldest) {
      run.nothingLeft();
      break;
    }
    run.evict(oldest, 'bound', logTurn);
    oldest = undefined;
  }
  const { turnId: _stagedTurn, ...info } = staged;
  const seq = run.thread.nextSeq++;
  run.add({ ...info, seq }, 'stored');
  run.write(tx.deleteStaged(threadId, key));
  if (seen) {
    const { toolName, thresholdTokens, previewLines, maxResultBytes } = seen;
    run.write(tx.putSeen({ threadId, key, seq, toolName, thresholdTokens, previewLines, maxResultBytes }));
    run.write(tx.deleteSeenThrough(threadId, seq - seenPerThread));
  }
  run.stored.push(key);
  run.undo?.steps.push({ kind: 'stored', key, seq });
  return { value: await run.finish(), events: run.events };
}

/** The seen record of `key` (A1, A2) and, while its entry is live, the preview the model was shown. */
export async function readSeen(tx: StoreTx, threadId: string, key: string): Promise<SeenResult | undefined> {
  const [seen, entry] = await Promise.all([tx.seen(threadId, key), tx.entry(threadId, key)]);
  if (!seen) return undefined;
  const { toolName, thresholdTokens, previewLines, maxResultBytes } = seen;
  const details = { toolName, thresholdTokens, previewLines, maxResultBytes };
  return entry?.seq === seen.seq ? { ...details, preview: entry.preview } : details;
}

/** Applies a commit, a drop or an expiry; anything else is a TypeError naming what came. */
export function applyChange(tx: StoreTx, change: StoreChange, now: number): Promise<Outcome<AppliedChange>> {
  if (change?.type === 'commit') return commit(tx, change, now);
  if (change?.type === 'drop') return drop(tx, change, now);
  if (change?.type === 'expire') return expire(tx, change, now);
  throw new TypeError(
    `apply: change.type must be 'commit', 'drop' or 'expire', got ${quoteForMessage((change as { type?: unknown })?.type)}`,
  );
}

export async function drop(
  tx: StoreTx,
  change: { threadId: string; keys: readonly string[]; turnId: string; reason: 'summarized' },
  now: number,
): Promise<Outcome<AppliedChange>> {
  const run = await ThreadChange.open(tx, change.threadId, change.turnId, now);
  for (const key of change.keys) {
    const live = await tx.entry(change.threadId, key);
    if (live) run.evict(live, change.reason, change.turnId);
  }
  return { value: await run.finish(), events: run.events };
}

/**
 * Evicts the oldest entries (reason 'bound') until the thread fits `maxTotalBytes`. Nothing can
 * undo these, so their texts go too.
 */
async function evictToFit(run: ThreadChange, maxTotalBytes: number, turnId: string): Promise<void> {
  while (run.thread.totalBytes > maxTotalBytes) {
    const oldest = await run.tx.oldestEntry(run.thread.threadId);
    if (!oldest) {
      run.nothingLeft();
      break;
    }
    run.evict(oldest, 'bound', turnId, true);
  }
}

export async function restoreTurn(
  tx: StoreTx,
  threadId: string,
  turnId: string,
  maxTotalBytes: number,
  now: number,
): Promise<Outcome<void>> {
  checkBound('restoreTurn', maxTotalBytes);
  const run = await ThreadChange.open(tx, threadId, undefined, now);
  const undo = await tx.undo(threadId, turnId);
  for (const step of [...(undo?.steps ?? [])].reverse()) {
    if (step.kind === 'cleared') {
      // Cleared by this turn's request (C7): the next request decides anew. Its ledger record stays.
      const cleared = await tx.clearedOne(threadId, step.toolCallId);
      if (cleared?.step === step.step) await tx.deleteCleared(threadId, step.toolCallId);
      continue;
    }
    const live = await tx.entry(threadId, step.kind === 'stored' ? step.key : step.entry.key);
    if (step.kind === 'stored') {
      if (live?.seq === step.seq) run.evict(live, 'blocked', turnId, true);
    } else if (live) {
      // A later turn stored the key again: the newer result wins; the undo copy goes.
      await tx.deleteText(step.entry.textId);
    } else {
      run.add(step.entry, 'restored');
      // With the thread and key, the entry's seq names its record: evicted once until restored.
      const logged = (await tx.evictionsOfKey(threadId, step.entry.key)).find(({ seq }) => seq === step.entry.seq);
      if (logged) await tx.deleteEviction(logged.id);
    }
  }
  if (undo) await tx.deleteUndo(threadId, turnId);
  await deleteStaged(tx, threadId, (staged) => staged.turnId === turnId);
  // Another writer (another agent on the thread) may have committed since this turn evicted.
  await evictToFit(run, holdToBound(run.thread, maxTotalBytes), turnId);
  await run.finish();
  return { value: undefined, events: run.events };
}

/**
 * Evicts the thread's oldest entry (reason 'quota': the thread may be well within its bound) with
 * its text, to free room when a commit was refused for a full quota. False when the thread has nothing left to evict.
 */
export async function evictOldest(
  tx: StoreTx,
  threadId: string,
  turnId: string,
  now: number,
): Promise<Outcome<EvictionRecord | undefined>> {
  const run = await ThreadChange.open(tx, threadId, undefined, now);
  const oldest = await tx.oldestEntry(threadId);
  if (!oldest) return { value: undefined, events: [] };
  run.evict(oldest, 'quota', turnId, true);
  await run.finish();
  return { value: run.evicted[0], events: run.events };
}

/** A store's side of one commit, for `commitMakingRoom`: each call one transaction. */
export interface CommitAttempts {
  commit(): Promise<Outcome<AppliedChange>>;
  evictOldest(): Promise<Outcome<EvictionRecord | undefined>>;
  announce(events: StoreEvent[]): void;
}

/**
 * A commit that a full quota refuses is tried again after evicting the thread's oldest entry, one
 * at a time, until it goes through or nothing is left to evict (then the quota error is thrown).
 */
export async function commitMakingRoom(attempts: CommitAttempts): Promise<Outcome<AppliedChange>> {
  const freed: EvictionRecord[] = [];
  for (;;) {
    try {
      const outcome = await attempts.commit();
      outcome.value.evicted.unshift(...freed);
      return outcome;
    } catch (error) {
      if (!isQuotaError(error)) throw error;
      const evicted = await attempts.evictOldest();
      if (!evicted.value) throw error;
      attempts.announce(evicted.events);
      freed.push(evicted.value);
    }
  }
}

/** Which staged keys of a thread had their commit fail and reported (S3): they still serve reads. */
export type FailedKeys = () => Promise<ReadonlySet<string>>;

export async function settle(
  tx: StoreTx,
  threadId: string,
  turnIds: readonly string[],
  { stagedBefore, continuing }: { stagedBefore?: number; continuing?: boolean },
  failedKeys: FailedKeys,
): Promise<void> {
  const turns = new Set(turnIds);
  for (const turnId of turns) {
    const undo = await tx.undo(threadId, turnId);
    if (undo) await forgetUndo(tx, undo, continuing === true);
  }
  if (stagedBefore !== undefined) {
    // Undo logs of turns whose tab closed or crashed (the state naming them maybe lost with it):
    // their undo copies go; what they stored stays undoable, in case the turn is only slow.
    for (const undo of await tx.undoOf(threadId)) {
      const orphan = !turns.has(undo.turnId) && (undo.at ?? 0) < stagedBefore;
      if (orphan && undo.steps.some((step) => step.kind === 'evicted')) await forgetUndo(tx, undo, true);
    }
  }
  const failed = await failedKeys();
  await deleteStaged(
    tx,
    threadId,
    (staged) =>
      !failed.has(staged.key) &&
      ((staged.turnId !== undefined && turns.has(staged.turnId)) ||
        (stagedBefore !== undefined && staged.createdAt < stagedBefore)),
  );
}

/**
 * Deletes the turn's undo copies; keeps, when `continuing`, what restoreTurn needs to take back its
 * own entries and its clearings (a clearing outliving the entry it points to would name a path that
 * a Block took back, C7).
 */
async function forgetUndo(tx: StoreTx, undo: UndoRecord, continuing: boolean): Promise<void> {
  for (const step of undo.steps) if (step.kind === 'evicted') await tx.deleteText(step.entry.textId);
  const stored = continuing ? undo.steps.filter((step) => step.kind !== 'evicted') : [];
  if (stored.length > 0) await tx.putUndo({ ...undo, steps: stored });
  else await tx.deleteUndo(undo.threadId, undo.turnId);
}

export function checkSettle(turnIds: unknown, options: unknown): SettleOptions {
  if (!Array.isArray(turnIds) || !turnIds.every((turnId) => typeof turnId === 'string')) {
    throw new TypeError(`settle: turnIds must be an array of turn ids, got ${quoteForMessage(turnIds)}`);
  }
  const { stagedBefore, continuing } = (options ?? {}) as { stagedBefore?: unknown; continuing?: unknown };
  if (stagedBefore !== undefined && (typeof stagedBefore !== 'number' || Number.isNaN(stagedBefore))) {
    throw new TypeError(`settle: stagedBefore must be a time in milliseconds, got ${quoteForMessage(stagedBefore)}`);
  }
  if (continuing !== undefined && typeof continuing !== 'boolean') {
    throw new TypeError(`settle: continuing must be a boolean, got ${quoteForMessage(continuing)}`);
  }
  return { stagedBefore, continuing };
}

/** Deletes the thread's staged results that match, texts and all; returns their keys. */
async function deleteStaged(tx: StoreTx, threadId: string, matches: (staged: StagedRecord) => boolean) {
  const deleted: string[] = [];
  for (const staged of await tx.stagedOf(threadId)) {
    if (!matches(staged)) continue;
    await tx.deleteStaged(threadId, staged.key);
    await tx.deleteText(staged.textId);
    deleted.push(staged.key);
  }
  return deleted;
}

/**
 * Deletes everything the thread has but its seq counter and bound (seen results, failures, cleared
 * results and the ledger too: a cleared thread starts afresh, its request steps from 1), and leaves
 * in its eviction log one record a key that was live or logged (reason 'cleared'), so a read of it says it was cleared; a key already logged as cleared keeps its
 * record. Emits 'evicted' (total 0) for each key it cleared anything of — its entry, its log, its
 * failure or staged text — so views refresh, then 'thread-cleared' (also for a thread with only a
 * ledger or cleared results); none when there was nothing to clear.
 */
export async function clearThread(
  tx: StoreTx,
  threadId: string,
  now: number,
  unsavedFailures: readonly StoreFailure[],
): Promise<Outcome<void>> {
  /** What each key to log as cleared was, oldest first (a key live again after its eviction counts as live). */
  const cleared = new Map<
    string,
    { path: string; bytes: number; seq: number; toolName?: string; reason?: string } & PreviewFacts
  >();
  const log = await tx.evictionsOf(threadId);
  for (const eviction of log) {
    cleared.delete(eviction.key);
    cleared.set(eviction.key, eviction);
  }
  for (const entry of await tx.entries(threadId)) {
    await tx.deleteEntry(threadId, entry.key);
    await tx.deleteText(entry.textId);
    cleared.delete(entry.key);
    cleared.set(entry.key, entry);
  }
  // Cleared before and not stored since: its record stays as it is.
  for (const [key, last] of cleared) if (last.reason === 'cleared') cleared.delete(key);
  for (const eviction of log) if (cleared.has(eviction.key)) await tx.deleteEviction(eviction.id);
  for (const undo of await tx.undoOf(threadId)) {
    for (const step of undo.steps) if (step.kind === 'evicted') await tx.deleteText(step.entry.textId);
    await tx.deleteUndo(threadId, undo.turnId);
  }
  const staged = await deleteStaged(tx, threadId, () => true);
  const hadContext = (await tx.lastRequestStep(threadId)) !== undefined || (await tx.clearedOf(threadId)).length > 0;
  await tx.deleteSeenThrough(threadId, Number.POSITIVE_INFINITY);
  await tx.deleteClearedOf(threadId);
  await tx.deleteRequestsThrough(threadId, Number.POSITIVE_INFINITY);
  const failed = [...(await tx.failures(threadId)), ...unsavedFailures].map((failure) => failure.key);
  await tx.deleteFailures(threadId);
  let lastSeq = 0;
  for (const [key, last] of cleared) {
    const { path, bytes, seq, toolName } = last;
    const tool = toolName === undefined ? {} : { toolName };
    const facts = { ...tool, ...previewFacts(last) };
    await tx.addEviction({ threadId, key, path, bytes, at: now, reason: 'cleared', turnId: '', seq, ...facts });
    lastSeq = Math.max(lastSeq, seq);
  }
  if (cleared.size > 0) await trimLog(tx, 'evictions', threadId);
  const keys = new Set([...cleared.keys(), ...failed, ...staged]);
  // The thread's counter stays, so a seq is never reused even after a clear; so does its bound.
  // Its request steps count from 1 again (the ledger they numbered is gone).
  const thread = await tx.thread(threadId);
  const bound = thread?.maxTotalBytes;
  if (thread || cleared.size > 0) {
    const nextSeq = Math.max(thread?.nextSeq ?? 1, lastSeq + 1);
    await tx.putThread({
      threadId,
      totalBytes: 0,
      nextSeq,
      entries: 0,
      ...(bound === undefined ? {} : { maxTotalBytes: bound }),
    });
  }
  const told = bound === undefined ? {} : { bound };
  const events: StoreEvent[] = [...keys].map((key) => ({ type: 'evicted', threadId, key, totalBytes: 0, ...told }));
  if (keys.size > 0 || hadContext) events.push({ type: 'thread-cleared', threadId });
  // Malformed records the checked reads skipped go too.
  await tx.deleteUnreadable?.(threadId);
  return { value: undefined, events };
}
