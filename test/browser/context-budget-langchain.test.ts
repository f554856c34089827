// The context budget (C1–C6) through LangChain.js: offloadMiddleware's wrapModelCall fits every model
// request of createAgent; a middleware inside it records what the model was handed. LangChain's
// fakeModel(), both stores, every engine. (C7 is the built-in runtime's: LangChain has no output Block.)
import { AIMessage, type BaseMessage, HumanMessage } from 'langchain';
import { afterEach, describe, expect, it } from 'vitest';
import type { OffloadEvent } from '../../adapters/langchain/index.js';
import type { WritableOffloadStore } from '../../lib/store/offload-store.js';
import {
  budgetAgent,
  latestStep,
  requestTokens,
  resultTexts,
  type SentRequest,
  toolMessagesOf,
  toolText,
} from './fixtures/context-langchain.js';
import { clearedOf, contextStores, deleteContextStores, keyOf, pathNamed, quarter } from './fixtures/context-stores.js';
import { ask, fakeModel, linesOf, thread } from './langchain-fixtures.js';

afterEach(deleteContextStores);

type Call = { name: string; args: Record<string, unknown> };
const emit = (tag: string, lines = 20): Call => ({ name: 'emit', args: { lines, tag } });
const note = (tag: string): Call => ({ name: 'note', args: { lines: 20, tag } });

let ids = 0;
/**
 * A fake model that asks for `steps` (each a batch of calls, or a function of the messages giving
 * one; ids unique), then says done.
 */
function scripted(steps: Array<Call[] | ((messages: BaseMessage[]) => Call[])>) {
  let model = fakeModel();
  for (const step of steps) {
    // An AI message of its own, with no text: fakeModel's default one echoes the whole input.
    model = model.respond(
      (messages) =>
        new AIMessage({
          content: '',
          tool_calls: (typeof step === 'function' ? step(messages) : step).map((call) => ({
            ...call,
            id: `lc_${++ids}`,
            type: 'tool_call' as const,
          })),
        }),
    );
  }
  return model.respond(() => new AIMessage('done'));
}

/** The text each emit/note call returned, from its arguments. */
function originalTexts(messages: readonly BaseMessage[]): Map<string, string> {
  const texts = new Map<string, string>();
  for (const message of messages) {
    if (!AIMessage.isInstance(message)) continue;
    for (const call of message.tool_calls ?? []) {
      const { lines, tag } = call.args as { lines?: number; tag?: string };
      if (call.name === 'emit' || call.name === 'note') texts.set(call.id!, linesOf(lines!, 80, tag!));
    }
  }
  return texts;
}

/**
 * The rules every request keeps, against what the model got and the agent's state: within the
 * budget (C1, unless `over`); each result whole, its recorded pointer (≤ 60 tokens, C2; same
 * tool_call_id and name; its path readable, C3) or, with `cut`, cut; a pointer the same in every
 * later request (C4); the newest `keep` results and the latest step's never cleared (C5).
 * Returns, for each request, its pointers by tool_call_id.
 */
async function checkRequests(
  requests: readonly SentRequest[],
  history: readonly BaseMessage[],
  store: WritableOffloadStore,
  { max, keep, over = false, cut = false }: { max: number; keep: number; over?: boolean; cut?: boolean },
): Promise<Array<Map<string, string>>> {
  const whole = resultTexts(history);
  const names = new Map(toolMessagesOf(history).map((m) => [m.tool_call_id, m.name]));
  const cleared = await clearedOf(store, 'a');
  const first = new Map<string, string>();
  const all: Array<Map<string, string>> = [];
  for (const [k, request] of requests.entries()) {
    if (!over) expect(requestTokens(request), `request ${k} over the budget`).toBeLessThanOrEqual(max);
    const results = toolMessagesOf(request.messages);
    const protectedIds = new Set([
      ...results.slice(Math.max(0, results.length - keep)).map((m) => m.tool_call_id),
      ...latestStep(request.messages).map((m) => m.tool_call_id),
    ]);
    const shown = new Map<string, string>();
    for (const message of results) {
      const id = message.tool_call_id;
      const text = toolText(message);
      if (text === whole.get(id)) {
        expect(first.has(id), `result ${id} shown whole after its pointer (request ${k})`).toBe(false);
        continue;
      }
      const record = cleared.get(id);
      if (record && text === record.pointer) {
        expect(protectedIds.has(id), `result ${id} cleared in request ${k}, but it is protected (C5)`).toBe(false);
        expect(quarter(text)).toBeLessThanOrEqual(60);
        expect(message.name).toBe(names.get(id));
        if (first.has(id)) expect(text).toBe(first.get(id));
        first.set(id, text);
        shown.set(id, text);
        continue;
      }
      expect(cut, `result ${id} in request ${k} is neither whole nor its pointer: ${text.slice(0, 200)}`).toBe(true);
    }
    all.push(shown);
  }
  for (const record of cleared.values()) {
    if (record.path === undefined) continue;
    expect(pathNamed(record.pointer)).toBe(record.path);
    expect(typeof (await store.read('a', keyOf(record.path)))).toBe('string');
  }
  return all;
}

const ofType = <T extends OffloadEvent['type']>(events: readonly OffloadEvent[], type: T) =>
  events.filter((event): event is Extract<OffloadEvent, { type: T }> => event.type === type);

describe.each(contextStores)('the context budget in LangChain.js, on $name', (kind) => {
  it('clears the oldest ToolMessages from the request, never from the state, and tells onEvent (C1, C2, C3, C5, C6)', async () => {
    const model = scripted(Array.from({ length: 10 }, (_, i) => [emit(`r${i}`)]));
    const store = kind.open();
    const { agent, events, requests } = budgetAgent(model, {
      store,
      budget: { maxRequestTokens: 3000, keepRecentResults: 2 },
    });
    const result = await agent.invoke(ask(), thread('a'));

    // The agent's state keeps every result whole.
    const originals = originalTexts(result.messages);
    for (const [id, text] of resultTexts(result.messages)) expect(text).toBe(originals.get(id));
    expect(requests).toHaveLength(11);
    expect(model.calls).toHaveLength(11);

    const shown = await checkRequests(requests, result.messages, store, { max: 3000, keep: 2 });
    expect(shown.at(-1)!.size).toBeGreaterThan(0);
    for (const [k, pointers] of shown.entries()) {
      const order = toolMessagesOf(requests[k]!.messages).map((m) => m.tool_call_id);
      expect([...pointers.keys()]).toEqual(order.slice(0, pointers.size)); // oldest first
    }
    // What the model itself got (fakeModel's record) carries the pointers.
    const got = resultTexts(model.calls.at(-1)!.messages);
    for (const [id, pointer] of shown.at(-1)!) expect(got.get(id)).toBe(pointer);

    const cleared = await clearedOf(store, 'a');
    for (const id of shown.at(-1)!.keys()) {
      expect(await store.read('a', keyOf(cleared.get(id)!.path!))).toBe(originals.get(id));
    }
    const clearings = shown
      .map((now, k) => [...now.keys()].filter((id) => !shown[k - 1]?.has(id)))
      .filter((fresh) => fresh.length > 0);
    const told = ofType(events, 'context-cleared');
    expect(told).toHaveLength(clearings.length);
    for (const [i, event] of told.entries()) {
      expect(event.threadId).toBe('a');
      expect([...event.paths].sort()).toEqual(clearings[i]!.map((id) => cleared.get(id)!.path).sort());
      expect(event.tokensBefore).toBeGreaterThan(3000);
      expect(event.tokensAfter).toBeLessThanOrEqual(3000);
      expect(event.tokensBefore - event.tokensAfter).toBeGreaterThanOrEqual(750);
    }
    expect(ofType(events, 'context-over-budget')).toEqual([]);
  });

  it('shows the same pointers in every later request, also from a new agent and offload over the same store (C4)', async () => {
    const store = kind.open();
    const budget = { maxRequestTokens: 3000, keepRecentResults: 2 };
    const one = budgetAgent(scripted(Array.from({ length: 8 }, (_, i) => [emit(`r${i}`)])), { store, budget });
    const first = await one.agent.invoke(ask('one'), thread('a'));
    const before = await clearedOf(store, 'a');
    expect(before.size).toBeGreaterThan(0);

    const two = budgetAgent(scripted([[emit('t0')]]), { store, budget });
    const second = await two.agent.invoke({ messages: [...first.messages, new HumanMessage('two')] }, thread('a'));
    const shown = resultTexts(two.requests[0]!.messages);
    for (const [id, record] of before) expect(shown.get(id)).toBe(record.pointer);
    await checkRequests([...one.requests, ...two.requests], second.messages, store, { max: 3000, keep: 2 });
    const after = await clearedOf(store, 'a');
    for (const [id, record] of before) expect(after.get(id)).toEqual(record);
  });

  it('names the call to repeat for a read_file page, and never stores the page (C3, A4)', async () => {
    const model = scripted([
      [emit('big', 100)],
      (messages) => [
        { name: 'read_file', args: { path: pathNamed(toolText(toolMessagesOf(messages).at(-1)!)), limit: 18 } },
      ],
      ...Array.from({ length: 8 }, (_, i) => [emit(`s${i}`)]),
    ]);
    const store = kind.open();
    const { agent, requests } = budgetAgent(model, { store, budget: { maxRequestTokens: 3000, keepRecentResults: 2 } });
    const result = await agent.invoke(ask(), thread('a'));
    const [preview, page] = toolMessagesOf(result.messages);
    expect(page!.name).toBe('read_file');
    const shown = await checkRequests(requests, result.messages, store, { max: 3000, keep: 2 });
    const pointer = shown.at(-1)!.get(page!.tool_call_id)!;
    expect(pointer).toContain('read_file');
    expect(pointer).toContain(pathNamed(toolText(preview!)));
    expect((await clearedOf(store, 'a')).get(page!.tool_call_id)!.path).toBeUndefined();
    const pageText = toolText(page!);
    for (const entry of await store.list('a')) expect(await store.read('a', entry.key)).not.toBe(pageText);
  });

  it('never clears excludeTools results nor the latest step’s; over the budget anyway, onEvent is told (C5, C6)', async () => {
    const model = scripted([
      [note('n0')],
      [emit('e0')],
      [emit('e1')],
      [note('n1')],
      [emit('e2')],
      [emit('e3')],
      [emit('p0', 25), emit('p1', 25), emit('p2', 25)],
    ]);
    const store = kind.open();
    const budget = { maxRequestTokens: 3000, keepRecentResults: 0, excludeTools: ['note'] };
    const { agent, events, requests } = budgetAgent(model, { store, budget });
    const result = await agent.invoke(ask(), thread('a'));
    const shown = await checkRequests(requests, result.messages, store, { max: 3000, keep: 0, over: true });
    const last = requests.at(-1)!;
    const originals = originalTexts(result.messages);
    const byTag = new Map(
      toolMessagesOf(last.messages).map((m) => [/^(\w+) 0 /.exec(originals.get(m.tool_call_id)!)![1], m]),
    );
    for (const tag of ['e0', 'e1', 'e2', 'e3']) expect(shown.at(-1)!.has(byTag.get(tag)!.tool_call_id)).toBe(true);
    for (const tag of ['n0', 'n1', 'p0', 'p1', 'p2']) {
      const message = byTag.get(tag)!;
      expect(toolText(message)).toBe(originals.get(message.tool_call_id));
    }
    expect(requestTokens(last)).toBeGreaterThan(3000);
    const over = ofType(events, 'context-over-budget');
    expect(over).toHaveLength(1);
    expect(over[0]).toMatchObject({ threadId: 'a', budget: 3000 });
    // The test counts each tool spec as one JSON object, the offload its pieces: a few tokens apart,
    // more since read_file's spec gained charOffset (B5).
    expect(Math.abs(over[0]!.tokens - requestTokens(last))).toBeLessThan(12);
    for (const request of requests.slice(0, -1)) expect(requestTokens(request)).toBeLessThanOrEqual(3000);
  });

  it('sends results whose calls have no id as they are (nothing to record their clearing under), and the run goes on', async () => {
    let model = fakeModel();
    for (let i = 0; i < 8; i++) {
      model = model.respond(
        () => new AIMessage({ content: '', tool_calls: [{ name: 'emit', args: { lines: 20, tag: `r${i}` }, id: '' }] }),
      );
    }
    model = model.respond(() => new AIMessage('done'));
    const store = kind.open();
    const { agent, events, requests } = budgetAgent(model, {
      store,
      budget: { maxRequestTokens: 3000, keepRecentResults: 0 },
    });
    const result = await agent.invoke(ask(), thread('a'));
    expect(result.messages.at(-1)!.text).toBe('done');
    const originals = toolMessagesOf(result.messages).map(toolText);
    for (const request of requests) {
      expect(toolMessagesOf(request.messages).map(toolText)).toEqual(
        originals.slice(0, toolMessagesOf(request.messages).length),
      );
    }
    expect(requestTokens(requests.at(-1)!)).toBeGreaterThan(3000);
    expect(ofType(events, 'context-over-budget').length).toBeGreaterThan(0);
    expect(ofType(events, 'context-cleared')).toEqual([]);
  });

  it('cuts every preview to its header when clearing all it may is not enough (C6)', async () => {
    const model = scripted(Array.from({ length: 5 }, (_, i) => [emit(`big${i}`, 100)]));
    const store = kind.open();
    const { agent, events, requests } = budgetAgent(model, {
      store,
      budget: { maxRequestTokens: 2000, keepRecentResults: 10 },
    });
    const result = await agent.invoke(ask(), thread('a'));
    await checkRequests(requests, result.messages, store, { max: 2000, keep: 10, cut: true });
    const previews = resultTexts(result.messages);
    for (const message of toolMessagesOf(requests.at(-1)!.messages)) {
      const cut = toolText(message);
      const preview = previews.get(message.tool_call_id)!;
      expect(cut.length).toBeLessThan(preview.length);
      expect(pathNamed(cut)).toBe(pathNamed(preview));
      expect(cut).not.toMatch(/big\d 0 \./);
    }
    expect(await clearedOf(store, 'a')).toEqual(new Map());
    expect(events.filter((event) => event.type.startsWith('context-'))).toEqual([]);
  });
});
