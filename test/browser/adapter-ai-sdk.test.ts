import { convertToModelMessages, generateText, stepCountIs, streamText, ToolLoopAgent, tool, type UIMessage } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type OffloadEvent, withOffload } from '../../adapters/ai-sdk/index.js';
import { IndexedDbOffloadStore, ToolOutputOffload, type ToolOutputOffloadOptions } from '../../lib/index.js';
import { pathIn, scriptedAiModel, shownText, toolResultsIn } from './fixtures/ai-sdk-model.js';
import { brokenStore, failingStores, unhandledRejectionsOf } from './fixtures/failing-stores.js';

/** About 300 KB: 3000 numbered lines of 106 characters. */
function bigPage(tag: string): string {
  return Array.from(
    { length: 3000 },
    (_, i) => `${tag} ${String(i).padStart(4, '0')} ${'lorem ipsum '.repeat(8)}`,
  ).join('\n');
}

const stores: IndexedDbOffloadStore[] = [];
function offloadOnIndexedDb(options: Omit<ToolOutputOffloadOptions, 'store'> = {}) {
  const store = new IndexedDbOffloadStore({ name: `ai-sdk-${crypto.randomUUID()}` });
  stores.push(store);
  return new ToolOutputOffload({ store, ...options });
}
afterEach(async () => {
  for (const store of stores.splice(0)) await store.deleteDatabase();
});

const fetchPage = tool({
  description: 'Fetch a page',
  inputSchema: z.object({ url: z.string() }),
  execute: async ({ url }) => bigPage(url),
});

/** The model's script: fetch, read lines 100-104 of what was stored, answer. */
function fetchThenRead() {
  return scriptedAiModel([
    { toolCalls: [{ id: 'call-1', name: 'fetch_page', input: { url: 'docs' } }] },
    (prompt) => ({
      toolCalls: [
        {
          id: 'call-2',
          name: 'read_file',
          input: { path: pathIn(shownText(prompt, 'call-1')), offset: 100, limit: 5 },
        },
      ],
    }),
    { text: 'done' },
  ]);
}

describe('withOffload (AI SDK 7)', () => {
  for (const mode of ['generateText', 'streamText'] as const) {
    it(`${mode}: a 300 KB result is replaced by its preview, read back with read_file, and kept raw in the steps`, async () => {
      const offload = offloadOnIndexedDb();
      const events: OffloadEvent[] = [];
      const { tools, system } = withOffload(
        offload,
        { fetch_page: fetchPage },
        { threadId: 'chat-1', onEvent: (e) => events.push(e) },
      );
      const model = fetchThenRead();
      const options = {
        model,
        tools,
        instructions: `You are helpful.\n${system}`,
        prompt: 'Read docs',
        stopWhen: stepCountIs(5),
      };
      let steps: Awaited<ReturnType<typeof generateText<typeof tools>>>['steps'];
      if (mode === 'generateText') {
        steps = (await generateText(options)).steps;
      } else {
        const run = streamText(options);
        await run.consumeStream();
        steps = await run.steps;
      }

      expect(model.prompts).toHaveLength(3);
      expect(model.prompts[0]![0]).toEqual({
        role: 'system',
        content: expect.stringContaining('/large_tool_results/'),
      });
      const preview = shownText(model.prompts[1]!, 'call-1');
      const path = pathIn(preview);
      expect(preview.length).toBeLessThan(20_000 * 4);
      expect(preview).toContain('docs 0000 ');
      expect(preview).not.toContain('docs 2999 ');
      const read = shownText(model.prompts[2]!, 'call-2');
      expect(read).toBe(
        `${[100, 101, 102, 103, 104]
          .map((n) => `${String(n + 1).padStart(6)}\t${bigPage('docs').split('\n')[n]}`)
          .join('\n')}\n[lines 101-105 of 3000; continue with read_file {"path":"${path}","offset":105,"limit":2450}]`,
      );
      // The preview is what the model saw again in the last step, byte for byte.
      expect(shownText(model.prompts[2]!, 'call-1')).toBe(preview);
      expect(steps[0]!.toolResults[0]).toMatchObject({ toolName: 'fetch_page', output: bigPage('docs') });
      const entries = await offload.store.list('chat-1');
      expect(entries.map((entry) => [entry.path, entry.bytes, entry.preview])).toEqual([
        [path, bigPage('docs').length, preview],
      ]);
      expect(events).toEqual([
        { type: 'offloaded', threadId: 'chat-1', toolName: 'fetch_page', toolCallId: 'call-1', path },
      ]);
    });
  }

  it('ToolLoopAgent runs the same, with the tools and instructions from withOffload', async () => {
    const offload = offloadOnIndexedDb();
    const { tools, system } = withOffload(offload, { fetch_page: fetchPage }, { threadId: 'chat-1' });
    const model = fetchThenRead();
    const agent = new ToolLoopAgent({ model, tools, instructions: system });
    const result = await agent.generate({ prompt: 'Read docs' });
    expect(result.text).toBe('done');
    expect(shownText(model.prompts[2]!, 'call-2')).toContain(`   101\tdocs 0100 `);
    expect(await offload.store.list('chat-1')).toHaveLength(1);
  });

  it('three turns of convertToModelMessages store one entry and send a byte-identical text', async () => {
    const offload = offloadOnIndexedDb();
    const events: OffloadEvent[] = [];
    const { tools } = withOffload(
      offload,
      { fetch_page: fetchPage },
      { threadId: 'chat-1', onEvent: (e) => events.push(e) },
    );
    const messages: UIMessage[] = [
      { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Read docs' }] },
      {
        id: 'a1',
        role: 'assistant',
        parts: [
          {
            type: 'tool-fetch_page',
            toolCallId: 'call-1',
            state: 'output-available',
            input: { url: 'docs' },
            output: bigPage('docs'),
          },
        ],
      },
    ];
    const sent: string[] = [];
    for (let turn = 0; turn < 3; turn++) {
      const converted = await convertToModelMessages(messages, { tools });
      const [result] = converted.flatMap((m) => (m.role === 'tool' ? m.content : []));
      expect(result).toMatchObject({ type: 'tool-result', toolCallId: 'call-1', output: { type: 'text' } });
      sent.push((result as { output: { value: string } }).output.value);
      messages.push({ id: `u${turn + 2}`, role: 'user', parts: [{ type: 'text', text: 'and?' }] });
    }
    expect(new Set(sent).size).toBe(1);
    expect(sent[0]).toContain('[Stored tool result]');
    expect(await offload.store.list('chat-1')).toHaveLength(1);
    expect(await offload.store.evictions('chat-1')).toEqual([]);
    expect(events.map((e) => e.type)).toEqual(['offloaded']);
    // A new offload over the same store (a reload) answers the same.
    const reloaded = new ToolOutputOffload({ store: offload.store });
    const again = await convertToModelMessages(messages, {
      tools: withOffload(reloaded, { fetch_page: fetchPage }, { threadId: 'chat-1' }).tools,
    });
    expect(toolResultsIn(again as never)[0]).toMatchObject({ output: { type: 'text', value: sent[0] } });
  });

  it('an evicted result converted again is not stored again, keeps its text, and reading it says evicted', async () => {
    const offload = offloadOnIndexedDb({ maxTotalBytes: 400_000 });
    const { tools } = withOffload(offload, { fetch_page: fetchPage }, { threadId: 'chat-1' });
    const part = (id: string, url: string) => ({
      type: 'tool-fetch_page' as const,
      toolCallId: id,
      state: 'output-available' as const,
      input: { url },
      output: bigPage(url),
    });
    const first: UIMessage[] = [
      { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Read a' }] },
      { id: 'a1', role: 'assistant', parts: [part('call-a', 'a')] },
    ];
    const textOf = async (messages: UIMessage[], id: string) => {
      const converted = await convertToModelMessages(messages, { tools });
      return shownText(converted as never, id);
    };
    const before = await textOf(first, 'call-a');
    const both: UIMessage[] = [...first, { id: 'a2', role: 'assistant', parts: [part('call-b', 'b')] }];
    await textOf(both, 'call-b');
    expect((await offload.store.evictions('chat-1')).map((e) => e.path)).toEqual([pathIn(before)]);
    expect(await textOf(both, 'call-a')).toBe(before);
    expect((await offload.store.list('chat-1')).map((e) => e.path)).toEqual([pathIn(await textOf(both, 'call-b'))]);
    expect(await offload.store.evictions('chat-1')).toHaveLength(1);
    await expect(
      tools.read_file.execute!({ path: pathIn(before) }, { toolCallId: 'r', messages: [] } as never),
    ).rejects.toThrow(/evicted/);
  });

  it("a tool's own toModelOutput runs first and composes: its text is offloaded, its media kept after", async () => {
    const offload = offloadOnIndexedDb();
    const screenshot = tool({
      description: 'Screenshot and page text',
      inputSchema: z.object({ url: z.string() }),
      execute: async ({ url }) => ({ body: bigPage(url), png: 'iVBORw0KGgo=' }),
      toModelOutput: ({ output }) => ({
        type: 'content',
        value: [
          { type: 'text', text: output.body },
          { type: 'file', mediaType: 'image/png', data: { type: 'data', data: output.png } },
        ],
      }),
    });
    const { tools } = withOffload(offload, { screenshot }, { threadId: 't' });
    const output = await tools.screenshot.toModelOutput!({
      toolCallId: 'c1',
      input: { url: 'shot' },
      output: { body: bigPage('shot'), png: 'iVBORw0KGgo=' },
    });
    expect(output).toMatchObject({
      type: 'content',
      value: [
        { type: 'text', text: expect.stringContaining('[Stored tool result]') },
        { type: 'file', mediaType: 'image/png', data: { type: 'data', data: 'iVBORw0KGgo=' } },
      ],
    });
    const [entry] = await offload.store.list('t');
    expect(await offload.store.read('t', entry!.key)).toBe(bigPage('shot'));
  });

  it('json over the threshold is stored one record a line (O14); errors are stored and stay errors (O16); small outputs pass as the SDK sends them', async () => {
    const offload = offloadOnIndexedDb();
    const rows = Array.from({ length: 4000 }, (_, i) => ({ id: i, name: `row ${i}` }));
    const lookup = tool({ description: 'rows', inputSchema: z.object({}), execute: async () => rows });
    const failing = tool({
      description: 'fails',
      inputSchema: z.object({}),
      execute: async () => ({ problem: 'x'.repeat(200_000) }),
      toModelOutput: ({ output }) => ({ type: 'error-json', value: output }),
    });
    const noisy = tool({
      description: 'noisy error',
      inputSchema: z.object({}),
      execute: async () => 'e'.repeat(200_000),
      toModelOutput: ({ output }) => ({ type: 'error-text', value: output }),
    });
    const small = tool({
      description: 'small',
      inputSchema: z.object({}),
      execute: async () => ({ ok: true, at: undefined }),
    });
    const { tools } = withOffload(offload, { lookup, failing, noisy, small }, { threadId: 't' });
    const call = { toolCallId: 'c1', input: {} };

    const json = await tools.lookup.toModelOutput!({ ...call, output: rows });
    expect(json).toMatchObject({ type: 'text', value: expect.stringContaining('[Stored tool result]') });
    const read = await tools.read_file.execute!(
      { path: pathIn((json as { value: string }).value), offset: 1, limit: 4 },
      { toolCallId: 'r', messages: [] } as never,
    );
    const path = pathIn((json as { value: string }).value);
    expect(read).toBe(
      `${[0, 1, 2, 3].map((i) => `${String(i + 2).padStart(6)}\t {"id":${i},"name":"row ${i}"},`).join('\n')}\n[lines 2-5 of 4002; continue with read_file {"path":"${path}","offset":5,"limit":2450}]`,
    );

    const errors = [
      await tools.failing.toModelOutput!({ ...call, toolCallId: 'f', output: { problem: 'x'.repeat(200_000) } }),
      await tools.noisy.toModelOutput!({ ...call, toolCallId: 'n', output: 'e'.repeat(200_000) }),
    ];
    // error-json is stored as the provider is sent it, laid out like any JSON.
    expect((errors[0] as { value: string }).value).toContain('Format: JSON');
    for (const output of errors) {
      expect(output.type).toBe('error-text');
      const value = (output as { value: string }).value;
      expect(value.length).toBeLessThanOrEqual(20_000 * 4);
      expect(value).toMatch(/^\[Stored tool result\]/);
    }
    expect(await tools.small.toModelOutput!({ ...call, output: { ok: true, at: undefined } })).toEqual({
      type: 'json',
      value: { ok: true },
    });
    expect(await tools.noisy.toModelOutput!({ ...call, output: 'short' })).toEqual({
      type: 'error-text',
      value: 'short',
    });
    expect((await offload.store.list('t')).map((e) => e.toolName)).toEqual(['lookup', 'failing', 'noisy']);
  });

  it('an error a tool throws over the threshold is stored, reaches the model as an error naming it, and the run goes on', async () => {
    const offload = offloadOnIndexedDb();
    const huge = new Error(`upstream said: ${'<html>'.repeat(40_000)}`);
    const flaky = tool({
      description: 'fails loudly',
      inputSchema: z.object({}),
      execute: async (): Promise<string> => {
        throw huge;
      },
    });
    const { tools } = withOffload(offload, { flaky }, { threadId: 't' });
    const model = scriptedAiModel([{ toolCalls: [{ id: 'c1', name: 'flaky', input: {} }] }, { text: 'ok' }]);
    const result = await generateText({ model, tools, prompt: 'go', stopWhen: stepCountIs(3) });
    expect(result.text).toBe('ok');
    const [sent] = toolResultsIn(model.prompts[1]!);
    expect(sent!.output.type).toBe('error-text');
    const text = (sent!.output as { value: string }).value;
    expect(text.length).toBeLessThanOrEqual(20_000 * 4);
    expect(text).toMatch(/^\[Stored tool result\][\s\S]*\nupstream said: <html>/);
    const error = result.steps[0]!.content.find((part) => part.type === 'tool-error') as { error: Error } | undefined;
    expect(error?.error.cause).toBe(huge);
    const [entry] = await offload.store.list('t');
    expect(await offload.store.read('t', entry!.key)).toBe(huge.message);
  });

  it('rejects bad arguments with errors that name them, and a tool name the read tools would take', () => {
    const offload = new ToolOutputOffload({ store: offloadOnIndexedDb().store });
    expect(() => withOffload({} as never, {}, { threadId: 't' })).toThrow(/first argument must be a ToolOutputOffload/);
    expect(() => withOffload(offload, [] as never, { threadId: 't' })).toThrow(/tools must be an object/);
    expect(() => withOffload(offload, {}, {} as never)).toThrow(/options.threadId must be a non-empty string/);
    expect(() => withOffload(offload, {}, { threadId: 't', onEvent: 1 as never })).toThrow(
      /onEvent must be a function/,
    );
    expect(() => withOffload(offload, { grep: fetchPage }, { threadId: 't' })).toThrow(
      /already has a tool named "grep"/,
    );
    expect(() => withOffload(offload, {}, 't' as never)).toThrow(/options must be an object/);
  });

  it('rejects an unknown option name with a TypeError naming it and the options there are', () => {
    const offload = new ToolOutputOffload({ store: offloadOnIndexedDb().store });
    const misspelt = { threadId: 't', onevent: () => {} } as never;
    expect(() => withOffload(offload, {}, misspelt)).toThrow(TypeError);
    expect(() => withOffload(offload, {}, misspelt)).toThrow(
      'withOffload: unknown option "onevent"; the options are threadId, onEvent, prepareStep',
    );
    expect(() => withOffload(offload, {}, { threadId: 't', a: 1, b: 2 } as never)).toThrow(/unknown option "a", "b"/);
  });
});

/** Rows of nested JSON: compact about 93 bytes a row, pretty-printed about 2.4 times that. */
function rows(count: number) {
  return Array.from({ length: count }, (_, i) => ({
    id: i,
    tags: ['a', 'b', 'c'],
    geo: { lat: i, lng: -i - 1 },
    meta: { seen: { by: [i] } },
  }));
}

describe('withOffload: JSON is measured as the SDK sends it', () => {
  const lookupOf = (value: unknown) =>
    tool({ description: 'Look rows up', inputSchema: z.object({}), execute: async () => value });
  const lookupOnce = () =>
    scriptedAiModel([{ toolCalls: [{ id: 'call-1', name: 'lookup', input: {} }] }, { text: 'done' }]);

  it('a 2.3 KB JSON (about 570 tokens as sent) under a 1000-token threshold reaches the model unchanged', async () => {
    const offload = offloadOnIndexedDb({ thresholdTokens: 1000 });
    const value = rows(27);
    expect(JSON.stringify(value).length).toBeGreaterThan(2000);
    expect(JSON.stringify(value, null, 2).length).toBeGreaterThan(4000); // over the threshold pretty-printed
    const events: OffloadEvent[] = [];
    const { tools } = withOffload(
      offload,
      { lookup: lookupOf(value) },
      { threadId: 't', onEvent: (e) => events.push(e) },
    );
    const model = lookupOnce();
    const result = await generateText({ model, tools, prompt: 'go', stopWhen: stepCountIs(3) });
    expect(result.text).toBe('done');
    expect(toolResultsIn(model.prompts[1]!)[0]!.output).toEqual({ type: 'json', value });
    expect(await offload.store.list('t')).toEqual([]);
    expect(events).toEqual([]);
  });

  it('a 287 KB JSON (681 KB pretty-printed) with maxResultBytes 400_000 is stored whole, one record a line', async () => {
    const offload = offloadOnIndexedDb({ maxResultBytes: 400_000 });
    const value = rows(3100);
    const compact = JSON.stringify(value);
    expect(compact.length).toBeGreaterThan(285_000);
    expect(JSON.stringify(value, null, 2).length).toBeGreaterThan(400_000);
    const { tools } = withOffload(offload, { lookup: lookupOf(value) }, { threadId: 't' });
    const model = scriptedAiModel([
      { toolCalls: [{ id: 'call-1', name: 'lookup', input: {} }] },
      (prompt) => ({
        toolCalls: [
          {
            id: 'call-2',
            name: 'read_file',
            input: { path: pathIn(shownText(prompt, 'call-1')), offset: 1, limit: 6 },
          },
        ],
      }),
      { text: 'done' },
    ]);
    await generateText({ model, tools, prompt: 'go', stopWhen: stepCountIs(4) });
    const shown = shownText(model.prompts[1]!, 'call-1');
    expect(shown).toContain('[Stored tool result]');
    const [entry] = await offload.store.list('t');
    expect(entry).toMatchObject({ path: pathIn(shown), truncated: false });
    const stored = await offload.store.read('t', entry!.key);
    expect(JSON.parse(stored!)).toEqual(value);
    const lines = stored!.split('\n');
    expect(lines.length).toBe(3102); // one record a line: grep returns a record, read_file pages records
    expect(shownText(model.prompts[2]!, 'call-2')).toBe(
      [0, 1, 2, 3, 4, 5]
        .map((i) => `${String(i + 2).padStart(6)}\t ${JSON.stringify(value[i])},`)
        .join('\n')
        .concat(
          `\n[lines 2-7 of ${lines.length}; continue with read_file {"path":"${entry!.path}","offset":7,"limit":2450}]`,
        ),
    );
  });

  it('stores the compact form whole when only it fits maxResultBytes, and cuts it (never a laid-out form) when even it does not', async () => {
    const value = rows(3100);
    const compact = JSON.stringify(value);
    const call = { toolCallId: 'c1', input: {}, output: value };
    const cases = [
      { maxResultBytes: compact.length + 100, stored: compact, truncated: false },
      { maxResultBytes: 200_000, stored: compact.slice(0, 200_000), truncated: true },
    ];
    for (const { maxResultBytes, stored, truncated } of cases) {
      const offload = offloadOnIndexedDb({ maxResultBytes });
      const { tools } = withOffload(offload, { lookup: lookupOf(value) }, { threadId: 't' });
      await tools.lookup.toModelOutput!(call);
      const [entry] = await offload.store.list('t');
      expect(entry).toMatchObject({ truncated, bytes: stored.length, originalBytes: compact.length });
      expect(await offload.store.read('t', entry!.key)).toBe(stored);
    }
  });
});

describe.each(failingStores)('withOffload over $name', (failing) => {
  it('the run completes: the result is cut with a note saying why, and onEvent says it could not be stored', async () => {
    const { store, cleanup } = await failing.open();
    try {
      const offload = new ToolOutputOffload({ store });
      const events: OffloadEvent[] = [];
      const { tools } = withOffload(
        offload,
        { fetch_page: fetchPage },
        { threadId: 'chat-1', onEvent: (e) => events.push(e) },
      );
      const model = scriptedAiModel([
        { toolCalls: [{ id: 'call-1', name: 'fetch_page', input: { url: 'docs' } }] },
        { text: 'done' },
      ]);
      const unhandled = await unhandledRejectionsOf(async () => {
        const result = await generateText({ model, tools, prompt: 'Read docs', stopWhen: stepCountIs(3) });
        expect(result.text).toBe('done');
      });
      expect(unhandled).toEqual([]);
      const shown = shownText(model.prompts[1]!, 'call-1');
      expect(shown.startsWith(bigPage('docs').slice(0, 1000))).toBe(true);
      expect(shown).toMatch(/It could not be stored \(/);
      expect(shown).toMatch(failing.why);
      expect(shown).not.toContain('/large_tool_results/');
      expect(shown.length).toBeLessThanOrEqual(20_000 * 4);
      expect(events).toEqual([
        {
          type: 'offload-failed',
          threadId: 'chat-1',
          toolName: 'fetch_page',
          toolCallId: 'call-1',
          why: expect.stringMatching(failing.why),
        },
      ]);
    } finally {
      await cleanup();
    }
  });
});

describe('withOffload when one store call fails', () => {
  // Each call offloadResult makes, alone or with the one that follows it on the failure path.
  const failing = [['seen'], ['stage'], ['apply'], ['reportFailure'], ['apply', 'settle'], ['stage', 'reportFailure']];
  const how = ['reject', 'throw'] as const;
  it.each(failing.flatMap((only) => how.map((mode) => ({ only, mode, name: `${only.join(' + ')} (${mode})` }))))(
    '$name: a small and a large result both reach the model, and no rejection is left unhandled',
    async ({ only, mode }) => {
      // With an age limit, a call that stores nothing still updates the store (the expiry).
      const offload = new ToolOutputOffload({ store: brokenStore(mode, only), maxAgeMs: 60_000 });
      const small = tool({ description: 'small', inputSchema: z.object({}), execute: async () => 'a few words' });
      const events: OffloadEvent[] = [];
      const { tools } = withOffload(
        offload,
        { fetch_page: fetchPage, small },
        { threadId: 't', onEvent: (e) => events.push(e) },
      );
      const model = scriptedAiModel([
        {
          toolCalls: [
            { id: 'call-1', name: 'small', input: {} },
            { id: 'call-2', name: 'fetch_page', input: { url: 'docs' } },
          ],
        },
        { text: 'done' },
      ]);
      const unhandled = await unhandledRejectionsOf(async () => {
        const result = await generateText({ model, tools, prompt: 'go', stopWhen: stepCountIs(3) });
        expect(result.text).toBe('done');
      });
      expect(unhandled).toEqual([]);
      expect(shownText(model.prompts[1]!, 'call-1')).toBe('a few words');
      const large = shownText(model.prompts[1]!, 'call-2');
      if (only.includes('reportFailure') && only.length === 1) {
        // Only the failure log is broken: the result is stored as usual.
        expect(large).toContain('[Stored tool result]');
        expect(events.map((e) => e.type)).toEqual(['offloaded']);
      } else {
        expect(large).toMatch(
          /It could not be stored \(Error: the disk is on fire|It could not be stored \(the disk is on fire/,
        );
        expect(events).toMatchObject([
          { type: 'offload-failed', toolCallId: 'call-2', why: expect.stringContaining('the disk is on fire') },
        ]);
      }
    },
  );
});
