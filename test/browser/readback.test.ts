// Every stored byte readable, in every way in (B5, O14–O16): long lines paged to their end by every
// read_file the package offers, over both stores; JSON laid out the same through the three ways in;
// text in file and document parts offloaded; errors offloaded and still errors.
import { AIMessage, ToolMessage } from '@langchain/core/messages';
import type { ClientTool } from '@langchain/core/tools';
import { createAgent, fakeModel, tool as langChainTool } from 'langchain';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { withOffload } from '../../adapters/ai-sdk/index.js';
import { offloadMiddleware } from '../../adapters/langchain/index.js';
import { createAgent as createBuiltInAgent, ToolOutcome, tool } from '../../lib/agent.js';
import { ToolOutputOffload } from '../../lib/index.js';
import type { ToolOutcome as Outcome } from '../../lib/runtime/outcome.js';
import { estimateTokens } from '../../lib/shared/text.js';
import { scriptedModel } from '../../lib/testing.js';
import { calls, reply } from '../node/offload-harness.js';
import { deleteContextStores, contextStores as stores } from './fixtures/context-stores.js';
import { reachedFraction, readBack, readers } from './fixtures/read-back.js';

afterEach(deleteContextStores);

const thread = 'chat-1';

/** Texts with lines far longer than a page: a minified script, one-line HTML, CRLF logs with a long line. */
function longLineTexts(): Record<string, string> {
  const script = Array.from({ length: 4000 }, (_, i) => `function f${i}(a){return a*${i}+"😀"}`).join(';');
  const html = `<html><body>${Array.from({ length: 3000 }, (_, i) => `<div class="row">item ${i}</div>`).join('')}</body></html>`;
  const logs = Array.from({ length: 800 }, (_, i) => (i === 400 ? `ERR ${'x'.repeat(50_000)}` : `line ${i} ok`)).join(
    '\r\n',
  );
  return { script, html, logs };
}

describe('long lines paged to the end (B5)', () => {
  for (const kind of stores) {
    it(`${kind.name}: every character of each stored text is reached by every read_file, following only the preview and each page`, async () => {
      const offload = new ToolOutputOffload({ store: kind.open(), thresholdTokens: 1000 });
      for (const [name, text] of Object.entries(longLineTexts())) {
        const shown = await offload.offloadResult({ threadId: thread, callId: name, toolName: name, content: text });
        expect(shown.kind).toBe('stored');
        const stored = await offload.store.read(thread, shown.path!.split('/').pop()!);
        for (const [reader, readFile] of Object.entries(readers(offload, thread))) {
          const read = await readBack(shown.text, readFile);
          expect(reachedFraction(stored, read), `${name} through ${reader}`).toBe(1);
          // Each page within the read tool's threshold (the offload's cut, O11) and the built-in page.
          for (const chars of read.pages) expect(chars).toBeLessThanOrEqual(5000 * 4);
          // About as many calls as pages of the threshold's size: every page full.
          expect(read.calls, `${name} through ${reader}`).toBeLessThanOrEqual(
            Math.ceil(estimateTokens(stored) / 900) + 2,
          );
        }
      }
    });
  }
});

/** A 2,000-order API response, as one line of JSON: what `fetch().text()` or JSON.stringify returns. */
const orders = {
  orders: Array.from({ length: 2000 }, (_, i) => ({
    id: i,
    status: i % 3 ? 'shipped' : 'open',
    customer: { name: `Customer ${i}`, email: `c${i}@example.com` },
    items: [{ sku: `SKU-${i}`, qty: (i % 5) + 1 }],
    total: 1.5,
  })),
  page: 1,
  next: 'cursor-2',
};
const ordersText = JSON.stringify(orders);

describe('JSON laid out the same through the three ways in (O14)', () => {
  for (const kind of stores) {
    it(`${kind.name}: the built-in agent, the AI SDK and LangChain store the same text, one record a line`, async () => {
      const store = kind.open();
      const offload = new ToolOutputOffload({ store, thresholdTokens: 1000 });
      const storedOf = async (threadId: string) => {
        const [entry] = await store.list(threadId);
        return { text: await store.read(threadId, entry!.key), preview: entry!.preview };
      };

      // The built-in agent: a tool returning the text.
      const api = tool({
        name: 'api',
        description: 'orders',
        parameters: { type: 'object' },
        execute: () => ordersText,
      });
      const agent = createBuiltInAgent({
        model: scriptedModel([calls(['api', {}, 'c1']), reply()]),
        tools: [api],
        middleware: [offload],
      });
      await agent.run('go', { threadId: 'built-in' });

      // The AI SDK: a JSON value (the default model output of a tool returning an object).
      const { tools } = withOffload(
        offload,
        { api: { inputSchema: z.object({}), execute: async () => orders } as never },
        { threadId: 'ai-sdk' },
      );
      const aiOutput = await (
        tools.api as { toModelOutput: (o: unknown) => Promise<{ type: string; value: string }> }
      ).toModelOutput({
        toolCallId: 'c1',
        input: {},
        output: JSON.parse(ordersText),
      });

      // LangChain: a tool returning the text.
      const lcTool = langChainTool(() => ordersText, { name: 'api', description: 'orders', schema: z.object({}) });
      const lcAgent = createAgent({
        model: fakeModel()
          .respondWithTools([{ name: 'api', args: {}, id: 'c1' }])
          .respond(new AIMessage('done')),
        tools: [lcTool],
        middleware: [offloadMiddleware(offload)],
      });
      await lcAgent.invoke(
        { messages: [{ role: 'user', content: 'go' }] },
        { configurable: { thread_id: 'langchain' } },
      );

      const builtIn = await storedOf('built-in');
      const aiSdk = await storedOf('ai-sdk');
      const langChain = await storedOf('langchain');
      expect(aiSdk.text).toBe(builtIn.text);
      expect(langChain.text).toBe(builtIn.text);
      // One record a line, valid JSON.
      const lines = builtIn.text.split('\n');
      expect(lines[0]).toBe('{');
      expect(lines[1]).toBe(' "orders": [');
      expect(lines[2]).toBe(`  ${JSON.stringify(orders.orders[0])},`);
      expect(lines).toHaveLength(2000 + 6);
      expect(JSON.parse(builtIn.text)).toEqual(JSON.parse(ordersText));
      // The preview shows the shape: it is JSON, how it was laid out, every top-level key, each array's length.
      for (const preview of [builtIn.preview, aiSdk.preview, langChain.preview, aiOutput.value]) {
        expect(preview).toContain('Format: JSON, stored one record a line');
        expect(preview).toContain('"orders": array(2000) of object {"id": number, "status": string');
        expect(preview).toContain('"page": number');
        expect(preview).toContain('"next": string');
      }
    });
  }
});

/** 40 KB of text, over a 1000-token threshold. */
const bigText = Array.from({ length: 500 }, (_, i) => `build step ${i}: ${'failed '.repeat(10)}`).join('\n');
const base64 = (text: string) => btoa(String.fromCharCode(...new TextEncoder().encode(text)));

/** A LangChain agent with the offload that calls `lcTool` once; the ToolMessage it kept. */
async function runLangChain(lcTool: ClientTool) {
  const offload = new ToolOutputOffload({ store: stores[0]!.open(), thresholdTokens: 1000 });
  const model = fakeModel()
    .respondWithTools([{ name: lcTool.name, args: {}, id: 'c1' }])
    .respond(new AIMessage('done'));
  const agent = createAgent({ model, tools: [lcTool], middleware: [offloadMiddleware(offload)] });
  const result = await agent.invoke(
    { messages: [{ role: 'user', content: 'go' }] },
    { configurable: { thread_id: thread } },
  );
  const message = result.messages.find((m) => ToolMessage.isInstance(m)) as ToolMessage;
  return { offload, model, message };
}

describe('documents and errors in LangChain (O15, O16)', () => {
  const blocks: Array<[string, unknown]> = [
    ['a text/plain file block (base64)', { type: 'file', mimeType: 'text/plain', data: base64(bigText) }],
    [
      'a base64 text document block',
      { type: 'document', source: { type: 'base64', media_type: 'text/plain', data: base64(bigText) } },
    ],
    ['a text-plain block of inline text', { type: 'text-plain', mimeType: 'text/plain', text: bigText }],
  ];
  for (const [name, block] of blocks) {
    it(`${name} counts and is offloaded; an image block stays`, async () => {
      const image = { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' };
      const lcTool = langChainTool(
        (_args, config) =>
          new ToolMessage({
            content: [block, image] as never,
            tool_call_id: (config as { toolCall: { id: string } }).toolCall.id,
          }),
        { name: 'fetch_doc', description: 'doc', schema: z.object({}) },
      );
      const { offload, message } = await runLangChain(lcTool);
      expect(message.text).toContain('[Stored tool result]');
      expect(estimateTokens(JSON.stringify(message.content))).toBeLessThan(1200);
      expect(message.content).toContainEqual(image);
      const [entry] = await offload.store.list(thread);
      expect(await offload.store.read(thread, entry!.key)).toBe(bigText);
    });
  }

  it('a ToolMessage with status "error" over the threshold is offloaded and stays an error', async () => {
    const lcTool = langChainTool(
      (_args, config) =>
        new ToolMessage({
          content: bigText,
          status: 'error',
          tool_call_id: (config as { toolCall: { id: string } }).toolCall.id,
        }),
      { name: 'build', description: 'build', schema: z.object({}) },
    );
    const { offload, model, message } = await runLangChain(lcTool);
    expect(message.status).toBe('error');
    expect(message.text).toContain('[Stored tool result]');
    expect(estimateTokens(message.text)).toBeLessThanOrEqual(1000);
    // What the model was sent at its second call is the preview, not the 40 KB error.
    const sent = model.calls[1]!.messages.find((m) => ToolMessage.isInstance(m)) as ToolMessage;
    expect(sent.text).toBe(message.text);
    const [entry] = await offload.store.list(thread);
    expect(await offload.store.read(thread, entry!.key)).toBe(bigText);
  });
});

describe('errors in the built-in agent and the AI SDK (O16)', () => {
  it('the built-in agent stores an error over the threshold; the tool message is still an error', async () => {
    const offload = new ToolOutputOffload({ store: stores[1]!.open(), thresholdTokens: 1000 });
    const build = tool({
      name: 'build',
      description: 'build',
      parameters: { type: 'object' },
      execute: (): Outcome => ToolOutcome.error(bigText),
    });
    const agent = createBuiltInAgent({
      model: scriptedModel([calls(['build', {}, 'c1']), reply()]),
      tools: [build],
      middleware: [offload],
    });
    await agent.run('go', { threadId: thread });
    const message = (await agent.messages(thread)).find((m) => m.role === 'tool')!;
    expect(message).toMatchObject({ role: 'tool', isError: true });
    const text = (message as { content: Array<{ text: string }> }).content[0]!.text;
    expect(text).toContain('[Stored tool result]');
    expect(estimateTokens(text)).toBeLessThanOrEqual(1000);
    const [entry] = await offload.store.list(thread);
    expect(await offload.store.read(thread, entry!.key)).toBe(bigText);
  });

  it('the AI SDK: error-text, error-json and a thrown error are stored and stay errors', async () => {
    const offload = new ToolOutputOffload({ store: stores[0]!.open(), thresholdTokens: 1000 });
    const failing = {
      inputSchema: z.object({}),
      execute: async () => {
        throw new Error(bigText);
      },
    };
    const { tools } = withOffload(offload, { build: failing as never }, { threadId: thread });
    const build = tools.build as unknown as {
      toModelOutput: (o: unknown) => Promise<{ type: string; value: string }>;
      execute: (input: unknown, options: unknown) => Promise<unknown>;
    };
    // What the model is sent for a tool whose own toModelOutput gives `output`.
    const shownFor = (output: unknown, toolCallId: string) => {
      const wrapped = withOffload(
        offload,
        { build: { ...failing, toModelOutput: () => output } as never },
        { threadId: thread },
      );
      return (wrapped.tools.build as unknown as typeof build).toModelOutput({ toolCallId, input: {}, output: null });
    };
    const errorText = await shownFor({ type: 'error-text', value: bigText }, 'e1');
    expect(errorText.type).toBe('error-text');
    expect(errorText.value).toContain('[Stored tool result]');
    const errorJson = await shownFor({ type: 'error-json', value: { log: bigText } }, 'e2');
    expect(errorJson.type).toBe('error-text');
    expect(errorJson.value).toContain('Format: JSON');
    const thrown = await build.execute({}, { toolCallId: 'e3', messages: [] }).catch((error: unknown) => error);
    expect(String(thrown)).toMatch(/^\[Stored tool result\]/);
    expect(estimateTokens(String(thrown))).toBeLessThanOrEqual(1000);
    expect(await offload.store.list(thread)).toHaveLength(3);
  });
});

describe('documents in the built-in agent and the AI SDK (O15)', () => {
  const image = { type: 'image' as const, mimeType: 'image/png', data: 'iVBORw0KGgo=' };

  it('the built-in agent: a text/plain file part counts and is offloaded; the image stays', async () => {
    const offload = new ToolOutputOffload({ store: stores[1]!.open(), thresholdTokens: 1000 });
    const fetchDoc = tool({
      name: 'fetch_doc',
      description: 'doc',
      parameters: { type: 'object' },
      execute: () => [{ type: 'file', mimeType: 'text/plain', data: base64(bigText) }, image],
    });
    const agent = createBuiltInAgent({
      model: scriptedModel([calls(['fetch_doc', {}, 'c1']), reply()]),
      tools: [fetchDoc],
      middleware: [offload],
    });
    await agent.run('go', { threadId: thread });
    const message = (await agent.messages(thread)).find((m) => m.role === 'tool') as {
      content: Array<{ type: string; text?: string }>;
    };
    expect(message.content).toHaveLength(2);
    expect(message.content[0]!.text).toContain('[Stored tool result]');
    expect(message.content[1]).toEqual(image);
    const [entry] = await offload.store.list(thread);
    expect(await offload.store.read(thread, entry!.key)).toBe(bigText);
  });

  it('the AI SDK: a text/plain file-data part and an inline text file count and are offloaded; the image stays', async () => {
    const offload = new ToolOutputOffload({ store: stores[0]!.open(), thresholdTokens: 1000 });
    const half = bigText.slice(0, bigText.length / 2);
    const rest = bigText.slice(bigText.length / 2);
    const output = {
      type: 'content',
      value: [
        { type: 'file-data', mediaType: 'text/plain', data: base64(half) },
        { type: 'image-data', mediaType: 'image/png', data: image.data },
        { type: 'file', mediaType: 'text/markdown', data: { type: 'text', text: rest } },
      ],
    };
    const { tools } = withOffload(
      offload,
      { fetch_doc: { inputSchema: z.object({}), execute: async () => 'x', toModelOutput: () => output } as never },
      { threadId: thread },
    );
    const shown = await (
      tools.fetch_doc as unknown as { toModelOutput: (o: unknown) => Promise<{ type: string; value: unknown[] }> }
    ).toModelOutput({ toolCallId: 'd1', input: {}, output: 'x' });
    expect(shown.type).toBe('content');
    expect(shown.value).toHaveLength(2);
    expect((shown.value[0] as { text: string }).text).toContain('[Stored tool result]');
    expect(shown.value[1]).toEqual(output.value[1]);
    const [entry] = await offload.store.list(thread);
    expect(await offload.store.read(thread, entry!.key)).toBe(`${half}\n${rest}`);
  });
});
