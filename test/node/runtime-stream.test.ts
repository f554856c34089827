import { describe, expect, it } from 'vitest';
import { createAgent as createPublicAgent, type Middleware } from '../../lib/agent.js';
import { createAgentLoop } from '../../lib/runtime/agent.js';
import type { ModelStreamPart } from '../../lib/runtime/model.js';
import type { StreamEvent } from '../../lib/runtime/model-stream.js';
import { scriptedModel } from '../../lib/testing.js';
import { call, calls, deferred, echo, say, text, transcript } from './runtime-fixtures.js';

describe('a streaming model', () => {
  it('is assembled into the reply, each part reported to onStream as it arrives', async () => {
    const model = scriptedModel(
      [{ content: 'Let me echo.', toolCalls: [call('echo', { text: 'hi' }, 'c1')] }, say('All done, friend.')],
      { stream: { chunkChars: 5 } },
    );
    const seen: StreamEvent[] = [];
    const events: string[] = [];
    const agent = createAgentLoop({
      model,
      tools: [echo],
      onStream: (event) => seen.push(event),
      onEvent: (event) => events.push(event.type),
    });
    const result = await agent.run('hello', { threadId: 't' });

    expect(result.status).toBe('completed');
    expect(transcript(result.messages)).toEqual([
      'user: hello',
      'assistant calls echo',
      'tool echo: echo: hi',
      'assistant: All done, friend.',
    ]);
    expect(text(result.messages[1]!.content)).toBe('Let me echo.');
    const first = seen.filter((e) => e.step === 1).map((e) => e.part);
    expect(first).toEqual([
      { type: 'text-delta', text: 'Let m' },
      { type: 'text-delta', text: 'e ech' },
      { type: 'text-delta', text: 'o.' },
      { type: 'tool-call', id: 'c1', name: 'echo', args: { text: 'hi' } },
    ]);
    const second = seen.filter((e) => e.step === 2).map((e) => (e.part.type === 'text-delta' ? e.part.text : ''));
    expect(second.join('')).toBe('All done, friend.');
    expect(new Set(seen.map((e) => e.threadId))).toEqual(new Set(['t']));
    expect(new Set(seen.map((e) => e.turnId)).size).toBe(1);
    // RunEvents stay free of the text: the model-call event only says the step streamed.
    expect(JSON.stringify(result)).not.toContain('"text-delta"');
    expect(events.filter((t) => t === 'model-call')).toHaveLength(2);
  });

  it('reports each delta before the stream ends (the app can show text while the model writes)', async () => {
    const gate = deferred();
    async function* stream(): AsyncGenerator<ModelStreamPart> {
      yield { type: 'text-delta', text: 'Hel' };
      await gate.promise;
      yield { type: 'text-delta', text: 'lo' };
    }
    const shown: string[] = [];
    const agent = createAgentLoop({
      model: scriptedModel([stream()]),
      onStream: ({ part }) => {
        if (part.type === 'text-delta') shown.push(part.text);
        if (shown.length === 1) gate.resolve();
      },
    });
    const running = agent.run('hi', { threadId: 't' });
    const result = await running;
    expect(shown).toEqual(['Hel', 'lo']);
    expect(text(result.output!.content)).toBe('Hello');
  });

  it('a model that answers whole keeps working, and streams nothing', async () => {
    const seen: StreamEvent[] = [];
    const agent = createAgentLoop({ model: scriptedModel([say('whole')]), onStream: (e) => seen.push(e) });
    const result = await agent.run('x', { threadId: 't' });
    expect(text(result.output!.content)).toBe('whole');
    expect(seen).toEqual([]);
  });

  it('abort in mid-stream ends the run as aborted, the thread consistent, and closes the stream', async () => {
    const controller = new AbortController();
    let closed = false;
    async function* endless(): AsyncGenerator<ModelStreamPart> {
      try {
        for (;;) {
          yield { type: 'text-delta', text: 'more ' };
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
      } finally {
        closed = true;
      }
    }
    let parts = 0;
    const agent = createAgentLoop({
      model: scriptedModel([calls(call('echo', { text: 'a' })), () => endless(), say('after recover')]),
      tools: [echo],
      onStream: () => {
        if (++parts === 3) controller.abort();
      },
    });
    const result = await agent.run('go', { threadId: 't', signal: controller.signal });
    expect(result).toMatchObject({ status: 'failed', reason: 'aborted' });
    // Nothing of the half-streamed reply is kept: the thread ends with the finished tool step.
    expect(transcript(result.messages)).toEqual(['user: go', 'assistant calls echo', 'tool echo: echo: a']);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(closed).toBe(true);
    const recovered = await agent.recover('t');
    expect(recovered.status).toBe('completed');
    expect(transcript(recovered.messages).at(-1)).toBe('assistant: after recover');
  });

  it('a stream that throws, or yields a bad part, fails the run naming what was wrong', async () => {
    async function* broken(): AsyncGenerator<ModelStreamPart> {
      yield { type: 'text-delta', text: 'partial' };
      throw new Error('connection reset');
    }
    const failed = await createAgentLoop({ model: scriptedModel([broken()]) }).run('x', { threadId: 't' });
    expect(failed).toMatchObject({ status: 'failed', reason: 'the model call failed: connection reset' });
    expect(transcript(failed.messages)).toEqual(['user: x']);

    async function* odd(): AsyncGenerator<ModelStreamPart> {
      yield { type: 'text-delta', text: 'ok' };
      yield { type: 'text', text: 'wrong' } as never;
    }
    const bad = await createAgentLoop({ model: scriptedModel([odd()]) }).run('x', { threadId: 't' });
    expect(bad.reason).toBe(
      `the model call failed: stream part 1: expected { type: 'text-delta', text: string }, { type: 'tool-call', id: string, name: string, args } or { type: 'usage', inputTokens?, cachedInputTokens?, outputTokens? }, got {"type":"text","text":"wrong"}`,
    );
  });

  it('an async model function may resolve to a stream', async () => {
    const agent = createAgentLoop({
      model: async () =>
        (async function* () {
          yield { type: 'text-delta' as const, text: 'from ' };
          yield { type: 'text-delta' as const, text: 'a promise' };
        })(),
    });
    expect(text((await agent.run('x', { threadId: 't' })).output!.content)).toBe('from a promise');
  });
});

describe('a reply of the wrong shape', () => {
  it.each([
    ['a bare string', 'hello', 'a string "hello"'],
    ['undefined', undefined, 'undefined'],
    ['an object without content', { text: 'hi' }, 'an object without content: {"text":"hi"}'],
    ['an array', [{ type: 'text', text: 'hi' }], 'an array [{"type":"text","text":"hi"}]'],
  ])('%s names the expected shape and what arrived', async (_, reply, arrived) => {
    const agent = createAgentLoop({ model: async () => reply as never });
    const result = await agent.run('x', { threadId: 't' });
    expect(result.reason).toBe(
      `invalid model reply: expected { content: string | ContentPart[], toolCalls?: ToolCall[] }, got ${arrived}`,
    );
  });
});

describe('scriptedModel({ stream })', () => {
  it('rejects bad stream options with a RangeError naming them', () => {
    expect(() => scriptedModel([], { stream: { chunkChars: 0 } })).toThrow(
      'scriptedModel: stream.chunkChars must be an integer of at least 1, got 0',
    );
    expect(() => scriptedModel([], { stream: { delayMs: -1 } })).toThrow(/stream\.delayMs/);
  });

  it('never splits a character made of two UTF-16 units', async () => {
    const seen: string[] = [];
    const agent = createAgentLoop({
      model: scriptedModel([say('😀😀😀')], { stream: { chunkChars: 1 } }),
      onStream: ({ part }) => part.type === 'text-delta' && seen.push(part.text),
    });
    await agent.run('x', { threadId: 't' });
    expect(seen).toEqual(['😀', '😀', '😀']);
  });
});

describe("a model's usage", () => {
  it('reaches the middleware with the reply, whole or streamed; counts of the wrong kind are dropped', async () => {
    const seen: unknown[] = [];
    const watcher: Middleware = {
      name: 'usage-watcher',
      wrapModelCall: async (request, next) => {
        const reply = await next(request);
        seen.push(reply.usage);
        return reply;
      },
    };
    const hostile = { inputTokens: -3, cachedInputTokens: 'all', outputTokens: Number.NaN } as never;
    for (const stream of [false, true]) {
      seen.length = 0;
      const model = scriptedModel(
        [
          {
            content: 'Let me echo.',
            toolCalls: [call('echo', { text: 'hi' }, 'c1')],
            usage: { inputTokens: 812, cachedInputTokens: 0 },
          },
          { content: 'Done.', usage: hostile },
          { content: 'Again.' },
        ],
        { stream },
      );
      const agent = createPublicAgent({ model, tools: [echo], middleware: [watcher] });
      expect((await agent.run('hello', { threadId: 't' })).status).toBe('completed');
      expect((await agent.run('more', { threadId: 't' })).status).toBe('completed');
      expect(seen).toEqual([{ inputTokens: 812, cachedInputTokens: 0 }, undefined, undefined]);
    }
  });
});
