// The run's events: what the runtime reports, what middleware and tools emit, and where it goes.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAgentLoop } from '../../lib/runtime/agent.js';
import type { LoopEvent as RunEvent } from '../../lib/runtime/events.js';
import { block, type Middleware } from '../../lib/runtime/middleware.js';
import { ToolOutcome } from '../../lib/runtime/outcome.js';
import { scriptedModel } from '../../lib/testing.js';
import { call, calls, deferred, echo, makeTool, RecordingCheckpointer, say } from './runtime-fixtures.js';

afterEach(() => vi.restoreAllMocks());

/** Asks for approval of every `delete` call unless it was approved. */
const approvals: Middleware = {
  name: 'approvals',
  async wrapToolCall(request, next, context) {
    if (request.call.name === 'delete' && !context.approved) return ToolOutcome.needsApproval('delete?');
    return next(request);
  },
};
const remove = makeTool('delete', () => 'deleted');

/** Counts successful tool calls in its own state key, from wrapToolCall. */
const counter: Middleware = {
  name: 'counter',
  writes: { count: { initial: 0, apply: (current, by) => (current as number) + (by as number) } },
  async wrapToolCall(request, next) {
    const outcome = await next(request);
    return outcome.type === 'success' ? { ...outcome, update: { count: 1 } } : outcome;
  },
};

const types = (events: readonly RunEvent[]) => events.map((e) => e.type);
type ToolCallEvent = Extract<RunEvent, { type: 'tool-call' }>;
const isToolCall = (e: RunEvent): e is ToolCallEvent => e.type === 'tool-call';

describe('run events', () => {
  it("reports a run's lifecycle in order, each event with the thread, the turn and a time", async () => {
    const heard: RunEvent[] = [];
    const model = scriptedModel([calls(call('echo', { text: 'hi' }, 'c1')), say('done')]);
    const agent = createAgentLoop({ model, tools: [echo], middleware: [counter], onEvent: (e) => heard.push(e) });
    const before = Date.now();
    const result = await agent.run('hello', { threadId: 't' });

    expect(types(result.events)).toEqual([
      'run-started',
      'model-call',
      'tool-call',
      'state-applied',
      'model-call',
      'run-ended',
    ]);
    const [started, firstCall, toolCall, applied, secondCall, ended] = result.events;
    expect(started).toMatchObject({ call: 'run' });
    expect(firstCall).toMatchObject({ step: 1, messages: 1, toolCalls: 1, ms: expect.any(Number) });
    expect(toolCall).toEqual({
      type: 'tool-call',
      threadId: 't',
      turnId: started!.turnId,
      at: expect.any(Number),
      toolName: 'echo',
      callId: 'c1',
      idempotencyKey: expect.stringMatching(/^[A-Za-z0-9_-]+$/),
      approved: false,
      outcome: 'success',
    });
    expect(applied).toMatchObject({ keys: ['count'] });
    expect(secondCall).toMatchObject({ step: 2, messages: 3, toolCalls: 0 });
    expect(ended).toEqual({ type: 'run-ended', threadId: 't', at: expect.any(Number), status: 'completed' });

    for (const event of result.events.slice(0, -1)) {
      expect(event).toMatchObject({ threadId: 't', turnId: expect.any(String) });
      expect(event.turnId).toBe(started!.turnId);
      expect(event.middleware).toBeUndefined();
    }
    const times = result.events.map((e) => e.at);
    expect(times[0]).toBeGreaterThanOrEqual(before);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    // The listener heard the same events, and they survive a structured clone (postMessage to a worker or panel).
    expect(heard).toEqual(result.events);
    expect(structuredClone(result.events)).toEqual(result.events);
  });

  it('attributes what middleware hooks, state keys and tools emit, and keeps a copy of each', async () => {
    const detail = { n: 1 };
    const reporter: Middleware = {
      name: 'reporter',
      writes: {
        seen: {
          initial: 0,
          apply: (_current, value, context) => {
            context.emit({ type: 'key-applied', value });
            return value;
          },
        },
      },
      beforeAgent: (_input, context) => {
        context.emit({ type: 'before', detail });
        detail.n = 2; // changing it after emitting does not change what was recorded
      },
      systemPrompt: (context) => {
        context.emit({ type: 'prompt' });
        return undefined;
      },
      async wrapModelCall(request, next, context) {
        context.emit({ type: 'wrap-model' });
        return { ...(await next(request)), update: { seen: 1 } };
      },
      async wrapToolCall(request, next, context) {
        context.emit({ type: 'wrap-tool', idempotencyKey: context.idempotencyKey });
        return next(request);
      },
      afterAgent: (_output, context) => context.emit({ type: 'after' }),
    };
    const probe = makeTool('probe', (_args, context) => {
      context.emit({ type: 'progress', percent: 50 });
      return 'ok';
    });
    const model = scriptedModel([calls(call('probe')), say('done')]);
    const agent = createAgentLoop({ model, tools: [probe], middleware: [reporter] });
    const result = await agent.run('go', { threadId: 't' });

    expect(result.status).toBe('completed');
    const own = result.events.filter((e) => e.middleware || e.tool);
    expect(own.map((e) => [e.type, e.middleware ?? `tool ${e.tool}`])).toEqual([
      ['before', 'reporter'],
      ['prompt', 'reporter'],
      ['wrap-model', 'reporter'],
      ['key-applied', 'reporter'],
      ['wrap-tool', 'reporter'],
      ['progress', 'tool probe'],
      ['prompt', 'reporter'],
      ['wrap-model', 'reporter'],
      ['key-applied', 'reporter'],
      ['after', 'reporter'],
    ]);
    expect(own[0]).toMatchObject({ detail: { n: 1 } });
    const toolCall = result.events.find(isToolCall)!;
    expect(own[4]).toMatchObject({ idempotencyKey: toolCall.idempotencyKey, turnId: toolCall.turnId });
    expect(own[5]).toMatchObject({ percent: 50, threadId: 't' });
  });

  it.each([
    [{ type: 'x', at: 1 }, /middleware "bad": "at" is set by the runtime/],
    [{ type: 'x', middleware: 'other' }, /"middleware" is set by the runtime/],
    [{ type: '' }, /middleware "bad": the event needs a non-empty string type/],
    [{ type: 'x', callback: () => 1 }, /middleware "bad": "x" is not structured-clone data/],
    [null, /middleware "bad": expected an event object, got null/],
    [12n, /middleware "bad": expected an event object, got 12n$/],
  ])('fails the run naming the emitter when it emits %o', async (event, reason) => {
    const bad: Middleware = { name: 'bad', beforeAgent: (_input, context) => context.emit(event as never) };
    const agent = createAgentLoop({ model: scriptedModel([say('never')]), middleware: [bad] });
    const result = await agent.run('go', { threadId: 't' });
    expect(result.status).toBe('failed');
    expect(result.reason).toMatch(reason);
    expect(result.events.at(-1)).toMatchObject({ type: 'run-ended', status: 'failed' });
  });

  it('ignores a listener that throws, with a warning, and still records every event', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const agent = createAgentLoop({
      model: scriptedModel([say('done')]),
      onEvent: () => {
        throw new Error('listener bug');
      },
    });
    const result = await agent.run('hello', { threadId: 't' });
    expect(result.status).toBe('completed');
    expect(types(result.events)).toEqual(['run-started', 'model-call', 'run-ended']);
    expect(warn).toHaveBeenCalledTimes(3);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('"run-started"'), expect.any(Error));
  });

  it('rejects an onEvent that is not a function', () => {
    expect(() => createAgentLoop({ model: scriptedModel([]), onEvent: 'log' as never })).toThrow(
      new TypeError('createAgent: options.onEvent must be a function'),
    );
  });

  it('gives each run, resume and recover call its own events, and checkpoints none of them', async () => {
    const checkpointer = new RecordingCheckpointer();
    const model = scriptedModel([calls(call('delete')), say('done'), say('again')]);
    const agent = createAgentLoop({ model, tools: [remove], middleware: [approvals], checkpointer });

    const paused = await agent.run('delete it', { threadId: 't' });
    expect(types(paused.events)).toEqual(['run-started', 'model-call', 'tool-call', 'run-ended']);
    expect(paused.events[2]).toMatchObject({ toolName: 'delete', outcome: 'needs-approval', approved: false });
    expect(paused.events[3]).toMatchObject({ status: 'awaiting-approval', reason: 'delete?' });

    const resumed = await agent.resume('t', { approved: true });
    expect(types(resumed.events)).toEqual(['run-started', 'tool-call', 'model-call', 'run-ended']);
    expect(resumed.events[0]).toMatchObject({ call: 'resume', approved: true, turnId: paused.events[0]!.turnId });
    expect(resumed.events[1]).toMatchObject({
      outcome: 'success',
      approved: true,
      idempotencyKey: (paused.events[2] as ToolCallEvent).idempotencyKey,
    });

    const recovered = await agent.recover('t');
    expect(types(recovered.events)).toEqual(['run-started', 'run-ended']);
    expect(recovered.events[0]).toEqual({
      type: 'run-started',
      threadId: 't',
      at: expect.any(Number),
      call: 'recover',
    });

    // A resume with nothing to resume rejects: no run, no events.
    const heard: RunEvent[] = [];
    const listening = createAgentLoop({ model, checkpointer, onEvent: (e) => heard.push(e) });
    await expect(listening.resume('t', { approved: true })).rejects.toThrow(/no tool call awaiting approval/);
    expect(heard).toEqual([]);

    const saved = JSON.stringify(checkpointer.saves);
    expect(saved).not.toContain('run-started');
    expect(saved).not.toContain('"events"');
  });

  it('never carries tool output, error text, arguments or the input', async () => {
    const leaky = makeTool('leaky', () => `OUTPUT-SECRET ${'x'.repeat(10_000)}`);
    const failing = makeTool('failing', () => {
      throw new Error('ERROR-SECRET');
    });
    const model = scriptedModel([
      calls(call('leaky', { q: 'ARGS-SECRET' }), call('failing'), call('echo', { text: 'ECHO-SECRET' })),
      say('ANSWER-SECRET'),
    ]);
    const agent = createAgentLoop({ model, tools: [leaky, failing, echo] });
    const result = await agent.run('INPUT-SECRET', { threadId: 't' });
    expect(result.status).toBe('completed');
    expect(result.events.filter(isToolCall).map((e) => [e.toolName, e.outcome])).toEqual([
      ['leaky', 'success'],
      ['failing', 'error'],
      ['echo', 'success'],
    ]);
    const all = JSON.stringify(result.events);
    expect(all).not.toMatch(/SECRET/);
    expect(all.length).toBeLessThan(2000);
  });

  it('ends with run-ended for a blocked, a failed and an aborted run', async () => {
    const guard: Middleware = { name: 'guard', afterAgent: () => block('no') };
    const blocked = await createAgentLoop({ model: scriptedModel([say('x')]), middleware: [guard] }).run('a', {
      threadId: 't',
    });
    expect(blocked.events.at(-1)).toMatchObject({ type: 'run-ended', status: 'blocked', reason: 'no' });

    const broken = createAgentLoop({
      model: async () => {
        throw new Error('rate limited');
      },
    });
    const failed = await broken.run('a', { threadId: 't' });
    expect(types(failed.events)).toEqual(['run-started', 'run-ended']);
    expect(failed.events[1]).toMatchObject({ status: 'failed', reason: 'the model call failed: rate limited' });

    // A tool still running after the abort emits into an ended call: neither the result nor the listener gets it.
    const heard: RunEvent[] = [];
    const release = deferred();
    const controller = new AbortController();
    const slow = makeTool('slow', async (_args, context) => {
      controller.abort();
      await release.promise;
      context.emit({ type: 'late' });
      return 'finally';
    });
    const agent = createAgentLoop({
      model: scriptedModel([calls(call('slow')), say('done')]),
      tools: [slow],
      onEvent: (e) => heard.push(e),
    });
    const aborted = await agent.run('a', { threadId: 't', signal: controller.signal });
    release.resolve();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(aborted.events.at(-1)).toMatchObject({ type: 'run-ended', status: 'failed', reason: 'aborted' });
    expect(types(heard)).toEqual(types(aborted.events));
    expect(types(heard)).not.toContain('late');
  });
});
