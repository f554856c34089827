import { type ContentPart, textContent, toContent } from '../shared/content.js';
import { idempotencyKey, randomId } from '../shared/ids.js';
import { callHook, RunFailure, UsageError, untilAborted } from './failure.js';
import type { AssistantMessage } from './messages.js';
import { type Block, isBlock, type Middleware, type TurnEnd } from './middleware.js';
import { modelStep } from './model-step.js';
import type { ToolOutcome } from './outcome.js';
import type { LoopResult } from './run-result.js';
import { type Session, toolMessage } from './session.js';
import { checkWrites } from './state.js';
import { awaitingCalls, type CallRecord, type TurnRecord } from './thread-checkpoint.js';
import { runToolCall } from './tool-call.js';

/**
 * Starts a turn: closes an unfinished one, runs beforeAgent in stack order (R2), appends the user
 * message, then continues the turn. A Block ends it with nothing of the turn kept.
 */
export async function startTurn(session: Session, input: ContentPart[]): Promise<LoopResult> {
  await abandonTurn(session);
  session.turn = {
    turnId: randomId(),
    step: 0,
    start: session.messages.length,
    stateBefore: { ...session.state.values },
    phase: 'model',
    calls: [],
  };
  session.events.runtime({ type: 'run-started', call: 'run' });
  try {
    for (const m of session.setup.middleware) {
      if (!m.beforeAgent) continue;
      const where = `beforeAgent of middleware "${m.name}"`;
      const context = session.hookContext(m.name);
      const result = await callHook(where, () => m.beforeAgent!([...input], context), session.signal);
      if (isBlock(result)) return await blockTurn(session, result);
      const changes = hookObject(where, result);
      if (changes?.input !== undefined) input = checkedInput(changes.input, where);
      await applyUpdate(session, m, changes?.update, 'beforeAgent');
    }
  } catch (e) {
    // The turn never began, so there is nothing for recover to continue.
    if (session.turn) await session.endTurn(session.turn, { status: 'failed' });
    session.turn = null;
    throw e;
  }
  session.messages.push({ role: 'user', id: randomId(), content: input });
  await session.save();
  return continueTurn(session);
}

/** Runs the turn from where its record says it is until it completes, pauses, blocks or runs out of steps. */
export async function continueTurn(session: Session): Promise<LoopResult> {
  for (;;) {
    const turn = session.turn!;
    if (turn.phase === 'after') return afterAgent(session);
    if (turn.phase === 'tools') {
      const waiting = await runCalls(session, turn.calls);
      if (waiting.length > 0) return result(session, 'awaiting-approval', { reason: approvalReason(waiting) });
      session.messages.push(...turn.calls.map((c) => c.result!));
      turn.phase = 'model';
      turn.calls = [];
      await session.save();
      continue;
    }
    if (session.modelSteps >= session.setup.maxSteps) {
      await finishTurn(session, 'max-steps');
      const reason = `stopped after ${session.setup.maxSteps} model steps (maxSteps)`;
      return result(session, 'max-steps', { reason });
    }
    const reply = await modelStep(session);
    session.messages.push(reply);
    turn.phase = reply.toolCalls.length > 0 ? 'tools' : 'after';
    // Each call's idempotency key is saved here, before any tool runs (R9).
    turn.calls = reply.toolCalls.map((call) => ({
      call,
      idempotencyKey: idempotencyKey(),
      status: 'pending',
      approved: false,
    }));
    await session.save();
  }
}

/**
 * Runs the calls still pending, concurrently; each one's update is applied through the state's
 * queue and the checkpoint saved as it completes. Returns the calls now waiting for approval.
 */
async function runCalls(session: Session, calls: CallRecord[]): Promise<CallRecord[]> {
  const failures: Array<unknown> = [];
  const runs = calls.map(async (record, i) => {
    if (record.status !== 'pending') return;
    try {
      const outcome = await runToolCall(session, record);
      const { call, idempotencyKey, approved } = record;
      const details = { toolName: call.name, callId: call.id, idempotencyKey, approved, outcome: outcome.type };
      session.events.runtime({ type: 'tool-call', ...details });
      await settle(session, record, outcome);
      await session.save();
    } catch (e) {
      failures[i] = e;
    }
  });
  await untilAborted(Promise.all(runs), session.signal);
  const failure = failures.find((f) => f !== undefined);
  if (failure !== undefined) throw failure;
  return calls.filter((c) => c.status === 'awaiting-approval');
}

async function settle(session: Session, record: CallRecord, outcome: ToolOutcome): Promise<void> {
  switch (outcome.type) {
    case 'success': {
      const done = () => {
        record.result = toolMessage(record.call, outcome.content, false);
        record.status = 'done';
      };
      if (outcome.update) await session.commitCall(outcome.update, done);
      else done();
      return;
    }
    case 'error': {
      const done = () => {
        record.result = toolMessage(record.call, textContent(outcome.message), true);
        record.status = 'done';
      };
      if (outcome.update) await session.commitCall(outcome.update, done);
      else done();
      return;
    }
    case 'needs-approval':
      record.status = 'awaiting-approval';
      record.reason = outcome.reason;
      return;
    case 'fatal':
      throw new RunFailure(outcome.reason);
  }
}

/** afterAgent in stack order on the final reply (R10): a Block undoes the turn, updates are applied. */
async function afterAgent(session: Session): Promise<LoopResult> {
  const output = session.messages.at(-1) as AssistantMessage;
  for (const m of session.setup.middleware) {
    if (!m.afterAgent) continue;
    const where = `afterAgent of middleware "${m.name}"`;
    const context = session.hookContext(m.name);
    const returned = await callHook(where, () => m.afterAgent!(output, context), session.signal);
    if (isBlock(returned)) return blockTurn(session, returned);
    await applyUpdate(session, m, hookObject(where, returned)?.update, 'afterAgent');
  }
  await finishTurn(session, 'completed');
  return result(session, 'completed', { output });
}

/** Ends the turn blocked: its messages go, and every 'restore' key returns to its value before the turn. */
async function blockTurn(session: Session, blocked: Block): Promise<LoopResult> {
  const turn = session.turn!;
  session.messages.length = turn.start;
  await untilAborted(
    session.state.restore(turn.stateBefore, (owner) => session.hookContext(owner)),
    session.signal,
  );
  await finishTurn(session, 'blocked');
  return result(session, 'blocked', { reason: blocked.reason });
}

/**
 * Ends the turn for good: saved without it first, so a crash from here on leaves a finished turn,
 * then the state keys are told (StateKey.endTurn), and what they changed saved.
 */
async function finishTurn(session: Session, status: TurnEnd['status']): Promise<void> {
  const turn = session.turn!;
  session.turn = null;
  await session.save();
  if (await session.endTurn(turn, { status })) await session.save();
}

/**
 * Ends a run that failed or was aborted, before its checkpoint is saved: waits for the tool calls'
 * updates being applied (each then records its call as done), then tells the state keys the turn's
 * run failed. The turn stays, so recover can continue it. Never throws.
 */
export async function endFailedRun(session: Session): Promise<void> {
  await session.commitsSettled();
  if (session.turn) await session.endTurn(session.turn, { status: 'failed' });
}

/**
 * Closes an unfinished turn so the history stays valid: every call gets a tool message. The state
 * keys are told it was abandoned.
 */
async function abandonTurn(session: Session): Promise<void> {
  const turn: TurnRecord | null = session.turn;
  if (!turn) return;
  // A final reply whose afterAgent never ran was never checked (R10): it is not kept.
  if (turn.phase === 'after') session.messages.pop();
  if (turn.phase === 'tools') {
    for (const c of turn.calls) {
      if (c.status === 'done') session.messages.push(c.result!);
      else {
        const message =
          c.status === 'awaiting-approval'
            ? 'Denied: not approved before the next message'
            : 'Interrupted: the turn stopped before this call finished';
        session.messages.push(toolMessage(c.call, textContent(message), true));
      }
    }
  }
  session.turn = null;
  await session.endTurn(turn, { status: 'abandoned' });
}

/** resume: approved calls run again with context.approved; refused ones become "Denied" without reaching wrapToolCall (R5, R6). */
export function decideApproval(session: Session, approved: boolean): void {
  const waiting = awaitingCalls(session.turn);
  if (waiting.length === 0) throw new UsageError(`thread "${session.threadId}" has no tool call awaiting approval`);
  for (const record of waiting) {
    record.reason = undefined;
    if (approved) {
      record.status = 'pending';
      record.approved = true;
    } else {
      record.status = 'done';
      record.result = toolMessage(record.call, textContent('Denied: approval was refused'), true);
    }
  }
}

export function approvalReason(waiting: readonly CallRecord[]): string {
  return waiting.map((c) => c.reason ?? `tool "${c.call.name}" needs approval`).join('; ');
}

/** The call's result; its last event is 'run-ended', after which the call records no more. */
export function result(session: Session, status: LoopResult['status'], extra: Partial<LoopResult> = {}): LoopResult {
  session.events.runtime({
    type: 'run-ended',
    status,
    ...(extra.reason === undefined ? {} : { reason: extra.reason }),
  });
  session.events.close();
  return { status, ...extra, messages: [...session.messages], events: session.events.list() };
}

async function applyUpdate(session: Session, m: Middleware, update: unknown, hook: string): Promise<void> {
  checkWrites(m, update, hook);
  if (update !== undefined) await session.applyState(update as Record<string, unknown>);
}

function hookObject(where: string, value: unknown): { input?: ContentPart[]; update?: unknown } | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object')
    throw new RunFailure(`${where} returned ${typeof value}; expected an object, a Block or nothing`);
  return value as { input?: ContentPart[]; update?: unknown };
}

function checkedInput(input: unknown, where: string): ContentPart[] {
  try {
    return toContent(input as ContentPart[], `input returned by ${where}`);
  } catch (e) {
    throw new RunFailure((e as Error).message);
  }
}
