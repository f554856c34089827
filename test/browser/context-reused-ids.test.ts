// A model that reuses one tool call id for every call (some local-model servers answer `call_1`
// every turn), with a context budget: each result is sent whole or as its own pointer, never as
// another result's, and the newest keepRecentResults whole (C4, C5; O2 for pointers). Through the
// core and each way in, on both stores, in every engine.

import { generateText, stepCountIs } from 'ai';
import { openDB } from 'idb';
import { AIMessage } from 'langchain';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { withOffload } from '../../adapters/ai-sdk/index.js';
import { type ContextMessage, IndexedDbOffloadStore } from '../../lib/index.js';
import { joinText } from '../../lib/shared/content.js';
import type { WritableOffloadStore } from '../../lib/store/offload-store.js';
import { scriptedModel } from '../../lib/testing.js';
import { applied, conversation, longSystem, request, type Step, textOf } from '../node/context-fixtures.js';
import { scriptedAiModel, toolResultsIn } from './fixtures/ai-sdk-model.js';
import { emitTool as aiEmitTool, budgetedOffload, sized } from './fixtures/context-ai-sdk-session.js';
import { budgetAgent, calls, linesOf, reply, toolMessagesOf } from './fixtures/context-builtin.js';
import { budgetAgent as langChainAgent, toolText } from './fixtures/context-langchain.js';
import { budgetOffload, contextStores, deleteContextStores, keyOf, pathNamed } from './fixtures/context-stores.js';
import { ask, fakeModel, thread } from './langchain-fixtures.js';

afterEach(deleteContextStores);

const reused = 'call_1';

/** One result of the thread, in its place: what the model is sent when it is shown as it is, and the text its path reads. */
interface Own {
  shown: string;
  whole: string;
  /** A file tool's page: its pointer names these arguments (O11), no path. */
  args?: unknown;
}

/**
 * Checks one request's results, in their order, against the thread's own results in theirs:
 * each is shown as it is (a preview perhaps cut to its header) or as a pointer naming its own path (reading it gives its own text) or,
 * for a page, its own call; the newest `keep` are shown as they are. The number of pointers.
 */
async function checkSent(
  sent: readonly string[],
  own: readonly Own[],
  store: WritableOffloadStore,
  threadId: string,
  keep: number,
): Promise<number> {
  let pointers = 0;
  for (const [i, text] of sent.entries()) {
    const result = own[i]!;
    if (text === result.shown) continue;
    // Its own preview cut to the header (C6: the request is over the budget): its first line and path.
    const preview = result.shown !== result.whole && pathNamed(result.shown) !== undefined;
    if (preview && pathNamed(text) === pathNamed(result.shown) && text.startsWith(result.shown.split('\n')[0]!)) {
      continue;
    }
    pointers++;
    expect(i, `result ${i} of ${sent.length} is among the newest ${keep}, but was replaced`).toBeLessThan(
      sent.length - keep,
    );
    if (result.args !== undefined) {
      expect(text, `result ${i}'s pointer names another call`).toContain(JSON.stringify(result.args));
      continue;
    }
    const path = pathNamed(text);
    expect(path, `result ${i} is neither itself nor a pointer: ${text.slice(0, 200)}`).toBeDefined();
    expect(await store.read(threadId, keyOf(path!)), `result ${i}'s pointer reads another result`).toBe(result.whole);
  }
  return pointers;
}

for (const kind of contextStores) {
  describe(`a model reusing one tool call id, on ${kind.name}`, () => {
    it('through fitContext: each result whole or its own pointer, the same from a new instance (C4)', async () => {
      const store = kind.open();
      const budget = { maxRequestTokens: 2400, keepRecentResults: 2 };
      const offload = budgetOffload(store, budget);
      const firstLarge = textOf(8000, 'first-large');
      const secondLarge = textOf(8000, 'second-large');
      const a = await offload.offloadResult({ threadId: 't', callId: reused, toolName: 'fetch', content: firstLarge });
      const f = await offload.offloadResult({ threadId: 't', callId: reused, toolName: 'fetch', content: secondLarge });
      expect(f.path).not.toBe(a.path); // O2: the reused id made its own path
      const own: Own[] = [
        { shown: a.text, whole: firstLarge },
        { shown: textOf(300, 'b'), whole: textOf(300, 'b') },
        { shown: textOf(300, 'page-1'), whole: '', args: { path: a.path, offset: 5 } },
        { shown: textOf(300, 'd'), whole: textOf(300, 'd') },
        { shown: textOf(300, 'page-2'), whole: '', args: { path: a.path, offset: 50 } },
        { shown: f.text, whole: secondLarge },
        { shown: textOf(300, 'g'), whole: textOf(300, 'g') },
        { shown: textOf(300, 'h'), whole: textOf(300, 'h') },
      ];
      const steps: Step[] = own.map((result, i) => ({
        id: reused,
        toolName: result.args === undefined ? 'fetch' : 'read_file',
        args: result.args ?? { n: i },
        text: result.shown,
      }));
      // The thread grows a step a request, as a session does: each request sees what the earlier cleared.
      let last: ContextMessage[] = [];
      let pointers = 0;
      for (let n = 1; n <= steps.length; n++) {
        const messages = conversation(steps.slice(0, n));
        const fitted = await offload.fitContext(request('t', messages, { system: longSystem }));
        const sent = applied(messages, fitted).flatMap((m) => (m.role === 'tool' ? [m.text] : []));
        pointers = await checkSent(sent, own, store, 't', budget.keepRecentResults);
        last = applied(messages, fitted);
      }
      expect(pointers).toBeGreaterThan(0); // clearing ran

      // Another instance over the same store sends the same (C4).
      const again = budgetOffload(store, budget);
      const messages = conversation(steps);
      const next = await again.fitContext(request('t', messages, { system: longSystem }));
      expect(applied(messages, next)).toEqual(last);
    });

    it('through the built-in runtime (scriptedModel answering call_1 every turn)', async () => {
      const model = scriptedModel([
        ...Array.from({ length: 10 }, (_, i) => calls(['emit', { lines: 20, tag: `r${i}` }, reused])),
        reply(),
      ]);
      const store = kind.open();
      const keep = 2;
      const { agent } = budgetAgent(model, { store, budget: { maxRequestTokens: 3000, keepRecentResults: keep } });
      const result = await agent.run('go', { threadId: 'a' });
      expect(result.status).toBe('completed');
      const own = Array.from({ length: 10 }, (_, i) => linesOf(20, 80, `r${i}`)).map((text) => ({
        shown: text,
        whole: text,
      }));
      let pointers = 0;
      for (const sent of model.requests) {
        const texts = toolMessagesOf(sent.messages).map((m) => joinText(m.content));
        pointers += await checkSent(texts, own, store, 'a', keep);
      }
      expect(pointers).toBeGreaterThan(0);
    });

    it("through the AI SDK's prepareStep (MockLanguageModelV4 answering call_1 every step)", async () => {
      const store = kind.open();
      const keep = 2;
      const offload = budgetedOffload(store, { maxRequestTokens: 6000, keepRecentResults: keep });
      const { tools, system, prepareStep } = withOffload(offload, { emit: aiEmitTool }, { threadId: 'chat' });
      const model = scriptedAiModel([
        ...[0, 1, 2, 3, 4, 5].map((i) => ({
          toolCalls: [{ id: reused, name: 'emit', input: { tag: `r${i}`, tokens: 2000 } }],
        })),
        { text: 'done' },
      ]);
      const run = await generateText({
        model,
        tools,
        prepareStep,
        instructions: `You are a test agent.\n${system}`,
        prompt: 'Emit six results.',
        stopWhen: stepCountIs(10),
      });
      expect(run.text).toBe('done');
      const own = [0, 1, 2, 3, 4, 5].map((i) => ({ shown: sized(`r${i}`, 2000), whole: sized(`r${i}`, 2000) }));
      let pointers = 0;
      for (const prompt of model.prompts) {
        const texts = toolResultsIn(prompt).map(({ output }) => (output.type === 'text' ? output.value : ''));
        pointers += await checkSent(texts, own, store, 'chat', keep);
      }
      expect(pointers).toBeGreaterThan(0);
    });

    it("through LangChain's offloadMiddleware (fakeModel answering call_1 every turn)", async () => {
      let model = fakeModel();
      for (let i = 0; i < 10; i++) {
        model = model.respond(
          () =>
            new AIMessage({
              content: '',
              tool_calls: [{ name: 'emit', args: { lines: 20, tag: `r${i}` }, id: reused, type: 'tool_call' }],
            }),
        );
      }
      model = model.respond(() => new AIMessage('done'));
      const store = kind.open();
      const keep = 2;
      const { agent, requests } = langChainAgent(model, {
        store,
        budget: { maxRequestTokens: 3000, keepRecentResults: keep },
      });
      await agent.invoke(ask(), thread('a'));
      const own = Array.from({ length: 10 }, (_, i) => linesOf(20, 80, `r${i}`)).map((text) => ({
        shown: text,
        whole: text,
      }));
      expect(requests).toHaveLength(11);
      let pointers = 0;
      for (const sent of requests) {
        const texts = sent.messages.filter((m) => m.type === 'tool').map((m) => toolText(m as never));
        pointers += await checkSent(texts, own, store, 'a', keep);
      }
      expect(pointers).toBeGreaterThan(0);
    });
  });
}

describe("IndexedDbOffloadStore keeps a page's text key, and checks it read back (S2)", () => {
  const page = (offset: number, seed: string): Step => ({
    id: reused,
    toolName: 'read_file',
    args: { path: '/large_tool_results/some-file', offset },
    text: textOf(1500, seed),
  });

  it('a new instance shows the page its pointer, never another page under the id; a damaged key is unreadable', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const store = contextStores[1]!.open() as IndexedDbOffloadStore;
      const budget = { maxRequestTokens: 2000, keepRecentResults: 0 };
      const first = conversation([page(5, 'first')]);
      const fitted = await budgetOffload(store, budget).fitContext(request('t', first, { system: longSystem }));
      const pointer = fitted.replacements.get(2)!.text;
      const [record] = await store.cleared('t');
      expect(record).toMatchObject({ pointer, textKey: expect.stringMatching(/^call_1-[A-Za-z0-9_-]{16}$/) });

      const reloaded = new IndexedDbOffloadStore({ name: store.name });
      const both = conversation([page(5, 'first'), page(5, 'second')]);
      const next = await budgetOffload(reloaded, budget).fitContext(request('t', both, { system: longSystem }));
      expect(next.replacements.get(2)?.text).toBe(pointer);
      expect(next.replacements.get(4)).toBeUndefined(); // the second page, as it is
      await reloaded.close();

      const database = await openDB(store.name);
      const raw = await database.get('cleared', ['t', reused]);
      await database.put('cleared', { ...raw, textKey: '<img src=x onerror=alert(1)>' });
      database.close();
      expect(await store.cleared('t')).toEqual([]);
      expect(await store.unreadable('t')).toEqual([
        { store: 'cleared', key: '["t","call_1"]', threadId: 't', reason: expect.stringMatching(/^textKey is /) },
      ]);
    } finally {
      warn.mockRestore();
    }
  });
});
