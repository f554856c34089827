import { BackendError } from '../backends/backend.js';
import type {
  AppliedChange,
  EvictionReason,
  EvictionRecord,
  StagedResult,
  StoreChange,
  StoreEvent,
} from './offload-store.js';
import { type EntryRecord, newTextId, type StoreTx, type ThreadRecord, type UndoRecord } from './store-records.js';

/**
 * The store's rules, written once over `StoreTx` so the memory and IndexedDB stores behave the
 * same. Each function is one atomic operation. It never throws on a rule (a result larger than
 * the bound): that is returned as `error`, so the transaction still commits what it cleaned up.
 */
export interface Outcome<T> {
  value: T;
  events: StoreEvent[];
  error?: Error;
}

const reasonInWords: Record<EvictionReason, string> = {
  bound: "to keep the thread's stored results within maxTotalBytes (the oldest results go first)",
  summarized: 'because a summary now covers the conversation that produced it',
  blocked: 'because the turn that stored it was blocked by an output check',
  replaced: 'because a rerun of the same call replaced it',
};

export function checkStaged(result: StagedResult): void {
  for (const field of ['threadId', 'key', 'path', 'toolName'] as const) {
    if (typeof result[field] !== 'string' || result[field] === '') {
      throw new TypeError(`stage: ${field} must be a non-empty string, got ${JSON.stringify(result[field])}`);
    }
  }
  if (typeof result.text !== 'string') throw new TypeError(`stage: text of ${result.path} must be a string`);
  if (!Number.isSafeInteger(result.bytes) || result.bytes < 0) {
    throw new RangeError(`stage: bytes of ${result.path} must be a non-negative integer, got ${result.bytes}`);
  }
}

/** Writes the text under a fresh id and the staged record beside it, replacing an earlier staging. */
export async function stageResult(tx: StoreTx, result: StagedResult): Promise<void> {
  const { text, ...info } = result;
  const earlier = await tx.staged(result.threadId, result.key);
  if (earlier) await tx.deleteText(earlier.textId);
  const textId = newTextId();
  await tx.putText(textId, text);
  await tx.putStaged({ ...info, textId });
}

export async function readText(tx: StoreTx, threadId: string, key: string): Promise<string> {
  const entry = await tx.entry(threadId, key);
  const text = entry && (await tx.text(entry.textId));
  if (text !== undefined) return text;
  const eviction = await tx.lastEviction(threadId, key);
  if (eviction) {
    throw new BackendError('evicted', `${eviction.path} was evicted ${reasonInWords[eviction.reason]}.`);
  }
  throw new BackendError('not-found', `${key} not found: no result was stored under this key in thread ${threadId}.`);
}

/** The running state of one operation on one thread. */
class ThreadChange {
  readonly events: StoreEvent[] = [];
  readonly evicted: EvictionRecord[] = [];
  readonly stored: string[] = [];

  constructor(
    readonly tx: StoreTx,
    readonly thread: ThreadRecord,
    readonly undo: UndoRecord | undefined,
    readonly now: number,
  ) {}

  static async open(tx: StoreTx, threadId: string, turnId: string | undefined, now: number) {
    const thread = (await tx.thread(threadId)) ?? { threadId, totalBytes: 0, nextSeq: 1, entries: 0 };
    const undo =
      turnId === undefined ? undefined : ((await tx.undo(threadId, turnId)) ?? { threadId, turnId, steps: [] });
    return new ThreadChange(tx, thread, undo, now);
  }

  /** Takes a live entry out. Its text stays (for undo) unless `deleteText`. */
  async evict(entry: EntryRecord, reason: EvictionReason, turnId: string, deleteText = false): Promise<void> {
    await this.tx.deleteEntry(entry.threadId, entry.key);
    this.thread.totalBytes -= entry.bytes;
    this.thread.entries -= 1;
    const logged = { threadId: entry.threadId, key: entry.key, path: entry.path, bytes: entry.bytes, at: this.now };
    const evictionId = await this.tx.addEviction({ ...logged, reason, turnId });
    this.evicted.push({ ...logged, reason });
    if (deleteText) await this.tx.deleteText(entry.textId);
    else this.undo?.steps.push({ kind: 'evicted', entry, evictionId });
    this.events.push({ type: 'evicted', threadId: entry.threadId, key: entry.key, totalBytes: 0 });
  }

  async add(entry: EntryRecord, event: 'stored' | 'restored'): Promise<void> {
    await this.tx.putEntry(entry);
    this.thread.totalBytes += entry.bytes;
    this.thread.entries += 1;
    this.events.push({ type: event, threadId: entry.threadId, key: entry.key, totalBytes: 0 });
  }

  /** Saves the thread and the undo log, and stamps every event with the final total. */
  async finish(): Promise<AppliedChange> {
    await this.tx.putThread(this.thread);
    if (this.undo && this.undo.steps.length > 0) await this.tx.putUndo(this.undo);
    for (const event of this.events) event.totalBytes = this.thread.totalBytes;
    return this.summary();
  }

  summary(): AppliedChange {
    return {
      stored: this.stored,
      evicted: this.evicted,
      totalBytes: this.thread.totalBytes,
      entries: this.thread.entries,
    };
  }
}

export async function commit(
  tx: StoreTx,
  change: { threadId: string; key: string; turnId: string; maxTotalBytes: number },
  now: number,
): Promise<Outcome<AppliedChange>> {
  const { threadId, key, turnId, maxTotalBytes } = change;
  if (!Number.isSafeInteger(maxTotalBytes) || maxTotalBytes < 1) {
    throw new RangeError(`commit: maxTotalBytes must be a positive integer, got ${maxTotalBytes}`);
  }
  const run = await ThreadChange.open(tx, threadId, turnId, now);
  const staged = await tx.staged(threadId, key);
  if (!staged) return { value: run.summary(), events: [] };
  if (staged.bytes > maxTotalBytes) {
    await tx.deleteStaged(threadId, key);
    await tx.deleteText(staged.textId);
    const error = new RangeError(
      `${staged.path} takes ${staged.bytes} bytes, more than maxTotalBytes (${maxTotalBytes}); it was not stored`,
    );
    return { value: run.summary(), events: [], error };
  }
  const live = await tx.entry(threadId, key);
  if (live) await run.evict(live, 'replaced', turnId);
  while (run.thread.totalBytes + staged.bytes > maxTotalBytes) {
    const oldest = await tx.oldestEntry(threadId);
    if (!oldest) break;
    await run.evict(oldest, 'bound', turnId);
  }
  const { turnId: _stagedTurn, ...info } = staged;
  const seq = run.thread.nextSeq++;
  await run.add({ ...info, seq }, 'stored');
  await tx.deleteStaged(threadId, key);
  run.stored.push(key);
  run.undo?.steps.push({ kind: 'stored', key, seq });
  return { value: await run.finish(), events: run.events };
}

/** Applies a commit or a drop; anything else is a TypeError naming what came. */
export function applyChange(tx: StoreTx, change: StoreChange, now: number): Promise<Outcome<AppliedChange>> {
  if (change?.type === 'commit') return commit(tx, change, now);
  if (change?.type === 'drop') return drop(tx, change, now);
  throw new TypeError(
    `apply: change.type must be 'commit' or 'drop', got ${JSON.stringify((change as { type?: unknown })?.type)}`,
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
    if (live) await run.evict(live, change.reason, change.turnId);
  }
  return { value: await run.finish(), events: run.events };
}

export async function restoreTurn(tx: StoreTx, threadId: string, turnId: string, now: number): Promise<Outcome<void>> {
  const run = await ThreadChange.open(tx, threadId, undefined, now);
  const undo = await tx.undo(threadId, turnId);
  for (const step of [...(undo?.steps ?? [])].reverse()) {
    const live = await tx.entry(threadId, step.kind === 'stored' ? step.key : step.entry.key);
    if (step.kind === 'stored') {
      if (live?.seq === step.seq) await run.evict(live, 'blocked', turnId, true);
    } else if (live) {
      // A later turn stored the key again: the newer result wins; the undo copy goes.
      await tx.deleteText(step.entry.textId);
    } else {
      await run.add(step.entry, 'restored');
      await tx.deleteEviction(step.evictionId);
    }
  }
  if (undo) await tx.deleteUndo(threadId, turnId);
  await deleteStaged(tx, threadId, (stagedTurn) => stagedTurn === turnId);
  await run.finish();
  return { value: undefined, events: run.events };
}

export async function settle(tx: StoreTx, threadId: string, keepTurnId?: string): Promise<void> {
  for (const undo of await tx.undoOf(threadId)) {
    if (undo.turnId === keepTurnId) continue;
    for (const step of undo.steps) if (step.kind === 'evicted') await tx.deleteText(step.entry.textId);
    await tx.deleteUndo(threadId, undo.turnId);
  }
  await deleteStaged(tx, threadId, (stagedTurn) => stagedTurn === undefined || stagedTurn !== keepTurnId);
}

async function deleteStaged(tx: StoreTx, threadId: string, matches: (turnId: string | undefined) => boolean) {
  for (const staged of await tx.stagedOf(threadId)) {
    if (!matches(staged.turnId)) continue;
    await tx.deleteStaged(threadId, staged.key);
    await tx.deleteText(staged.textId);
  }
}

/** Deletes everything the thread has but its seq counter. Emits 'evicted' for each live entry so views refresh. */
export async function clearThread(tx: StoreTx, threadId: string): Promise<Outcome<void>> {
  const events: StoreEvent[] = [];
  for (const entry of await tx.entries(threadId)) {
    await tx.deleteEntry(threadId, entry.key);
    await tx.deleteText(entry.textId);
    events.push({ type: 'evicted', threadId, key: entry.key, totalBytes: 0 });
  }
  await settle(tx, threadId);
  for (const eviction of await tx.evictionsOf(threadId)) await tx.deleteEviction(eviction.id);
  // The thread's counter stays, so a seq is never reused even after a clear.
  const thread = await tx.thread(threadId);
  if (thread) await tx.putThread({ threadId, totalBytes: 0, nextSeq: thread.nextSeq, entries: 0 });
  return { value: undefined, events };
}
