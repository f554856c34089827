import { describe, expect, it } from 'vitest';
import { createAgentLoop } from '../../lib/runtime/agent.js';
import type { Middleware } from '../../lib/runtime/middleware.js';
import { ToolOutcome } from '../../lib/runtime/outcome.js';
import type { ToolContext } from '../../lib/runtime/tool.js';
import { scriptedModel } from '../../lib/testing.js';
import { call, calls, deferred, echo, makeTool, say, tick, transcript } from './runtime-fixtures.js';

/** Counts wrapToolCall invocations, to prove an outcome never reached the chain (R5). */
function counter(): Middleware & { seen: string[] } {
  const seen: string[] = [];
  return {
    name: 'counter',
    seen,
    async wrapToolCall(request, next) {
      seen.push(request.call.name);
      return next(request);
    },
  };
}

async function runOneCall(options: Parameters<typeof createAgentLoop>[0], toolCall = call('echo', { text: 'x' })) {
  const agent = createAgentLoop({ ...options, model: scriptedModel([calls(toolCall), say('done')]) });
  return agent.run('go', { threadId: 't' });
}

describe('R5 outcomes given instead of running the tool', () => {
  it('an unknown tool becomes an error naming it and the available tools, without reaching wrapToolCall', async () => {
    const spy = counter();
    const result = await runOneCall({ model: scriptedModel([]), tools: [echo], middleware: [spy] }, call('ehco', {}));
    expect(result.status).toBe('completed');
    expect(transcript(result.messages)[2]).toBe('tool ehco (error): Unknown tool "ehco". Available tools: "echo".');
    expect(spy.seen).toEqual([]);
  });

  it('arguments failing the schema become an error naming each failing location and keyword', async () => {
    const spy = counter();
    let ran = false;
    const strict = {
      ...echo,
      execute: () => {
        ran = true;
        return 'ran';
      },
    };
    const result = await runOneCall(
      { model: scriptedModel([]), tools: [strict], middleware: [spy] },
      call('echo', { text: 3, extra: true }),
    );
    const message = transcript(result.messages)[2]!;
    expect(message).toMatch(/^tool echo \(error\): Invalid arguments for tool "echo": /);
    expect(message).toContain('args/text (type)');
    expect(message).toContain('additionalProperties');
    expect(spy.seen).toEqual([]);
    expect(ran).toBe(false);
  });

  it('an argument error reads as one sentence, ending in a single full stop', async () => {
    const result = await runOneCall({ model: scriptedModel([]), tools: [echo] }, call('echo', { text: 3 }));
    expect(transcript(result.messages)[2]).toBe(
      'tool echo (error): Invalid arguments for tool "echo": args/text (type): Instance type "number" is invalid. Expected "string".',
    );
  });

  it('a tool result with a part of unknown type becomes an error naming the type, whatever it is', async () => {
    const odd = makeTool('odd', () => [{ type: 7n }] as never);
    const result = await runOneCall({ model: scriptedModel([]), tools: [odd] }, call('odd'));
    expect(transcript(result.messages)[2]).toBe('tool odd (error): result of tool "odd"[0] has unknown type 7n');
  });

  it('a call past toolTimeoutMs becomes an error, aborts the tool signal, and ignores the late result', async () => {
    let toolSignal: AbortSignal | undefined;
    const late = deferred<string>();
    const slow = makeTool('slow', (_args, context) => {
      toolSignal = context.signal;
      return late.promise;
    });
    const result = await runOneCall({ model: scriptedModel([]), tools: [slow], toolTimeoutMs: 30 }, call('slow'));
    expect(transcript(result.messages)[2]).toBe('tool slow (error): Tool "slow" timed out after 30 ms');
    expect(toolSignal!.aborted).toBe(true);
    late.resolve('too late');
    await tick();
    expect(transcript(result.messages)).not.toContain('tool slow: too late');
  });

  it('the timeout races the whole wrapToolCall chain, not only execute', async () => {
    const stuck: Middleware = { name: 'stuck', wrapToolCall: () => new Promise(() => {}) };
    const result = await runOneCall({
      model: scriptedModel([]),
      tools: [echo],
      middleware: [stuck],
      toolTimeoutMs: 20,
    });
    expect(transcript(result.messages)[2]).toBe('tool echo (error): Tool "echo" timed out after 20 ms');
  });
});

describe('R4 wrapToolCall', () => {
  it('denies with an error outcome and short-circuits: the tool never runs', async () => {
    let ran = false;
    const guarded = {
      ...echo,
      execute: () => {
        ran = true;
        return 'ran';
      },
    };
    const deny: Middleware = { name: 'deny', wrapToolCall: async () => ToolOutcome.error('Denied: not today') };
    const result = await runOneCall({ model: scriptedModel([]), tools: [guarded], middleware: [deny] });
    expect(transcript(result.messages)[2]).toBe('tool echo (error): Denied: not today');
    expect(ran).toBe(false);
  });

  it('may call next twice (retry) and transform the outcome next returns', async () => {
    let attempts = 0;
    const flaky = makeTool('flaky', () => {
      attempts += 1;
      if (attempts === 1) throw new Error('transient');
      return `worked on attempt ${attempts}`;
    });
    const retry: Middleware = {
      name: 'retry',
      async wrapToolCall(request, next) {
        const first = await next(request);
        const outcome = first.type === 'error' ? await next(request) : first;
        return outcome.type === 'success'
          ? ToolOutcome.success([...outcome.content, { type: 'text', text: '(retried)' }])
          : outcome;
      },
    };
    const result = await runOneCall({ model: scriptedModel([]), tools: [flaky], middleware: [retry] }, call('flaky'));
    expect(attempts).toBe(2);
    expect(transcript(result.messages)[2]).toBe('tool flaky: worked on attempt 2\n(retried)');
  });

  it('a fatal outcome fails the run with its reason', async () => {
    const stop: Middleware = { name: 'stop', wrapToolCall: async () => ToolOutcome.fatal('budget exhausted') };
    const result = await runOneCall({ model: scriptedModel([]), tools: [echo], middleware: [stop] });
    expect(result).toMatchObject({ status: 'failed', reason: 'budget exhausted' });
  });

  it('an exception in execute is an error tool message; one in a wrapToolCall hook fails the run', async () => {
    const thrower = makeTool('thrower', () => {
      throw new Error('disk on fire');
    });
    const viaTool = await runOneCall({ model: scriptedModel([]), tools: [thrower] }, call('thrower'));
    expect(viaTool.status).toBe('completed');
    expect(transcript(viaTool.messages)[2]).toBe('tool thrower (error): disk on fire');

    const broken: Middleware = {
      name: 'broken',
      wrapToolCall: async () => {
        throw new Error('bug');
      },
    };
    const viaHook = await runOneCall({ model: scriptedModel([]), tools: [echo], middleware: [broken] });
    expect(viaHook).toMatchObject({ status: 'failed', reason: 'wrapToolCall of middleware "broken" threw: bug' });
  });

  it.each([
    [
      'a cyclic object',
      () => {
        const odd: Record<string, unknown> = { type: 'weird' };
        odd.self = odd;
        return odd;
      },
      '[object Object]',
    ],
    ['a bigint', () => 10n, '10n'],
    ['undefined', () => undefined, 'undefined'],
  ])('a wrapToolCall returning %s fails the run saying what it returned', async (_what, make, shown) => {
    const odd: Middleware = { name: 'odd', wrapToolCall: async () => make() as never };
    const result = await runOneCall({ model: scriptedModel([]), tools: [echo], middleware: [odd] });
    expect(result).toMatchObject({
      status: 'failed',
      reason: `wrapToolCall of middleware "odd" returned ${shown}; expected a ToolOutcome`,
    });
  });

  it('gives the tool its context: thread, turn, a path-safe idempotency key, signal and committed state', async () => {
    let seen: ToolContext | undefined;
    const probe = makeTool('probe', (_args, context) => {
      seen = context;
      return 'ok';
    });
    const keyed: Middleware = { name: 'keyed', writes: { mode: { initial: 'quiet' } } };
    await runOneCall({ model: scriptedModel([]), tools: [probe], middleware: [keyed] }, call('probe'));
    expect(seen).toMatchObject({ threadId: 't', approved: false, state: { mode: 'quiet' } });
    expect(seen!.turnId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(seen!.idempotencyKey).toMatch(/^[A-Za-z0-9_-]{12}$/);
    expect(seen!.signal.aborted).toBe(false);
  });
});

describe('parallel tool calls', () => {
  it('run concurrently and append their messages in the order of the calls', async () => {
    const started: string[] = [];
    const release = deferred();
    const waiter = (name: string) =>
      makeTool(name, async () => {
        started.push(name);
        await release.promise;
        return `${name} done`;
      });
    const model = scriptedModel([calls(call('a'), call('b')), say('done')]);
    const agent = createAgentLoop({ model, tools: [waiter('a'), waiter('b')] });
    const run = agent.run('go', { threadId: 't' });
    await tick(5);
    // Both started before either finished: they run at the same time.
    expect(started.sort()).toEqual(['a', 'b']);
    release.resolve();
    const result = await run;
    expect(transcript(result.messages).slice(2, 4)).toEqual(['tool a: a done', 'tool b: b done']);
  });

  it('keeps the call order even when the later call finishes first', async () => {
    const first = deferred<string>();
    const a = makeTool('a', () => first.promise);
    const b = makeTool('b', async () => {
      setTimeout(() => first.resolve('a late'), 10);
      return 'b early';
    });
    const agent = createAgentLoop({ model: scriptedModel([calls(call('a'), call('b')), say('ok')]), tools: [a, b] });
    const result = await agent.run('go', { threadId: 't' });
    expect(transcript(result.messages).slice(2, 4)).toEqual(['tool a: a late', 'tool b: b early']);
  });
});
