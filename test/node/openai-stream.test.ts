import { describe, expect, it } from 'vitest';
import {
  createAgent,
  type ModelRequest,
  modelReply,
  openAICompatibleModel,
  type StreamEvent,
  tool,
} from '../../lib/agent.js';

/** SSE bytes of `events` (objects are sent as JSON), with `\r\n` or `\n` line ends, then `[DONE]` unless told. */
function sse(events: unknown[], { done = true, crlf = false } = {}): Uint8Array {
  const end = crlf ? '\r\n' : '\n';
  const lines = [
    ': keep-alive comment',
    ...events.map((e) => `data: ${typeof e === 'string' ? e : JSON.stringify(e)}`),
  ];
  if (done) lines.push('data: [DONE]');
  return new TextEncoder().encode(lines.map((line) => `${line}${end}${end}`).join(''));
}

/** The bytes cut at odd places (1 to 7 bytes a chunk, so inside characters and inside `\r\n`). */
function oddChunks(bytes: Uint8Array): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let i = 0, n = 0; i < bytes.length; n++) {
    const size = (n * 5 + 3) % 7 || 1;
    chunks.push(bytes.slice(i, i + size));
    i += size;
  }
  return chunks;
}

interface Endpoint {
  fetch: typeof globalThis.fetch;
  bodies: Array<Record<string, unknown>>;
}

/**
 * A fetch stand-in answering with a real text/event-stream body: `chunks` in order, one per
 * macrotask; then the body ends, or errors when `fail` is set, or waits forever when `hang` is set.
 * An abort of the request's signal errors the body, as fetch does.
 */
function endpoint(bytes: Uint8Array | Uint8Array[], { fail = '', hang = false } = {}): Endpoint {
  const chunks = Array.isArray(bytes) ? bytes : [bytes];
  const bodies: Array<Record<string, unknown>> = [];
  const fetch = async (_url: string | URL | Request, init: RequestInit = {}) => {
    bodies.push(JSON.parse(String(init.body)));
    let i = 0;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        init.signal?.addEventListener('abort', () => controller.error(new DOMException('aborted', 'AbortError')));
      },
      async pull(controller) {
        await new Promise((resolve) => setTimeout(resolve, 0));
        if (i < chunks.length) controller.enqueue(chunks[i++]!);
        else if (fail) controller.error(new TypeError(fail));
        else if (!hang) controller.close();
        else await new Promise(() => undefined);
      },
    });
    return new Response(body, { headers: { 'content-type': 'text/event-stream; charset=utf-8' } });
  };
  return { fetch: fetch as typeof globalThis.fetch, bodies };
}

const delta = (d: Record<string, unknown>, finish: string | null = null) => ({
  id: 'chunk',
  object: 'chat.completion.chunk',
  choices: [{ index: 0, delta: d, finish_reason: finish }],
});
const callDelta = (index: number, fields: { id?: string; name?: string; arguments?: string }) =>
  delta({
    tool_calls: [
      {
        index,
        ...(fields.id ? { id: fields.id, type: 'function' } : {}),
        function: { ...(fields.name ? { name: fields.name } : {}), arguments: fields.arguments ?? '' },
      },
    ],
  });

const request: ModelRequest = {
  systemPrompt: '',
  messages: [{ role: 'user', id: 'u', content: [{ type: 'text', text: 'hi' }] }],
  tools: [],
};

const lookup = tool({
  name: 'lookup',
  description: 'Look up',
  parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
  execute: ({ q }: { q: string }) => `found ${q}`,
});

function agentOver(fetch: typeof globalThis.fetch, seen: StreamEvent[] = []) {
  const model = openAICompatibleModel({ baseUrl: 'http://llm.test/v1', model: 'm', stream: true, fetch });
  return createAgent({ model, tools: [lookup], onStream: (event) => seen.push(event) });
}

describe('openAICompatibleModel({ stream: true })', () => {
  it('asks for a stream with usage, and streams text cut at odd byte boundaries', async () => {
    const text = ['Grüße ', '— 😀 ', 'done.'];
    const server = endpoint(
      oddChunks(
        sse(
          [
            delta({ role: 'assistant', content: '' }),
            ...text.map((t) => delta({ content: t })),
            delta({}, 'stop'),
            { id: 'chunk', choices: [], usage: { prompt_tokens: 5, completion_tokens: 4, total_tokens: 9 } },
          ],
          { crlf: true },
        ),
      ),
    );
    const seen: StreamEvent[] = [];
    const result = await agentOver(server.fetch, seen).run('hi', { threadId: 't' });
    expect(result.status).toBe('completed');
    expect(result.output!.content).toEqual([{ type: 'text', text: 'Grüße — 😀 done.' }]);
    // The usage chunk is the last part: what the call cost, in the server's tokens.
    expect(seen.map((e) => e.part)).toEqual([
      ...text.map((t) => ({ type: 'text-delta', text: t })),
      { type: 'usage', inputTokens: 5, outputTokens: 4 },
    ]);
    expect(server.bodies[0]).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it("gives the reply the server's usage, its cached part too; a count it did not give stays absent, a 0 stays 0", async () => {
    const usage = (fields: Record<string, unknown>) => ({ id: 'chunk', choices: [], usage: fields });
    const cases: Array<[Record<string, unknown> | undefined, unknown]> = [
      [
        { prompt_tokens: 1200, prompt_tokens_details: { cached_tokens: 1024 }, completion_tokens: 0 },
        { inputTokens: 1200, cachedInputTokens: 1024, outputTokens: 0 },
      ],
      [{ prompt_tokens: 7 }, { inputTokens: 7 }],
      // What a server sends is input: counts of the wrong kind are dropped, never a failed run.
      [
        { prompt_tokens: 'many', completion_tokens: -1, prompt_tokens_details: { cached_tokens: Number.NaN } },
        undefined,
      ],
      [undefined, undefined],
    ];
    for (const [fields, expected] of cases) {
      const events = [delta({ content: 'ok' }), delta({}, 'stop'), ...(fields ? [usage(fields)] : [])];
      const model = openAICompatibleModel({
        baseUrl: 'http://llm.test/v1',
        model: 'm',
        stream: true,
        fetch: endpoint(sse(events)).fetch,
      });
      const reply = await modelReply(model, request, { signal: new AbortController().signal });
      expect(reply.content).toBe('ok');
      expect(reply.usage).toEqual(expected);
    }
  });

  it('assembles tool calls from deltas split across events, by index', async () => {
    const server = endpoint(
      oddChunks(
        sse([
          delta({ content: 'Looking.' }),
          callDelta(0, { id: 'call_a', name: 'lookup', arguments: '{"q":' }),
          callDelta(1, { id: 'call_b', name: 'lookup' }),
          callDelta(0, { arguments: '"cats"}' }),
          callDelta(1, { arguments: '{"q":"do' }),
          callDelta(1, { arguments: 'gs"}' }),
          delta({}, 'tool_calls'),
        ]),
      ),
      {},
    );
    const finalServer = endpoint(sse([delta({ content: 'Cats and dogs.' }, 'stop')]));
    let calls = 0;
    const fetch = ((url: string, init: RequestInit) =>
      (calls++ === 0 ? server : finalServer).fetch(url, init)) as typeof globalThis.fetch;
    const seen: StreamEvent[] = [];
    const result = await agentOver(fetch, seen).run('hi', { threadId: 't' });
    expect(result.status).toBe('completed');
    const asked = result.messages[1]!;
    expect(asked.role === 'assistant' && asked.toolCalls).toEqual([
      { id: 'call_a', name: 'lookup', args: { q: 'cats' } },
      { id: 'call_b', name: 'lookup', args: { q: 'dogs' } },
    ]);
    expect(result.messages.filter((m) => m.role === 'tool').map((m) => m.content)).toEqual([
      [{ type: 'text', text: 'found cats' }],
      [{ type: 'text', text: 'found dogs' }],
    ]);
    expect(seen.filter((e) => e.part.type === 'tool-call').map((e) => e.step)).toEqual([1, 1]);
  });

  it.each([
    ['an id', { name: 'lookup', arguments: '{}' }, 'the streamed tool call at index 0 came without an id'],
    ['a name', { id: 'call_a', arguments: '{}' }, 'the streamed tool call at index 0 came without a function name'],
  ])('a tool call without %s fails the run saying so', async (_, fields, message) => {
    const server = endpoint(sse([callDelta(0, fields), delta({}, 'tool_calls')]));
    const result = await agentOver(server.fetch).run('hi', { threadId: 't' });
    expect(result).toMatchObject({
      status: 'failed',
      reason: `the model call failed: openAICompatibleModel: ${message}`,
    });
  });

  it('abort in mid-stream ends the run as aborted, keeps the thread as it was', async () => {
    const server = endpoint(sse([delta({ content: 'Half a' })], { done: false }), { hang: true });
    const controller = new AbortController();
    const seen: StreamEvent[] = [];
    const agent = createAgent({
      model: openAICompatibleModel({ baseUrl: 'http://llm.test/v1', model: 'm', stream: true, fetch: server.fetch }),
      onStream: (event) => {
        seen.push(event);
        controller.abort();
      },
    });
    const result = await agent.run('hi', { threadId: 't', signal: controller.signal });
    expect(result).toMatchObject({ status: 'failed', reason: 'aborted' });
    expect(seen).toHaveLength(1);
    expect(result.messages.map((m) => m.role)).toEqual(['user']);
    expect(await agent.messages('t')).toEqual(result.messages);
  });

  it.each([
    ['the connection drops', { fail: 'network error' }, [delta({ content: 'Par' })], 'network error'],
    [
      'the body ends early',
      {},
      [delta({ content: 'Par' })],
      'openAICompatibleModel: the stream ended before the reply was complete (no finish_reason, no [DONE])',
    ],
    [
      'the server sends an error event',
      {},
      [delta({ content: 'Par' }), { error: { message: 'overloaded, try later' } }],
      'openAICompatibleModel: the server reported an error in mid-stream: overloaded, try later',
    ],
    [
      'an event is not JSON',
      {},
      [delta({ content: 'Par' }), '{"choices": [oops'],
      'openAICompatibleModel: a stream event is not JSON: {"choices": [oops',
    ],
  ])('a broken stream (%s) fails the run with a clear reason, the thread kept', async (_, options, events, reason) => {
    const server = endpoint(oddChunks(sse(events, { done: false })), options);
    const result = await agentOver(server.fetch).run('hi', { threadId: 't' });
    expect(result.status).toBe('failed');
    expect(result.reason).toBe(`the model call failed: ${reason}`);
    expect(result.messages.map((m) => m.role)).toEqual(['user']);
  });

  it('a server that ignores stream and answers whole still works', async () => {
    const fetch = (async () =>
      new Response(JSON.stringify({ choices: [{ message: { content: 'whole' } }] }), {
        headers: { 'content-type': 'application/json' },
      })) as typeof globalThis.fetch;
    const model = openAICompatibleModel({ baseUrl: 'http://llm.test/v1', model: 'm', stream: true, fetch });
    expect(await model(request, { signal: new AbortController().signal })).toEqual({ content: 'whole' });
  });

  it('rejects a stream option that is not a boolean', () => {
    expect(() => openAICompatibleModel({ baseUrl: 'http://x/v1', model: 'm', stream: 'yes' as never })).toThrow(
      'openAICompatibleModel: stream must be true or false',
    );
  });
});
