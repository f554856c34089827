import { describe, expect, it } from 'vitest';
import { createAgentLoop } from '../../lib/runtime/agent.js';
import type { Middleware } from '../../lib/runtime/middleware.js';
import { block } from '../../lib/runtime/middleware.js';
import { scriptedModel } from '../../lib/testing.js';
import { call, calls, deferred, echo, say, text, transcript } from './runtime-fixtures.js';

describe('the agent loop', () => {
  it('runs model steps and tool calls until the model answers without calls', async () => {
    const model = scriptedModel([calls(call('echo', { text: 'hi' })), say('done')]);
    const agent = createAgentLoop({ model, tools: [echo], systemPrompt: 'Be brief.' });
    const result = await agent.run('hello', { threadId: 't' });

    expect(result.status).toBe('completed');
    expect(text(result.output!.content)).toBe('done');
    expect(transcript(result.messages)).toEqual([
      'user: hello',
      'assistant calls echo',
      'tool echo: echo: hi',
      'assistant: done',
    ]);
    expect(model.requests[0]!.systemPrompt).toBe('Be brief.');
    expect(model.requests[0]!.tools).toEqual([
      { name: 'echo', description: echo.description, parameters: echo.parameters },
    ]);
    expect(transcript(model.requests[1]!.messages)).toEqual(transcript(result.messages.slice(0, 3)));
    const [, asked, answered] = result.messages;
    expect(asked!.role === 'assistant' && asked!.toolCalls[0]!.id).toBe(
      answered!.role === 'tool' && answered!.toolCallId,
    );
    expect(await agent.messages('t')).toEqual(result.messages);
  });

  it('keeps the whole thread across runs and sends it to the model', async () => {
    const model = scriptedModel([say('one'), say('two')]);
    const agent = createAgentLoop({ model });
    await agent.run('first', { threadId: 't' });
    const second = await agent.run([{ type: 'text', text: 'second' }], { threadId: 't' });
    expect(transcript(second.messages)).toEqual(['user: first', 'assistant: one', 'user: second', 'assistant: two']);
    expect(transcript(model.requests[1]!.messages)).toEqual(['user: first', 'assistant: one', 'user: second']);
    expect(await agent.messages('other')).toEqual([]);
  });

  it('stops after maxSteps model calls with status max-steps and a valid history', async () => {
    const model = scriptedModel([calls(call('echo', { text: 'a' })), calls(call('echo', { text: 'b' })), say('ok')]);
    const agent = createAgentLoop({ model, tools: [echo], maxSteps: 2 });
    const result = await agent.run('loop', { threadId: 't' });
    expect(result.status).toBe('max-steps');
    expect(result.reason).toContain('2 model steps');
    expect(model.requests).toHaveLength(2);
    expect(transcript(result.messages).at(-1)).toBe('tool echo: echo: b');
    // The turn is over and its history valid: the next run simply continues the thread.
    const next = await agent.run('again', { threadId: 't' });
    expect(next.status).toBe('completed');
    expect(transcript(next.messages).slice(-3)).toEqual(['tool echo: echo: b', 'user: again', 'assistant: ok']);
  });

  it('rejects bad input naming the part, and bad options with RangeError', async () => {
    const agent = createAgentLoop({ model: scriptedModel([]) });
    await expect(agent.run([{ type: 'text', text: 5 } as never], { threadId: 't' })).rejects.toThrow(
      /run input\[0\]\.text must be a string/,
    );
    await expect(agent.run([{ type: 'video' } as never], { threadId: 't' })).rejects.toThrow(TypeError);
    await expect(agent.run('x', { threadId: '' })).rejects.toThrow(/threadId/);
    expect(() => createAgentLoop({ model: scriptedModel([]), maxSteps: 0 })).toThrow(RangeError);
    expect(() => createAgentLoop({ model: scriptedModel([]), toolTimeoutMs: 1.5 })).toThrow(/toolTimeoutMs/);
    expect(() => createAgentLoop({ model: 'gpt' as never })).toThrow(/model/);
    expect(() => createAgentLoop({ model: scriptedModel([]), tools: [echo, echo] })).toThrow(
      /two tools are named "echo"/,
    );
  });

  it('rejects a second run on a thread that is still running, and allows other threads', async () => {
    const gate = deferred();
    const model = scriptedModel([
      async () => {
        await gate.promise;
        return say('slow');
      },
      say('other thread'),
      say('later'),
    ]);
    const agent = createAgentLoop({ model });
    const first = agent.run('one', { threadId: 't' });
    await expect(agent.run('two', { threadId: 't' })).rejects.toThrow(/thread "t" already has a run in progress/);
    const other = await agent.run('x', { threadId: 'u' });
    gate.resolve();
    expect((await first).status).toBe('completed');
    expect(other.status).toBe('completed');
    expect((await agent.run('three', { threadId: 't' })).status).toBe('completed');
  });

  it('fails the run with a clear reason when the model throws or replies malformed', async () => {
    const broken = createAgentLoop({
      model: async () => {
        throw new Error('rate limited');
      },
    });
    const failed = await broken.run('x', { threadId: 't' });
    expect(failed).toMatchObject({ status: 'failed', reason: 'the model call failed: rate limited' });

    const malformed = createAgentLoop({ model: scriptedModel([{ content: 7 } as never]) });
    expect((await malformed.run('x', { threadId: 't' })).reason).toMatch(/invalid model reply: model reply content/);
  });
});

describe('scriptedModel', () => {
  it('replays steps, records structured copies of requests, and throws past its last step', async () => {
    const model = scriptedModel([say('a'), (request) => say(`saw ${request.messages.length}`)]);
    const request = { systemPrompt: 's', messages: [], tools: [] };
    expect(await model(request, { signal: new AbortController().signal })).toEqual(say('a'));
    expect(await model(request, { signal: new AbortController().signal })).toEqual(say('saw 0'));
    expect(model.requests).toEqual([request, request]);
    expect(model.requests[0]).not.toBe(request);
    await expect(model(request, { signal: new AbortController().signal })).rejects.toThrow(
      /called 3 times but has only 2 steps/,
    );
  });
});

describe('R1 stack order and R2 beforeAgent', () => {
  it('runs the first middleware outermost and first in every hook', async () => {
    const log: string[] = [];
    const traced = (name: string): Middleware => ({
      name,
      beforeAgent: () => void log.push(`${name}.beforeAgent`),
      systemPrompt: () => void log.push(`${name}.systemPrompt`),
      async wrapModelCall(request, next) {
        log.push(`${name}.model>`);
        const reply = await next(request);
        log.push(`${name}.model<`);
        return reply;
      },
      async wrapToolCall(request, next) {
        log.push(`${name}.tool>`);
        const outcome = await next(request);
        log.push(`${name}.tool<`);
        return outcome;
      },
      afterAgent: () => void log.push(`${name}.afterAgent`),
    });
    const model = scriptedModel([calls(call('echo', { text: 'x' })), say('done')]);
    const agent = createAgentLoop({ model, tools: [echo], middleware: [traced('outer'), traced('inner')] });
    expect((await agent.run('go', { threadId: 't' })).status).toBe('completed');
    expect(log.slice(0, 12)).toEqual([
      'outer.beforeAgent',
      'inner.beforeAgent',
      'outer.systemPrompt',
      'inner.systemPrompt',
      'outer.model>',
      'inner.model>',
      'inner.model<',
      'outer.model<',
      'outer.tool>',
      'inner.tool>',
      'inner.tool<',
      'outer.tool<',
    ]);
    expect(log.slice(-2)).toEqual(['outer.afterAgent', 'inner.afterAgent']);
  });

  it('lets beforeAgent replace the input and write state the first model call sees', async () => {
    let seen: unknown;
    const tagger: Middleware = {
      name: 'tagger',
      writes: { tag: { initial: 'none' } },
      beforeAgent: (input) => ({ input: [...input, { type: 'text', text: '(tagged)' }], update: { tag: 'set' } }),
      systemPrompt: (context) => {
        seen = context.state.tag;
        return undefined;
      },
    };
    const model = scriptedModel([say('ok')]);
    const agent = createAgentLoop({ model, middleware: [tagger] });
    const result = await agent.run('hi', { threadId: 't' });
    expect(seen).toBe('set');
    expect(transcript(result.messages)[0]).toBe('user: hi\n(tagged)');
    expect(await agent.state('t')).toEqual({ tag: 'set' });
  });

  it('a Block from beforeAgent ends the run blocked with nothing of the turn kept', async () => {
    const model = scriptedModel([say('first answer')]);
    let allow = true;
    const guard: Middleware = {
      name: 'guard',
      writes: { kept: { initial: 0 }, undone: { initial: 0, onBlock: 'restore' } },
      beforeAgent: (_input, context) => {
        const update = { kept: (context.state.kept as number) + 1, undone: (context.state.undone as number) + 1 };
        return allow ? { update } : block('no secrets');
      },
    };
    const agent = createAgentLoop({ model, middleware: [guard] });
    await agent.run('fine', { threadId: 't' });
    allow = false;
    const before = await agent.messages('t');
    const result = await agent.run('secret', { threadId: 't' });
    expect(result).toMatchObject({ status: 'blocked', reason: 'no secrets' });
    expect(result.messages).toEqual(before);
    expect(await agent.messages('t')).toEqual(before);
    expect(model.requests).toHaveLength(1);
    expect(await agent.state('t')).toEqual({ kept: 1, undone: 1 });
  });

  it('an exception in beforeAgent fails the run and starts no turn', async () => {
    const agent = createAgentLoop({
      model: scriptedModel([say('after')]),
      middleware: [
        {
          name: 'boom',
          beforeAgent: () => {
            throw new Error('kaput');
          },
        },
      ],
    });
    const result = await agent.run('x', { threadId: 't' });
    expect(result).toMatchObject({ status: 'failed', reason: 'beforeAgent of middleware "boom" threw: kaput' });
    expect(result.messages).toEqual([]);
    expect(await agent.recover('t')).toMatchObject({ status: 'completed', messages: [] });
  });
});
