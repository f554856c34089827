import { describe, expect, it } from 'vitest';
import { createAgent, type ModelRequest, openAICompatibleModel, tool } from '../../lib/agent.js';

interface Sent {
  url: string;
  init: RequestInit;
  body: { model?: string; messages: unknown[]; tools?: unknown[] };
}

/** A fetch that records what it was sent and answers with each of `replies` in turn. */
function fakeFetch(...replies: Array<Response | ((init: RequestInit) => Promise<Response>)>) {
  const sent: Sent[] = [];
  const fetch = async (url: string | URL | Request, init: RequestInit = {}) => {
    sent.push({ url: String(url), init, body: JSON.parse(String(init.body)) });
    const reply = replies[sent.length - 1];
    if (!reply) throw new Error(`fake endpoint got request ${sent.length} but has only ${replies.length} replies`);
    return typeof reply === 'function' ? reply(init) : reply;
  };
  return Object.assign(fetch as typeof globalThis.fetch, { sent });
}

function json(value: unknown, status = 200): Response {
  return new Response(JSON.stringify(value), { status, headers: { 'content-type': 'application/json' } });
}

function completion(message: Record<string, unknown>): Response {
  return json({ id: 'c1', object: 'chat.completion', choices: [{ index: 0, message, finish_reason: 'stop' }] });
}

const request: ModelRequest = {
  systemPrompt: 'You are terse.',
  messages: [
    {
      role: 'user',
      id: 'u1',
      content: [
        { type: 'text', text: 'What is in this picture?' },
        { type: 'image', mimeType: 'image/png', data: 'iVBORw0K' },
        { type: 'audio', mimeType: 'audio/wav', data: 'UklGR', name: 'memo.wav' },
      ],
    },
    { role: 'assistant', id: 'a1', content: [], toolCalls: [{ id: 'call_1', name: 'lookup', args: { q: 'cats' } }] },
    {
      role: 'tool',
      id: 't1',
      toolCallId: 'call_1',
      toolName: 'lookup',
      content: [
        { type: 'text', text: 'found 2 cats' },
        { type: 'image', mimeType: 'image/jpeg', data: '/9j/4AAQ', name: 'cat.jpg' },
      ],
      isError: false,
    },
    { role: 'assistant', id: 'a2', content: [{ type: 'text', text: 'Two cats.' }], toolCalls: [] },
    { role: 'user', id: 'u2', content: [{ type: 'text', text: 'Look again' }] },
    { role: 'assistant', id: 'a3', content: [], toolCalls: [{ id: 'call_2', name: 'lookup', args: {} }] },
    {
      role: 'tool',
      id: 't2',
      toolCallId: 'call_2',
      toolName: 'lookup',
      content: [{ type: 'text', text: 'Denied: no more lookups' }],
      isError: true,
    },
  ],
  tools: [{ name: 'lookup', description: 'Look something up', parameters: { type: 'object', properties: {} } }],
};

const signal = () => new AbortController().signal;

describe('openAICompatibleModel: the request', () => {
  it('POSTs the conversation as Chat Completions messages, with tools and headers', async () => {
    const fetch = fakeFetch(completion({ role: 'assistant', content: 'ok' }));
    const model = openAICompatibleModel({
      baseUrl: 'https://llm.example/v1/',
      model: 'small-1',
      apiKey: 'sk-test',
      headers: { 'x-team': 'demo' },
      fetch,
    });
    await model(request, { signal: signal() });

    const [{ url, init, body }] = fetch.sent as [Sent];
    expect(url).toBe('https://llm.example/v1/chat/completions');
    expect(init.method).toBe('POST');
    expect(init.headers).toMatchObject({
      authorization: 'Bearer sk-test',
      'content-type': 'application/json',
      'x-team': 'demo',
    });
    expect(body.model).toBe('small-1');
    expect(body.tools).toEqual([
      {
        type: 'function',
        function: { name: 'lookup', description: 'Look something up', parameters: { type: 'object', properties: {} } },
      },
    ]);
    expect(body.messages).toEqual([
      { role: 'system', content: 'You are terse.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in this picture?' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0K' } },
          { type: 'text', text: '[audio memo.wav (audio/wav): not sent: unsupported here]' },
        ],
      },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"q":"cats"}' } }],
      },
      {
        role: 'tool',
        tool_call_id: 'call_1',
        content: 'found 2 cats\n[image cat.jpg (image/jpeg): sent in the next message]',
      },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Images from the tool results above:' },
          { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/4AAQ' } },
        ],
      },
      { role: 'assistant', content: 'Two cats.' },
      { role: 'user', content: 'Look again' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_2', type: 'function', function: { name: 'lookup', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'call_2', content: 'Error: Denied: no more lookups' },
    ]);
  });

  it('sends no system message, tools or Authorization when there are none', async () => {
    const fetch = fakeFetch(completion({ content: 'hi' }));
    const model = openAICompatibleModel({ baseUrl: 'http://127.0.0.1:11434/v1', model: 'local', fetch });
    await model(
      { systemPrompt: '', messages: [{ role: 'user', id: 'u', content: [] }], tools: [] },
      { signal: signal() },
    );
    const [{ init, body }] = fetch.sent as [Sent];
    expect(body).toEqual({ model: 'local', messages: [{ role: 'user', content: '' }] });
    expect(init.headers).not.toHaveProperty('authorization');
  });

  it('checks its options, naming the one that is wrong', () => {
    const fetch = fakeFetch();
    expect(() => openAICompatibleModel({ baseUrl: '', model: 'm', fetch })).toThrow(/baseUrl must be a non-empty/);
    expect(() => openAICompatibleModel({ baseUrl: 'http://x', model: ' ', fetch })).toThrow(/model must be/);
    expect(() => openAICompatibleModel({ baseUrl: 'http://[bad', model: 'm', fetch })).toThrow(/baseUrl is not a URL/);
    expect(() => openAICompatibleModel({ baseUrl: 'http://x', model: 'm', apiKey: 1 as never, fetch })).toThrow(
      /apiKey must be a string/,
    );
  });
});

describe('openAICompatibleModel: the reply', () => {
  it('parses content and tool calls, arguments JSON-parsed', async () => {
    const fetch = fakeFetch(
      completion({
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'lookup', arguments: '{"q":"dogs","n":2}' } },
          { id: 'call_b', type: 'function', function: { name: 'ls', arguments: '' } },
        ],
      }),
      completion({
        role: 'assistant',
        content: [
          { type: 'text', text: 'Done ' },
          { type: 'text', text: 'now.' },
        ],
      }),
    );
    const model = openAICompatibleModel({ baseUrl: 'http://x/v1', model: 'm', fetch });
    expect(await model(request, { signal: signal() })).toEqual({
      content: '',
      toolCalls: [
        { id: 'call_a', name: 'lookup', args: { q: 'dogs', n: 2 } },
        { id: 'call_b', name: 'ls', args: {} },
      ],
    });
    expect(await model(request, { signal: signal() })).toEqual({ content: 'Done now.' });
  });

  it("carries the server's usage: prompt, cached and completion tokens, each only where given as a count", async () => {
    const withUsage = (usage: unknown) => json({ choices: [{ message: { role: 'assistant', content: 'hi' } }], usage });
    const fetch = fakeFetch(
      withUsage({ prompt_tokens: 900, completion_tokens: 12, prompt_tokens_details: { cached_tokens: 0 } }),
      withUsage({ completion_tokens: 3 }),
      withUsage({ prompt_tokens: '900', completion_tokens: Number.POSITIVE_INFINITY }),
      completion({ role: 'assistant', content: 'no usage' }),
    );
    const model = openAICompatibleModel({ baseUrl: 'http://x/v1', model: 'm', fetch });
    const usageOf = async () => ((await model(request, { signal: signal() })) as { usage?: unknown }).usage;
    expect(await usageOf()).toEqual({ inputTokens: 900, cachedInputTokens: 0, outputTokens: 12 });
    expect(await usageOf()).toEqual({ outputTokens: 3 });
    expect(await usageOf()).toBeUndefined();
    expect(await usageOf()).toBeUndefined();
  });

  it.each([
    [json({ error: { message: 'Incorrect API key provided' } }, 401), /HTTP 401.*check the API key.*Incorrect API key/],
    [
      new Response('upstream exploded', { status: 500, statusText: 'Internal Server Error' }),
      /HTTP 500 Internal Server Error: upstream exploded/,
    ],
    [new Response('<html>gateway</html>', { status: 200 }), /body that is not JSON: <html>gateway<\/html>/],
    [new Response('', { status: 200 }), /not JSON: \(empty body\)/],
    [json({ object: 'chat.completion', choices: [] }), /no choices\[0\]\.message/],
    [json({ error: { message: 'model overloaded' } }), /the reply is an error: model overloaded/],
    [
      completion({ content: null, tool_calls: [{ id: 'c', function: { arguments: '{}' } }] }),
      /tool_calls\[0\] has no function name/,
    ],
  ])('a bad reply throws an Error that names what was wrong (%#)', async (reply, message) => {
    const model = openAICompatibleModel({ baseUrl: 'http://x/v1', model: 'm', fetch: fakeFetch(reply) });
    await expect(model(request, { signal: signal() })).rejects.toThrow(message);
  });

  it('a long error body is quoted in part', async () => {
    const model = openAICompatibleModel({
      baseUrl: 'http://x/v1',
      model: 'm',
      fetch: fakeFetch(new Response('x'.repeat(5000), { status: 502 })),
    });
    const error = await model(request, { signal: signal() }).catch((e: Error) => e);
    expect((error as Error).message).toMatch(/HTTP 502: x{300}… \(5000 characters\)$/);
  });

  it('an unreachable endpoint names the URL', async () => {
    const fetch = (async () => {
      throw new TypeError('Failed to fetch');
    }) as typeof globalThis.fetch;
    const model = openAICompatibleModel({ baseUrl: 'http://127.0.0.1:9/v1', model: 'm', fetch });
    await expect(model(request, { signal: signal() })).rejects.toThrow(
      /could not reach http:\/\/127\.0\.0\.1:9\/v1\/chat\/completions: Failed to fetch/,
    );
  });

  it('passes the signal to fetch, and an abort rejects as an abort', async () => {
    const controller = new AbortController();
    const fetch = fakeFetch(
      (init) =>
        new Promise<Response>((_, reject) =>
          init.signal?.addEventListener('abort', () => reject(new DOMException('The user aborted', 'AbortError'))),
        ),
    );
    const model = openAICompatibleModel({ baseUrl: 'http://x/v1', model: 'm', fetch });
    const pending = model(request, { signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(fetch.sent[0]!.init.signal).toBe(controller.signal);
  });
});

describe('openAICompatibleModel in an agent', () => {
  const echo = tool<{ text: string }>({
    name: 'echo',
    description: 'Echo text',
    parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    execute: ({ text }) => `echo: ${text}`,
  });

  it('runs tool calls, and a failing endpoint fails the run with the reason and loses nothing', async () => {
    const fetch = fakeFetch(
      completion({ content: null, tool_calls: [{ id: 'x1', function: { name: 'echo', arguments: '{"text":"hi"}' } }] }),
      completion({ content: 'It said hi.' }),
      new Response('{"error":{"message":"rate limited"}}', { status: 429 }),
      completion({ content: 'Back again.' }),
    );
    const agent = createAgent({
      model: openAICompatibleModel({ baseUrl: 'http://x/v1', model: 'm', fetch }),
      tools: [echo],
    });

    const first = await agent.run('say hi', { threadId: 't' });
    expect(first.status).toBe('completed');
    expect(first.output?.content).toEqual([{ type: 'text', text: 'It said hi.' }]);
    expect(fetch.sent[1]!.body.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'x1', content: 'echo: hi' });

    const failed = await agent.run('again', { threadId: 't' });
    expect(failed.status).toBe('failed');
    expect(failed.reason).toMatch(/HTTP 429.*rate limited/);
    const kept = await agent.messages('t');
    expect(kept.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user']);

    // The interrupted turn is still there: recover asks the endpoint again and completes it.
    const recovered = await agent.recover('t');
    expect(recovered.status).toBe('completed');
    expect(recovered.output?.content).toEqual([{ type: 'text', text: 'Back again.' }]);
  });

  it('arguments that are not JSON become an error tool message the model can correct', async () => {
    const fetch = fakeFetch(
      completion({ content: null, tool_calls: [{ id: 'x1', function: { name: 'echo', arguments: '{"text": "hi' } }] }),
      completion({ content: null, tool_calls: [{ id: 'x2', function: { name: 'echo', arguments: '{"text":"hi"}' } }] }),
      completion({ content: 'Fixed it.' }),
    );
    const agent = createAgent({
      model: openAICompatibleModel({ baseUrl: 'http://x/v1', model: 'm', fetch }),
      tools: [echo],
    });

    const result = await agent.run('say hi', { threadId: 't' });
    expect(result.status).toBe('completed');
    const [bad, good] = result.messages.filter((m) => m.role === 'tool');
    expect(bad).toMatchObject({ toolCallId: 'x1', isError: true });
    expect(JSON.stringify(bad!.content)).toMatch(/Invalid arguments for tool .*echo.*were text, not JSON.*text.*hi/);
    expect(good).toMatchObject({ toolCallId: 'x2', isError: false, content: [{ type: 'text', text: 'echo: hi' }] });
  });
});
