// The context budget (C1–C7) through the built-in runtime: OffloadMiddleware.wrapModelCall fits
// every model request; the scripted model records what it got. On both stores, in every engine.
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../lib/agent/create-agent.js';
import { mergedCallStub, mergedStub } from '../../lib/offload/words.js';
import { MemoryCheckpointer } from '../../lib/runtime/checkpoint.js';
import type { Message } from '../../lib/runtime/messages.js';
import { block, type Middleware } from '../../lib/runtime/middleware.js';
import type { Model, ModelRequest } from '../../lib/runtime/model.js';
import { joinText } from '../../lib/shared/content.js';
import type { WritableOffloadStore } from '../../lib/store/offload-store.js';
import { Summarization } from '../../lib/summarization/summarization.js';
import { scriptedModel } from '../../lib/testing.js';
import { mergedShown } from '../node/context-fixtures.js';
import {
  budgetAgent,
  calls,
  latestStep,
  linesOf,
  originalTexts,
  readBack,
  reply,
  requestTokens,
  resultTexts,
  toolMessagesOf,
} from './fixtures/context-builtin.js';
import { clearedOf, contextStores, deleteContextStores, keyOf, pathNamed, quarter } from './fixtures/context-stores.js';

afterEach(deleteContextStores);

type Call = [string, unknown];
const emit = (tag: string, lines = 20): Call => ['emit', { lines, tag }];

/** What one session showed: for each request, the results it sent as pointers (toolCallId → text). */
interface Shown {
  pointers: Array<Map<string, string>>;
}

/**
 * The rules every request of a thread keeps, checked against what the model got and the thread's
 * history: within the budget (C1, unless `over`), each result whole, its recorded pointer (at most
 * 60 tokens, C2; its path readable, C3) or, with `cut`, cut; a pointer the same in every later
 * request (C4); the newest `keep` results and the latest step's never cleared (C5).
 */
async function checkRequests(
  requests: readonly ModelRequest[],
  history: readonly Message[],
  store: WritableOffloadStore,
  threadId: string,
  { max, keep, over = false, cut = false }: { max: number; keep: number; over?: boolean; cut?: boolean },
): Promise<Shown> {
  const whole = resultTexts(history);
  const cleared = await clearedOf(store, threadId);
  const pointers: Shown['pointers'] = [];
  const firstShown = new Map<string, string>();
  /** How many times a merged result's text changed: once at most, into its block of fifty (C10). */
  const merges = new Map<string, number>();
  for (const [k, request] of requests.entries()) {
    if (!over) expect(requestTokens(request), `request ${k} over the budget`).toBeLessThanOrEqual(max);
    const shown = new Map<string, string>();
    const results = toolMessagesOf(request.messages);
    const protectedIds = new Set([
      ...results.slice(Math.max(0, results.length - keep)).map((m) => m.toolCallId),
      ...latestStep(request.messages).map((m) => m.toolCallId),
    ]);
    // C10: the oldest pointers merged, each path named by its block's listing.
    const merged = mergedShown(
      results.map((m) => ({ toolCallId: m.toolCallId, text: joinText(m.content) })),
      mergedStub,
    );
    const isMerged = (text: string | undefined) =>
      text === mergedStub || text === mergedCallStub || /^\[Cleared from context\] \d+ tool results/.test(text ?? '');
    for (const message of results) {
      const text = joinText(message.content);
      const id = message.toolCallId;
      if (isMerged(text)) {
        expect(protectedIds.has(id), `result ${id} merged in request ${k}, but it is protected (C5)`).toBe(false);
        expect(merged.paths.get(id), `result ${id}'s merged path (request ${k})`).toBe(cleared.get(id)?.path);
        expect(message.content).toHaveLength(1);
        // C4: its own pointer until its block is merged (or merged when first cleared), then merged in every
        // later request: in its block of ten, then in the block of fifty that takes the ten in (C10).
        if (isMerged(firstShown.get(id)) && text !== firstShown.get(id)) {
          merges.set(id, (merges.get(id) ?? 0) + 1);
          expect(merges.get(id), `result ${id} merged again in request ${k}`).toBe(1);
        }
        firstShown.set(id, text);
        shown.set(id, text);
        continue;
      }
      if (text === whole.get(id)) {
        expect(firstShown.has(id), `result ${id} shown whole after its pointer (request ${k})`).toBe(false);
        continue;
      }
      const record = cleared.get(id);
      if (record && text === record.pointer) {
        expect(protectedIds.has(id), `result ${id} cleared in request ${k}, but it is protected (C5)`).toBe(false);
        expect(quarter(text)).toBeLessThanOrEqual(60);
        expect(message.content).toHaveLength(1); // only the pointer: media dropped with it (C2)
        if (firstShown.has(id)) expect(text).toBe(firstShown.get(id)); // C4
        firstShown.set(id, text);
        shown.set(id, text);
        continue;
      }
      expect(cut, `result ${id} in request ${k} is neither whole nor its pointer: ${text.slice(0, 200)}`).toBe(true);
    }
    pointers.push(shown);
  }
  // Every path a pointer names is there to read (C3, C7).
  for (const record of cleared.values()) {
    if (record.path === undefined) continue;
    expect(pathNamed(record.pointer)).toBe(record.path);
    expect(typeof (await store.read(threadId, keyOf(record.path)))).toBe('string');
  }
  return { pointers };
}

/** The new pointers of each request: the toolCallIds cleared first there. */
function newlyCleared(shown: Shown): Array<string[]> {
  return shown.pointers.map((now, k) => [...now.keys()].filter((id) => !shown.pointers[k - 1]?.has(id)));
}

const eventsOf = <T extends RunEvent['type']>(events: readonly RunEvent[], type: T) =>
  events.filter((e): e is Extract<RunEvent, { type: T }> => e.type === type);

describe.each(contextStores)('the context budget in the built-in runtime, on $name', (kind) => {
  it('clears the oldest results from the request, never from the history, and keeps the newest (C1, C2, C3, C5)', async () => {
    const model = scriptedModel([...Array.from({ length: 10 }, (_, i) => calls(emit(`r${i}`))), reply()]);
    const store = kind.open();
    const { agent } = budgetAgent(model, { store, budget: { maxRequestTokens: 3000, keepRecentResults: 2 } });
    const result = await agent.run('go', { threadId: 'a' });
    expect(result.status).toBe('completed');

    // The history and the state keep every result whole.
    const originals = originalTexts(result.messages);
    for (const [id, text] of resultTexts(result.messages)) expect(text).toBe(originals.get(id));

    const shown = await checkRequests(model.requests, result.messages, store, 'a', { max: 3000, keep: 2 });
    // Clearing ran, and what it cleared is the oldest first: each request's pointers are its first results.
    expect(shown.pointers.at(-1)!.size).toBeGreaterThan(0);
    for (const [k, pointers] of shown.pointers.entries()) {
      const ids = toolMessagesOf(model.requests[k]!.messages).map((m) => m.toolCallId);
      expect([...pointers.keys()]).toEqual(ids.slice(0, pointers.size));
    }
    // A result under the threshold was stored when first cleared (C3): its path reads its text.
    const cleared = await clearedOf(store, 'a');
    for (const id of shown.pointers.at(-1)!.keys()) {
      const path = cleared.get(id)!.path!;
      expect(await store.read('a', keyOf(path))).toBe(originals.get(id));
    }

    // One event a clearing, naming the paths it cleared, from the request over the budget to one
    // within it, freeing at least clearAtLeastTokens (a quarter of 3000) (C1, C6).
    const clearings = newlyCleared(shown).filter((ids) => ids.length > 0);
    const events = eventsOf(result.events, 'context-cleared');
    expect(events).toHaveLength(clearings.length);
    for (const [i, event] of events.entries()) {
      expect(event.middleware).toBe('ToolOutputOffload');
      expect([...(event.paths as string[])].sort()).toEqual(clearings[i]!.map((id) => cleared.get(id)!.path).sort());
      expect(event.tokensBefore as number).toBeGreaterThan(3000);
      expect(event.tokensAfter as number).toBeLessThanOrEqual(3000);
      expect((event.tokensBefore as number) - (event.tokensAfter as number)).toBeGreaterThanOrEqual(750);
    }
    // Between clearings the request only grows at its end: the earlier one is its exact prefix.
    const fresh = newlyCleared(shown);
    for (let k = 1; k < model.requests.length; k++) {
      if (fresh[k]!.length > 0) continue;
      const before = model.requests[k - 1]!;
      const now = model.requests[k]!;
      expect(now.messages.slice(0, before.messages.length)).toEqual(before.messages);
      expect(now.systemPrompt).toBe(before.systemPrompt);
    }
  });

  it('clears a stored preview by its own path, dropping its image, and keeps both in the history (C2, C3)', async () => {
    const model = scriptedModel([
      calls(['emit', { lines: 100, image: true, tag: 'big' }]),
      ...Array.from({ length: 8 }, (_, i) => calls(emit(`s${i}`))),
      reply(),
    ]);
    const store = kind.open();
    const { agent } = budgetAgent(model, { store, budget: { maxRequestTokens: 3000, keepRecentResults: 2 } });
    const result = await agent.run('go', { threadId: 'a' });
    const [first] = toolMessagesOf(result.messages);
    const preview = joinText(first!.content);
    const path = pathNamed(preview)!;
    expect(first!.content.map((part) => part.type)).toEqual(['text', 'image']);

    const shown = await checkRequests(model.requests, result.messages, store, 'a', { max: 3000, keep: 2 });
    const pointer = shown.pointers.at(-1)!.get(first!.toolCallId);
    expect(pointer).toBeDefined();
    expect(pathNamed(pointer!)).toBe(path);
    expect(pointer).toMatch(/image/i); // says its image is not shown
    const sent = toolMessagesOf(model.requests.at(-1)!.messages)[0]!;
    expect(sent.content).toEqual([{ type: 'text', text: pointer }]);
    // Stored once, under its own path: clearing it stored nothing more.
    expect((await store.list('a')).filter((entry) => entry.path === path)).toHaveLength(1);
    expect(await store.read('a', keyOf(path))).toBe(linesOf(100, 80, 'big'));
  });

  it('names the call to repeat for a read_file page, and never stores the page (C3, O11)', async () => {
    const model = scriptedModel([
      calls(['emit', { lines: 100, tag: 'big' }]),
      (request) => calls(['read_file', { path: pathNamed(joinText(request.messages.at(-1)!.content)), limit: 18 }]),
      ...Array.from({ length: 8 }, (_, i) => calls(emit(`s${i}`))),
      reply(),
    ]);
    const store = kind.open();
    const { agent } = budgetAgent(model, { store, budget: { maxRequestTokens: 3000, keepRecentResults: 2 } });
    const result = await agent.run('go', { threadId: 'a' });
    const page = toolMessagesOf(result.messages)[1]!;
    expect(page.toolName).toBe('read_file');

    const shown = await checkRequests(model.requests, result.messages, store, 'a', { max: 3000, keep: 2 });
    const pointer = shown.pointers.at(-1)!.get(page.toolCallId)!;
    expect(pointer).toContain('read_file');
    expect(pointer).toContain(pathNamed(joinText(toolMessagesOf(result.messages)[0]!.content)));
    expect((await clearedOf(store, 'a')).get(page.toolCallId)!.path).toBeUndefined();
    const pageText = joinText(page.content);
    for (const entry of await store.list('a')) expect(await store.read('a', entry.key)).not.toBe(pageText);
  });

  it('shows the same pointers in every later request, also from a new agent and offload over the same store (C4)', async () => {
    const checkpointer = new MemoryCheckpointer();
    const store = kind.open();
    const budget = { maxRequestTokens: 3000, keepRecentResults: 2 };
    const first = scriptedModel([...Array.from({ length: 8 }, (_, i) => calls(emit(`r${i}`))), reply()]);
    await budgetAgent(first, { store, budget, checkpointer }).agent.run('one', { threadId: 'a' });
    const before = await clearedOf(store, 'a');
    const lastPointers = resultTexts(first.requests.at(-1)!.messages);
    expect(before.size).toBeGreaterThan(0);

    const second = scriptedModel([calls(emit('t0')), reply()]);
    const result = await budgetAgent(second, { store, budget, checkpointer }).agent.run('two', { threadId: 'a' });
    expect(result.status).toBe('completed');
    const shown = resultTexts(second.requests[0]!.messages);
    for (const [id, record] of before) {
      expect(lastPointers.get(id)).toBe(record.pointer);
      expect(shown.get(id)).toBe(record.pointer);
    }
    await checkRequests([...first.requests, ...second.requests], result.messages, store, 'a', { max: 3000, keep: 2 });
    // The records are the first clearing's, unchanged.
    const after = await clearedOf(store, 'a');
    for (const [id, record] of before) expect(after.get(id)).toEqual(record);
  });

  it('never clears excludeTools results nor the latest step’s, even over the budget (C5, C6)', async () => {
    const note = (tag: string): Call => ['note', { lines: 20, tag }];
    const model = scriptedModel([
      calls(note('n0')),
      calls(emit('e0')),
      calls(emit('e1')),
      calls(note('n1')),
      calls(emit('e2')),
      calls(emit('e3')),
      calls(emit('p0', 25), emit('p1', 25), emit('p2', 25)),
      reply(),
    ]);
    const store = kind.open();
    const budget = { maxRequestTokens: 3000, keepRecentResults: 0, excludeTools: ['note'] };
    const { agent } = budgetAgent(model, { store, budget });
    const result = await agent.run('go', { threadId: 'a' });
    expect(result.status).toBe('completed');
    const shown = await checkRequests(model.requests, result.messages, store, 'a', { max: 3000, keep: 0, over: true });
    // The last request: every emit before the latest step cleared, the notes and the latest step
    // whole, and so still over the budget: sent anyway, with an event.
    const last = model.requests.at(-1)!;
    const byTag = new Map(
      toolMessagesOf(last.messages).map((m) => [
        /^(\w+) 0 /.exec(originalTexts(result.messages).get(m.toolCallId)!)![1],
        m,
      ]),
    );
    for (const tag of ['e0', 'e1', 'e2', 'e3'])
      expect(shown.pointers.at(-1)!.has(byTag.get(tag)!.toolCallId)).toBe(true);
    const whole = resultTexts(result.messages);
    for (const tag of ['n0', 'n1', 'p0', 'p1', 'p2']) {
      const message = byTag.get(tag)!;
      expect(joinText(message.content)).toBe(whole.get(message.toolCallId));
    }
    expect(requestTokens(last)).toBeGreaterThan(3000);
    const over = eventsOf(result.events, 'context-over-budget');
    expect(over).toHaveLength(1);
    expect(over[0]).toMatchObject({ threadId: 'a', budget: 3000 });
    for (let k = 0; k < model.requests.length - 1; k++)
      expect(requestTokens(model.requests[k]!)).toBeLessThanOrEqual(3000);
  });

  it('sends results whose calls have no id as they are (nothing to record their clearing under), and the run goes on', async () => {
    const model = scriptedModel([
      ...Array.from({ length: 8 }, (_, i) => calls(['emit', { lines: 20, tag: `r${i}` }, ''])),
      reply(),
    ]);
    const store = kind.open();
    const { agent } = budgetAgent(model, { store, budget: { maxRequestTokens: 3000, keepRecentResults: 0 } });
    const result = await agent.run('go', { threadId: 'a' });
    expect(result.status).toBe('completed');
    const originals = toolMessagesOf(result.messages).map((m) => joinText(m.content));
    for (const request of model.requests) {
      const sent = toolMessagesOf(request.messages).map((m) => joinText(m.content));
      expect(sent).toEqual(originals.slice(0, sent.length));
    }
    expect(requestTokens(model.requests.at(-1)!)).toBeGreaterThan(3000);
    expect(eventsOf(result.events, 'context-over-budget').length).toBeGreaterThan(0);
    expect(eventsOf(result.events, 'context-cleared')).toEqual([]);
  });

  it('cuts every preview to its header when clearing all it may is not enough (C6)', async () => {
    const model = scriptedModel([...Array.from({ length: 5 }, (_, i) => calls(emit(`big${i}`, 100))), reply()]);
    const store = kind.open();
    const { agent } = budgetAgent(model, { store, budget: { maxRequestTokens: 2000, keepRecentResults: 10 } });
    const result = await agent.run('go', { threadId: 'a' });
    expect(result.status).toBe('completed');
    await checkRequests(model.requests, result.messages, store, 'a', { max: 2000, keep: 10, cut: true });
    const previews = resultTexts(result.messages);
    const last = model.requests.at(-1)!;
    for (const message of toolMessagesOf(last.messages)) {
      const cut = joinText(message.content);
      const preview = previews.get(message.toolCallId)!;
      expect(cut.length).toBeLessThan(preview.length);
      expect(pathNamed(cut)).toBe(pathNamed(preview));
      expect(cut).not.toMatch(/big\d 0 \./); // none of its lines, only the header
    }
    expect(await clearedOf(store, 'a')).toEqual(new Map());
    expect(eventsOf(result.events, 'context-cleared')).toEqual([]);
    expect(eventsOf(result.events, 'context-over-budget')).toEqual([]);
  });

  it('sends a request still over the budget, says so in an event, and the run goes on (C6)', async () => {
    const model = scriptedModel([calls(emit('r0')), reply()]);
    const store = kind.open();
    const { agent } = budgetAgent(model, {
      store,
      budget: { maxRequestTokens: 2000 },
      systemPrompt: 'Be brief. '.repeat(900),
    });
    const result = await agent.run('go', { threadId: 'a' });
    expect(result.status).toBe('completed');
    const events = eventsOf(result.events, 'context-over-budget');
    expect(events).toHaveLength(2);
    for (const [k, event] of events.entries()) {
      expect(event).toMatchObject({ middleware: 'ToolOutputOffload', threadId: 'a', budget: 2000 });
      // The request's estimate as C1 measures it (the offload may count a separator more or less).
      expect(Math.abs((event.tokens as number) - requestTokens(model.requests[k]!))).toBeLessThan(10);
    }
  });

  it('an output Block takes back the turn’s clearings and what it stored for them; the next request clears as without it (C7)', async () => {
    const guard: Middleware = {
      name: 'OutputGuard',
      afterAgent: (output) => (joinText(output.content).includes('SECRET') ? block('leak') : undefined),
    };
    const model = scriptedModel([
      ...Array.from({ length: 5 }, (_, i) => calls(emit(`one${i}`))),
      reply('fine'),
      ...Array.from({ length: 3 }, (_, i) => calls(emit(`two${i}`))),
      reply('SECRET'),
      calls(emit('three0')),
      reply('done'),
    ]);
    const store = kind.open();
    const { agent } = budgetAgent(model, {
      store,
      budget: { maxRequestTokens: 3000, keepRecentResults: 2 },
      outer: [guard],
    });
    await agent.run('one', { threadId: 'a' });
    expect(await clearedOf(store, 'a')).toEqual(new Map());
    const afterOne = await store.list('a');

    expect((await agent.run('two', { threadId: 'a' })).status).toBe('blocked');
    // Turn two cleared (its requests had pointers), and it is all taken back.
    const turnTwo = model.requests.slice(6, 10);
    const pointed = (request: ModelRequest) =>
      toolMessagesOf(request.messages).some((m) => pathNamed(joinText(m.content)));
    expect(turnTwo.some(pointed)).toBe(true);
    expect(await clearedOf(store, 'a')).toEqual(new Map());
    expect(await store.list('a')).toEqual(afterOne);

    const third = await agent.run('three', { threadId: 'a' });
    expect(third.status).toBe('completed');
    const turnThree = model.requests.slice(10);
    const ids = new Set(toolMessagesOf(third.messages).map((m) => m.toolCallId));
    // Nothing of the blocked turn is in the thread or its records; what turn three cleared reads back.
    for (const request of turnThree)
      for (const m of toolMessagesOf(request.messages)) expect(ids.has(m.toolCallId)).toBe(true);
    const shown = await checkRequests(turnThree, third.messages, store, 'a', { max: 3000, keep: 2 });
    expect(shown.pointers.at(-1)!.size).toBeGreaterThan(0);
    for (const id of (await clearedOf(store, 'a')).keys()) expect(ids.has(id)).toBe(true);
  });

  it('a 100-step session: every request within the budget, every pointer read back to its result’s text with read_file (C1–C4)', async () => {
    const lines = (i: number) => (i % 4 === 0 ? 100 : 4 + ((i * 7) % 17));
    const model = scriptedModel([...Array.from({ length: 100 }, (_, i) => calls(emit(`s${i}`, lines(i)))), reply()]);
    const store = kind.open();
    const { agent, readFile } = budgetAgent(model, { store, budget: { maxRequestTokens: 8000 }, maxSteps: 200 });
    const result = await agent.run('go', { threadId: 'a' });
    expect(result.status).toBe('completed');
    expect(model.requests).toHaveLength(101);
    const shown = await checkRequests(model.requests, result.messages, store, 'a', { max: 8000, keep: 3 });
    const everCleared = new Set(shown.pointers.flatMap((pointers) => [...pointers.keys()]));
    expect(everCleared.size).toBeGreaterThan(50);
    const originals = originalTexts(result.messages);
    const cleared = await clearedOf(store, 'a');
    for (const id of everCleared) {
      const path = cleared.get(id)!.path!;
      expect(await readBack(readFile, 'a', path), `${path} (${id})`).toBe(originals.get(id));
    }
  }, 600_000);

  it('stacks under Summarization: [summarization, offload] keeps every request within the budget, and the summarizer reads results, not pointers', async () => {
    const summarizerRequests: ModelRequest[] = [];
    const summarizer: Model = async (request) => {
      summarizerRequests.push(structuredClone(request));
      return { content: `summary ${summarizerRequests.length}` };
    };
    const summarization = new Summarization({
      model: summarizer,
      triggerTokens: 4000,
      keepMessages: 4,
      estimateTokens: quarter,
    });
    const model = scriptedModel([...Array.from({ length: 14 }, (_, i) => calls(emit(`r${i}`))), reply()]);
    const store = kind.open();
    const { agent } = budgetAgent(model, {
      store,
      budget: { maxRequestTokens: 3000, keepRecentResults: 2 },
      outer: [summarization],
    });
    const result = await agent.run('go', { threadId: 'a' });
    expect(result.status).toBe('completed');
    expect(eventsOf(result.events, 'summarized').length).toBeGreaterThan(0);
    expect(eventsOf(result.events, 'context-cleared').length).toBeGreaterThan(0);
    for (const request of model.requests) expect(requestTokens(request)).toBeLessThanOrEqual(3000);
    // The summarizer got the results themselves (the history), never the offload's pointers.
    const cleared = [...(await clearedOf(store, 'a')).values()];
    for (const request of summarizerRequests) {
      const text = JSON.stringify(request.messages);
      for (const record of cleared) expect(text).not.toContain(JSON.stringify(record.pointer).slice(1, -1));
    }
    expect(JSON.stringify(summarizerRequests[0]!.messages)).toContain('r0 0 ');
    // A pointer is the same in every request that still carries the result.
    const seen = new Map<string, string>();
    for (const request of model.requests) {
      for (const message of toolMessagesOf(request.messages)) {
        const text = joinText(message.content);
        const record = cleared.find((r) => r.toolCallId === message.toolCallId);
        if (!record || text !== record.pointer) continue;
        expect(seen.get(message.toolCallId) ?? text).toBe(text);
        seen.set(message.toolCallId, text);
      }
    }
  });
});
