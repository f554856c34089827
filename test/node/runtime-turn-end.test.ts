// StateKey.endTurn: every way a turn's run ends is told to the keys once, after the run's updates,
// with what the key returns saved; an abort waits for a tool call's update being applied (never
// for a tool) and records that call as done.
import { describe, expect, it } from 'vitest';
import { createAgentLoop } from '../../lib/runtime/agent.js';
import { block, type Middleware, type StateKey, type TurnEnd } from '../../lib/runtime/middleware.js';
import { ToolOutcome } from '../../lib/runtime/outcome.js';
import { scriptedModel } from '../../lib/testing.js';
import { call, calls, deferred, echo, makeTool, RecordingCheckpointer, say, transcript } from './runtime-fixtures.js';

interface Told {
  status: TurnEnd['status'];
  turnId: string;
  value: unknown;
}

/** A middleware whose key counts updates and records every endTurn; `afterAgent` may block. */
function recorder(
  options: { blockOutput?: boolean; failEnd?: boolean; holdApply?: { entered: () => void; until: Promise<void> } } = {},
) {
  const told: Told[] = [];
  const key: StateKey<number> = {
    initial: 0,
    onBlock: 'restore',
    async apply(current, update) {
      if (options.holdApply) {
        options.holdApply.entered();
        await options.holdApply.until;
      }
      return current + (update as number);
    },
    endTurn(current, ending, context) {
      told.push({ status: ending.status, turnId: context.turnId, value: current });
      if (options.failEnd) throw new Error('store closed');
      return current + 1000;
    },
  };
  const middleware: Middleware = {
    name: 'recorder',
    writes: { n: key as StateKey },
    async wrapToolCall(request, next) {
      const outcome = await next(request);
      return outcome.type === 'success' ? { ...outcome, update: { n: 1 } } : outcome;
    },
    afterAgent: () => (options.blockOutput ? block('no') : undefined),
  };
  return { middleware, told };
}

describe('StateKey.endTurn', () => {
  it('a completed turn is told after its updates; the value returned is saved', async () => {
    const { middleware, told } = recorder();
    const checkpointer = new RecordingCheckpointer();
    const agent = createAgentLoop({
      model: scriptedModel([calls(call('echo', { text: 'a' })), say('done')]),
      tools: [echo],
      middleware: [middleware],
      checkpointer,
    });
    const result = await agent.run('go', { threadId: 't' });
    expect(result.status).toBe('completed');
    expect(told).toEqual([{ status: 'completed', turnId: expect.any(String), value: 1 }]);
    expect(await agent.state('t')).toEqual({ n: 1001 });
    // Saved without the turn first, so a crash during endTurn leaves a finished turn.
    const last = checkpointer.saves.slice(-2).map((s) => s.checkpoint as { turn: unknown; state: { n: number } });
    expect(last.map((c) => [c.turn, c.state.n])).toEqual([
      [null, 1],
      [null, 1001],
    ]);
  });

  it('tells a blocked turn after the restore, and a max-steps one', async () => {
    const blocked = recorder({ blockOutput: true });
    const first = createAgentLoop({ model: scriptedModel([say('x')]), middleware: [blocked.middleware] });
    expect((await first.run('go', { threadId: 't' })).status).toBe('blocked');
    expect(blocked.told).toEqual([{ status: 'blocked', turnId: expect.any(String), value: 0 }]);

    const limited = recorder();
    const second = createAgentLoop({
      model: scriptedModel([calls(call('echo', { text: 'a' }))]),
      tools: [echo],
      middleware: [limited.middleware],
      maxSteps: 1,
    });
    expect((await second.run('go', { threadId: 't' })).status).toBe('max-steps');
    expect(limited.told.map((t) => t.status)).toEqual(['max-steps']);
  });

  it('a failed run is told "failed" and keeps its turn; the next run tells it "abandoned"', async () => {
    const { middleware, told } = recorder();
    const fatal = makeTool('fatal', () => ToolOutcome.fatal('broken'));
    const agent = createAgentLoop({
      model: scriptedModel([calls(call('fatal')), say('again')]),
      tools: [fatal],
      middleware: [middleware],
    });
    expect(await agent.run('go', { threadId: 't' })).toMatchObject({ status: 'failed', reason: 'broken' });
    expect(told.map((t) => t.status)).toEqual(['failed']);
    await agent.run('again', { threadId: 't' });
    expect(told.map((t) => t.status)).toEqual(['failed', 'abandoned', 'completed']);
    expect(told[1]!.turnId).toBe(told[0]!.turnId);
    expect(told[2]!.turnId).not.toBe(told[0]!.turnId);
  });

  it('an endTurn that throws never changes the result: it is reported as an event', async () => {
    const { middleware } = recorder({ failEnd: true });
    const agent = createAgentLoop({ model: scriptedModel([say('hi')]), middleware: [middleware] });
    const result = await agent.run('go', { threadId: 't' });
    expect(result.status).toBe('completed');
    expect(result.events.find((e) => e.type === 'end-turn-failed')).toMatchObject({
      key: 'n',
      status: 'completed',
      reason: 'endTurn of state key "n" threw: store closed',
    });
    expect(await agent.state('t')).toEqual({ n: 0 });
  });

  it('an abort while a tool call update is applied waits for it: the call is done, then the turn is told', async () => {
    const entered = deferred();
    const applying = deferred();
    const { middleware, told } = recorder({ holdApply: { entered: entered.resolve, until: applying.promise } });
    const slow = deferred<string>();
    const agent = createAgentLoop({
      model: scriptedModel([calls(call('echo', { text: 'a' }), call('slow')), say('next')]),
      tools: [echo, makeTool('slow', () => slow.promise)],
      middleware: [middleware],
    });
    const controller = new AbortController();
    const run = agent.run('go', { threadId: 't', signal: controller.signal });
    // The echo call's update is being applied (held); slow never returns.
    await entered.promise;
    controller.abort();
    applying.resolve();
    expect(await run).toMatchObject({ status: 'failed', reason: 'aborted' });
    expect(told).toEqual([{ status: 'failed', turnId: expect.any(String), value: 1 }]);
    const next = await agent.run('next', { threadId: 't' });
    expect(transcript(next.messages).slice(0, 4)).toEqual([
      'user: go',
      'assistant calls echo, slow',
      'tool echo: echo: a',
      'tool slow (error): Interrupted: the turn stopped before this call finished',
    ]);
  });
});
