import { isRecord, quoteForMessage } from '../shared/checks.js';
import type { Message, ToolCall, ToolMessage } from './messages.js';

/** The version of the checkpoint shape below; a checkpoint of another version is refused, never guessed at. */
export const checkpointVersion = 1;

/** One tool call of the pending assistant message. Its idempotency key is saved before it runs (R9). */
export interface CallRecord {
  call: ToolCall;
  idempotencyKey: string;
  status: 'pending' | 'done' | 'awaiting-approval';
  /** The user approved it through resume; a rerun (recover) keeps that. */
  approved: boolean;
  /** The tool message, once done; appended to the thread when the whole step is done. */
  result?: ToolMessage;
  /** Why it waits for approval. */
  reason?: string;
}

/** The turn in progress: enough to continue it (recover, resume) or to undo it (an output Block). */
export interface TurnRecord {
  turnId: string;
  /** Model steps made in this turn. */
  step: number;
  /** Index in `messages` where this turn's messages start. */
  start: number;
  /** The state before the turn, for keys restored on a Block (R10). */
  stateBefore: Record<string, unknown>;
  /** What comes next: a model step, the calls of the last assistant message, or afterAgent. */
  phase: 'model' | 'tools' | 'after';
  calls: CallRecord[];
}

/** A thread as the checkpointer holds it: plain structured-clone data. */
export interface ThreadCheckpoint {
  version: typeof checkpointVersion;
  messages: Message[];
  state: Record<string, unknown>;
  turn: TurnRecord | null;
}

export function emptyCheckpoint(state: Record<string, unknown>): ThreadCheckpoint {
  return { version: checkpointVersion, messages: [], state, turn: null };
}

/** The calls waiting for approval, when the turn is paused for it (no call still to run). */
export function awaitingCalls(turn: TurnRecord | null): CallRecord[] {
  if (turn?.phase !== 'tools' || turn.calls.some((c) => c.status === 'pending')) return [];
  return turn.calls.filter((c) => c.status === 'awaiting-approval');
}

/** Checks a loaded checkpoint's shape; anything else than a checkpoint of this version throws a clear Error. */
export function parseCheckpoint(threadId: string, raw: unknown): ThreadCheckpoint | undefined {
  if (raw === undefined || raw === null) return undefined;
  const corrupt = (what: string) => new Error(`checkpoint of thread "${threadId}" is corrupt: ${what}`);
  if (!isRecord(raw)) throw corrupt(`expected an object, got ${typeof raw}`);
  if (raw.version !== checkpointVersion) {
    throw new Error(
      `checkpoint of thread "${threadId}" has version ${quoteForMessage(raw.version)}; this runtime reads version ${checkpointVersion}`,
    );
  }
  if (!Array.isArray(raw.messages)) throw corrupt('messages is not an array');
  raw.messages.forEach((m, i) => {
    if (!isRecord(m) || !['user', 'assistant', 'tool'].includes(m.role as string) || !Array.isArray(m.content)) {
      throw corrupt(`messages[${i}] is not a message`);
    }
  });
  if (!isRecord(raw.state)) throw corrupt('state is not an object');
  if (raw.turn !== null) checkTurn(raw.turn, raw.messages.length, corrupt);
  return raw as unknown as ThreadCheckpoint;
}

function checkTurn(turn: unknown, messageCount: number, corrupt: (what: string) => Error): void {
  if (!isRecord(turn)) throw corrupt('turn is not an object');
  if (typeof turn.turnId !== 'string') throw corrupt('turn.turnId is not a string');
  if (!Number.isInteger(turn.step) || (turn.step as number) < 0) throw corrupt('turn.step is not a count');
  const start = turn.start as number;
  if (!Number.isInteger(start) || start < 0 || start > messageCount) throw corrupt('turn.start is out of range');
  if (!isRecord(turn.stateBefore)) throw corrupt('turn.stateBefore is not an object');
  if (!['model', 'tools', 'after'].includes(turn.phase as string)) throw corrupt('turn.phase is unknown');
  if (!Array.isArray(turn.calls)) throw corrupt('turn.calls is not an array');
  turn.calls.forEach((c, i) => {
    const ok =
      isRecord(c) &&
      isRecord(c.call) &&
      typeof c.idempotencyKey === 'string' &&
      ['pending', 'done', 'awaiting-approval'].includes(c.status as string) &&
      (c.status !== 'done' || isRecord(c.result));
    if (!ok) throw corrupt(`turn.calls[${i}] is not a tool call record`);
  });
}
