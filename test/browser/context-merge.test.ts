// 2,000 results of one parallel call, each cleared, through the core and each way in, over both
// stores, in every engine (C10): the oldest pointers merged, so the request fits 40,000 tokens (its
// 2,000 calls' arguments included; 2,000 pointers alone are about 76,000), every result still sent
// with its tool call id, every path named in a listing (or its own pointer) and read back to its
// result, and the next request sends the same merged texts (C4).

import { tool as aiTool, generateText, stepCountIs } from 'ai';
import {
  AIMessage,
  type BaseMessage,
  createAgent as createLangChainAgent,
  createMiddleware,
  tool as lcTool,
  ToolMessage,
} from 'langchain';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { withOffload } from '../../adapters/ai-sdk/index.js';
import { offloadMiddleware } from '../../adapters/langchain/index.js';
import { createAgent } from '../../lib/agent/create-agent.js';
import type { ContextMessage } from '../../lib/index.js';
import { mergedStub } from '../../lib/offload/words.js';
import type { Message } from '../../lib/runtime/messages.js';
import { tool } from '../../lib/runtime/tool.js';
import { joinText } from '../../lib/shared/content.js';
import type { WritableOffloadStore } from '../../lib/store/offload-store.js';
import { scriptedModel } from '../../lib/testing.js';
import { applied, ledgerOf, mergedShown } from '../node/context-fixtures.js';
import { scriptedAiModel, toolResultsIn } from './fixtures/ai-sdk-model.js';
import { budgetOffload, contextStores, deleteContextStores, keyOf } from './fixtures/context-stores.js';
import { fakeModel, thread } from './langchain-fixtures.js';

afterEach(deleteContextStores);

const count = 2000;
const maxRequestTokens = 40_000;
const budget = { maxRequestTokens };

/** Order `n`'s result: about 150 tokens, its own. */
const orderText = (n: number) =>
  Array.from({ length: 8 }, (_, line) =>
    `order ${n} line ${line}: shipped to Lisbon, total 99.50 EUR`.padEnd(75, '.'),
  ).join('\n');
const idOf = (n: number) => `c${n}`;
const nOf = (id: string) => Number(id.slice(1));

/** One request's tool results as the model was sent them, and the tool calls its assistant messages made. */
interface Sent {
  results: Array<{ toolCallId: string; text: string }>;
  calls: string[];
}

/**
 * Checks the request after the 2,000 results were answered (the model called once more), then the
 * next: within the budget by the offload's ledger, every call paired with its result, every result
 * but the newest 3 named by path (merged into listings but for the pointer room), each path reading
 * back its result, and the next request sending the same merged texts.
 */
async function checkMerged(store: WritableOffloadStore, threadId: string, requests: Sent[]) {
  const [, , merged, next] = requests;
  for (const sent of [merged!, next!]) {
    expect(sent.calls).toEqual(sent.results.map((result) => result.toolCallId)); // every call paired, in order
    const shown = mergedShown(sent.results, mergedStub);
    // The oldest, as far as the merged request needs; never the newest 3 (C5), which are sent as they are.
    const unnamed = sent.results.filter((r) => !shown.paths.has(r.toolCallId));
    expect(unnamed).toEqual(sent.results.slice(-unnamed.length));
    expect(unnamed.length).toBeGreaterThanOrEqual(3);
    expect(unnamed.length).toBeLessThan(count / 10);
    expect(unnamed.map((r) => r.text)).toEqual(unnamed.map((r) => orderText(nOf(r.toolCallId))));
    // In blocks of fifty, then of ten (C10); the few past the last block as their own pointers.
    expect(shown.listings).toBeGreaterThan(30);
    expect(shown.listings + shown.stubs + shown.pointers).toBe(shown.paths.size);
    expect(shown.pointers).toBeLessThan(10 + 10);
    expect(sent.results.slice(-3).map((r) => r.text)).toEqual(
      sent.results.slice(-3).map((r) => orderText(nOf(r.toolCallId))),
    );
    for (const [id, path] of shown.paths) expect(await store.read(threadId, keyOf(path))).toBe(orderText(nOf(id)));
  }
  // C4: every merged text again, in the same place.
  const isMerged = (text: string) => text === mergedStub || /^\[Cleared from context\] (50|10) tool results/.test(text);
  // A block of fifty is final; a block of ten may be taken into one of fifty (C10), and stays merged.
  const mergedTexts = merged!.results.filter((r) => isMerged(r.text));
  expect(mergedTexts.length).toBeGreaterThan(1500);
  let block = 0;
  for (const [i, result] of merged!.results.entries()) {
    if (!isMerged(result.text)) continue;
    block = Number(/^\[Cleared from context\] (\d+) /.exec(result.text)?.[1] ?? block);
    if (block === 50) expect(next!.results[i]).toEqual(result);
    else expect(isMerged(next!.results[i]!.text)).toBe(true);
  }
  // Within the budget, by the offload's own measure (the ledger records each request as sent).
  const ledger = await ledgerOf(store, threadId, requests.length);
  for (const record of ledger.slice(2)) {
    expect(record.budget).toBe(maxRequestTokens);
    expect(record.tokens).toBeLessThanOrEqual(maxRequestTokens);
  }
  expect(ledger[2]!.tokensWithoutOffload).toBeGreaterThan(300_000);
}

/** The model's script: 2,000 calls at once, then one more call twice (so the 2,000 are answered), then an answer. */
const script = [Array.from({ length: count }, (_, n) => n), [count], [count + 1]];

for (const kind of contextStores) {
  describe(`2,000 results merged, on ${kind.name}`, () => {
    it('through fitContext', async () => {
      const store = kind.open();
      const offload = budgetOffload(store, budget);
      const messages: ContextMessage[] = [{ role: 'user', text: 'Fetch every order.' }];
      const requests: Sent[] = [];
      /** One model call: the request fitted, as sent. */
      const send = async () => {
        const request = { threadId: 't', system: 'You fetch orders.', tools: [{ name: 'order' }], messages };
        const sent = applied(messages, await offload.fitContext(request));
        requests.push({
          results: sent.flatMap((m) => (m.role === 'tool' ? [{ toolCallId: m.toolCallId, text: m.text }] : [])),
          calls: sent.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []).map((call) => call.id) : [])),
        });
      };
      await send(); // the first model call, before any result
      for (const batch of script) {
        const toolCalls = batch.map((n) => ({ id: idOf(n), name: 'order', args: { n } }));
        messages.push({ role: 'assistant', text: '', toolCalls });
        for (const n of batch)
          messages.push({ role: 'tool', toolCallId: idOf(n), toolName: 'order', text: orderText(n) });
        await send();
      }
      await checkMerged(store, 't', requests);
    });

    it('through the built-in agent (scriptedModel)', async () => {
      const store = kind.open();
      const offload = budgetOffload(store, budget);
      const order = tool<{ n: number }>({
        name: 'order',
        description: 'Fetches one order.',
        parameters: {
          type: 'object',
          properties: { n: { type: 'integer' } },
          required: ['n'],
          additionalProperties: false,
        },
        execute: ({ n }) => orderText(n),
      });
      const model = scriptedModel([
        ...script.map((batch) => ({
          content: '',
          toolCalls: batch.map((n) => ({ id: idOf(n), name: 'order', args: { n } })),
        })),
        { content: 'done' },
      ]);
      const agent = createAgent({ model, tools: [order], middleware: [offload] });
      const result = await agent.run('Fetch every order.', { threadId: 'a' });
      expect(result.status).toBe('completed');
      const sentOf = (messages: readonly Message[]): Sent => ({
        results: messages.flatMap((m) =>
          m.role === 'tool' ? [{ toolCallId: m.toolCallId, text: joinText(m.content) }] : [],
        ),
        calls: messages.flatMap((m) => (m.role === 'assistant' ? m.toolCalls.map((call) => call.id) : [])),
      });
      await checkMerged(
        store,
        'a',
        model.requests.map((request) => sentOf(request.messages)),
      );
    }, 600_000);

    it("through the AI SDK's prepareStep (MockLanguageModelV4)", async () => {
      const store = kind.open();
      const offload = budgetOffload(store, budget);
      const order = aiTool({
        description: 'Fetches one order.',
        inputSchema: z.object({ n: z.number().int() }),
        execute: async ({ n }) => orderText(n),
      });
      const { tools, system, prepareStep } = withOffload(offload, { order }, { threadId: 'chat' });
      const model = scriptedAiModel([
        ...script.map((batch) => ({ toolCalls: batch.map((n) => ({ id: idOf(n), name: 'order', input: { n } })) })),
        { text: 'done' },
      ]);
      const run = await generateText({
        model,
        tools,
        prepareStep,
        instructions: `You fetch orders.\n${system}`,
        prompt: 'Fetch every order.',
        stopWhen: stepCountIs(10),
      });
      expect(run.text).toBe('done');
      const requests = model.prompts.map((prompt) => ({
        results: toolResultsIn(prompt).map((part) => ({
          toolCallId: part.toolCallId,
          text: part.output.type === 'text' ? part.output.value : `(${part.output.type})`,
        })),
        calls: prompt.flatMap((message) =>
          message.role === 'assistant'
            ? message.content.flatMap((part) => (part.type === 'tool-call' ? [part.toolCallId] : []))
            : [],
        ),
      }));
      await checkMerged(store, 'chat', requests);
    }, 600_000);

    it("through LangChain's offloadMiddleware (fakeModel)", async () => {
      const store = kind.open();
      const offload = budgetOffload(store, budget);
      const order = lcTool(({ n }) => orderText(n), {
        name: 'order',
        description: 'Fetches one order.',
        schema: z.object({ n: z.number().int() }),
      });
      let model = fakeModel();
      for (const batch of script) {
        model = model.respond(
          () =>
            new AIMessage({
              content: '',
              tool_calls: batch.map((n) => ({ name: 'order', args: { n }, id: idOf(n), type: 'tool_call' as const })),
            }),
        );
      }
      model = model.respond(() => new AIMessage('done'));
      const requests: BaseMessage[][] = [];
      const recorder = createMiddleware({
        name: 'recorder',
        wrapModelCall: (request, handler) => {
          requests.push([...request.messages]);
          return handler(request);
        },
      });
      const agent = createLangChainAgent({
        model,
        tools: [order],
        systemPrompt: 'You fetch orders.',
        middleware: [offloadMiddleware(offload), recorder],
      });
      await agent.invoke({ messages: [{ role: 'user', content: 'Fetch every order.' }] }, thread('a'));
      const textOf = (message: ToolMessage) =>
        typeof message.content === 'string'
          ? message.content
          : message.content
              .flatMap((block) => (block.type === 'text' ? [(block as { text: string }).text] : []))
              .join('\n');
      const sent = requests.map((messages) => ({
        results: messages.flatMap((m) =>
          ToolMessage.isInstance(m) ? [{ toolCallId: m.tool_call_id, text: textOf(m) }] : [],
        ),
        calls: messages.flatMap((m) => (AIMessage.isInstance(m) ? (m.tool_calls ?? []).map((call) => call.id!) : [])),
      }));
      await checkMerged(store, 'a', sent);
    }, 600_000);
  });
}
