// The AI SDK UI chat's way in (offloadChat, offloadChatRoute; A5): the SDK's own AbstractChat and
// DefaultChatTransport in the page, the route (streamText + toUIMessageStreamResponse with
// MockLanguageModelV4) run by the transport's fetch, over both stores. What the route received,
// what its model read back through the page's read_file, and the chat's own messages.
import { isToolUIPart, type UIMessage } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { type OffloadEvent, offloadChat } from '../../adapters/ai-sdk/index.js';
import { contextLedger } from '../../lib/context.js';
import { IndexedDbOffloadStore, ToolOutputOffload, type WritableOffloadStore } from '../../lib/index.js';
import { appTools, chatRoute, pageChat, pageText, readBackSteps, routeSystem } from './fixtures/ai-sdk-chat.js';
import { pathIn, scriptedAiModel } from './fixtures/ai-sdk-model.js';
import { contextStores, deleteContextStores } from './fixtures/context-stores.js';

afterEach(deleteContextStores);

const budget = 8000;

function pageOffload(store: WritableOffloadStore, previewLines?: number): ToolOutputOffload {
  return new ToolOutputOffload({
    ledger: contextLedger,
    store,
    thresholdTokens: 1000,
    contextBudget: { maxRequestTokens: budget },
    ...(previewLines ? { previewLines } : {}),
  });
}

/** The output (or error text) a body's messages carry for `toolCallId`. */
function sentOutput(body: { messages: UIMessage[] }, toolCallId: string): unknown {
  for (const message of body.messages) {
    for (const part of message.parts) {
      if (isToolUIPart(part) && part.toolCallId === toolCallId) {
        return part.state === 'output-error' ? part.errorText : part.output;
      }
    }
  }
  return undefined;
}

/** The chat's own output for `toolCallId`. */
const ownOutput = (messages: UIMessage[], toolCallId: string) => sentOutput({ messages }, toolCallId);

const lineOf = (page: string, n: number) => page.split('\n')[n - 1] as string;

for (const kind of contextStores) {
  describe(`an AI SDK UI chat with offloadChat on ${kind.name}`, () => {
    it('a 300 KB client-tool output goes to the route as its preview on every later request, reads back through the page, and survives a reload; every request within 8,000 tokens', async () => {
      const threadId = `chat-${crypto.randomUUID()}`;
      const store = kind.open();
      const page = pageText('docs', 300_000);
      expect(page.length).toBeGreaterThanOrEqual(300_000);
      const events: OffloadEvent[] = [];
      let readBack = '';
      const model = scriptedAiModel([
        { toolCalls: [{ id: 'page-1', name: 'read_page', input: { url: 'docs' } }] },
        ...readBackSteps('page-1', 'read-1', 2099, (read) => {
          readBack = read;
        }),
        { text: 'Still here.' },
      ]);
      const route = chatRoute(model, threadId);
      const chatOffload = offloadChat(pageOffload(store), {
        threadId,
        system: routeSystem,
        tools: appTools,
        onEvent: (event) => events.push(event),
      });
      const first = pageChat({ chatOffload, fetch: route.fetch, pages: { docs: page }, id: threadId });
      await first.chat.sendMessage({ text: 'What does the docs page say on line 2100?' });
      await first.settled();
      await first.chat.sendMessage({ text: 'Are you still there?' });
      await first.settled();

      // Four requests: the question, the page's output, the read's output, the second question.
      expect(route.bodies).toHaveLength(4);
      const preview = sentOutput(route.bodies[1]!, 'page-1');
      expect(typeof preview).toBe('string');
      const path = pathIn(preview as string);
      expect((preview as string).length).toBeLessThan(page.length / 20);
      for (const body of route.bodies.slice(1)) expect(sentOutput(body, 'page-1')).toBe(preview);
      expect(events.filter((event) => event.type === 'offloaded')).toEqual([
        { type: 'offloaded', threadId, toolName: 'read_page', toolCallId: 'page-1', path },
      ]);
      // The model read line 2100 back through the page's read_file, answered from the page's store.
      expect(readBack).toContain(lineOf(page, 2100));
      expect(readBack).not.toContain(lineOf(page, 2101));
      expect(sentOutput(route.bodies[2]!, 'read-1')).toBe(readBack);
      // The chat keeps the whole output for the UI.
      expect(ownOutput(first.chat.messages, 'page-1')).toBe(page);

      // A reload: a new offload and a new chat over the same store, with the messages the app kept.
      const kept = structuredClone(first.chat.messages);
      const reloadedModel = scriptedAiModel(
        readBackSteps('page-1', 'read-2', 9, (read) => {
          readBack = read;
        }),
      );
      const reloadedRoute = chatRoute(reloadedModel, threadId);
      const again = pageChat({
        chatOffload: offloadChat(pageOffload(store), { threadId, system: routeSystem, tools: appTools }),
        fetch: reloadedRoute.fetch,
        pages: { docs: page },
        messages: kept,
        id: threadId,
      });
      await again.chat.sendMessage({ text: 'And line 10?' });
      await again.settled();
      expect(reloadedRoute.bodies).toHaveLength(2);
      for (const body of reloadedRoute.bodies) expect(sentOutput(body, 'page-1')).toBe(preview);
      expect(readBack).toContain(lineOf(page, 10));
      expect(ownOutput(again.chat.messages, 'page-1')).toBe(page);

      // Every request the routes received, measured as the ledger measures it, is within the budget,
      // and is the request the page measured for its own ledger.
      const routeTokens = [...(await route.measured()), ...(await reloadedRoute.measured())].map((r) => r.tokens);
      expect(routeTokens).toHaveLength(6);
      for (const tokens of routeTokens) expect(tokens).toBeLessThanOrEqual(budget);
      const pageLedger = await store.requests!(threadId);
      expect(pageLedger.map((record) => record.tokens)).toEqual(routeTokens);
    });

    it('under an 8,000-token budget, twelve 300 KB outputs with 30-line previews: every request within it, old outputs sent as the same pointers, which read back', async () => {
      const threadId = `chat-${crypto.randomUUID()}`;
      const store = kind.open();
      const pages = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`p${i}`, pageText(`p${i}`, 300_000)]));
      let pointerRead = '';
      const steps: Parameters<typeof scriptedAiModel>[0] = [];
      for (let i = 0; i < 12; i++) {
        steps.push({ toolCalls: [{ id: `page-${i}`, name: 'read_page', input: { url: `p${i}` } }] });
        steps.push({ text: `Page ${i} read.` });
      }
      // Then the model reads the first page back from the pointer it was sent.
      steps.push(
        ...readBackSteps('page-0', 'read-0', 0, (read) => {
          pointerRead = read;
        }),
      );
      const model = scriptedAiModel(steps);
      const route = chatRoute(model, threadId);
      const events: OffloadEvent[] = [];
      const chatOffload = offloadChat(pageOffload(store, 30), {
        threadId,
        system: routeSystem,
        tools: appTools,
        onEvent: (event) => events.push(event),
      });
      const { chat, settled } = pageChat({ chatOffload, fetch: route.fetch, pages, id: threadId });
      for (let i = 0; i < 12; i++) {
        await chat.sendMessage({ text: `Read page p${i}.` });
        await settled();
      }
      await chat.sendMessage({ text: 'What is the first line of p0?' });
      await settled();

      expect(route.bodies).toHaveLength(26);
      const ledger = await route.measured();
      for (const record of ledger) expect(record.tokens).toBeLessThanOrEqual(budget);
      expect(events.some((event) => event.type === 'context-cleared')).toBe(true);
      expect(events.some((event) => event.type === 'context-over-budget')).toBe(false);
      // page-0's output: a preview first, then once cleared the same pointer in every later request (C4).
      const shown = route.bodies.map((body) => sentOutput(body, 'page-0')).filter((o) => o !== undefined) as string[];
      const firstPointer = shown.findIndex((text) => text !== shown[0]);
      expect(firstPointer).toBeGreaterThan(0);
      for (const text of shown.slice(firstPointer)) expect(text).toBe(shown[firstPointer]);
      expect(shown[firstPointer]!.length).toBeLessThan(400);
      expect(pointerRead).toContain(lineOf(pages.p0!, 1));
      for (let i = 0; i < 12; i++) expect(ownOutput(chat.messages, `page-${i}`)).toBe(pages[`p${i}`]);
    });
  });
}

describe('an AI SDK UI chat open in two tabs', () => {
  it('two offloads over one IndexedDB database send the same output as the same preview, stored once (A1)', async () => {
    const name = `ai-sdk-chat-tabs-${crypto.randomUUID()}`;
    const tabs = [new IndexedDbOffloadStore({ name }), new IndexedDbOffloadStore({ name })];
    try {
      const threadId = 'chat-tabs';
      const page = pageText('tabs', 300_000);
      const messages: UIMessage[] = [
        { id: 'u', role: 'user', parts: [{ type: 'text', text: 'Read the page.' }] },
        {
          id: 'a',
          role: 'assistant',
          parts: [{ type: 'tool-read_page', toolCallId: 'page-1', state: 'output-available', input: {}, output: page }],
        },
      ];
      const [first, second] = await Promise.all(
        tabs.map((store) =>
          offloadChat(pageOffload(store), { threadId, system: routeSystem, tools: appTools }).messagesToSend(messages),
        ),
      );
      const preview = sentOutput({ messages: first! }, 'page-1') as string;
      expect(preview.length).toBeLessThan(page.length / 20);
      expect(sentOutput({ messages: second! }, 'page-1')).toBe(preview);
      expect(await tabs[0]!.list(threadId)).toHaveLength(1);
      expect(ownOutput(messages, 'page-1')).toBe(page);
    } finally {
      await tabs[1]!.close();
      await tabs[0]!.deleteDatabase();
    }
  });
});
