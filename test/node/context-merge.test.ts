// 2,000 cleared results in one request (C10): the oldest pointers merged, so the request fits a
// budget that 2,000 pointers alone are twice over; every result still sent under its tool call id,
// every path named and read back, and a later request, or a new instance over the same store,
// sends the same merged texts (C4).

import { describe, expect, it } from 'vitest';
import { contextLedger } from '../../lib/context.js';
import { type ContextMessage, MemoryOffloadStore, ToolOutputOffload } from '../../lib/index.js';
import { mergedStub } from '../../lib/offload/words.js';
import { applied, mergedShown, textOf } from './context-fixtures.js';

/** A user message, an assistant message calling `fetch` `count` times at once (ids c<from>…), the results, and a reply. */
function parallel(from: number, count: number): ContextMessage[] {
  const ids = Array.from({ length: count }, (_, i) => `c${from + i}`);
  return [
    { role: 'user', text: 'Fetch every order.' },
    { role: 'assistant', text: '', toolCalls: ids.map((id) => ({ id, name: 'fetch', args: {} })) },
    ...ids.map((id): ContextMessage => ({ role: 'tool', toolCallId: id, toolName: 'fetch', text: resultText(id) })),
    { role: 'assistant', text: 'Noted.' },
  ];
}

/** About 150 tokens, distinct for each call. */
const resultText = (id: string) => textOf(150, `order ${id}`);

const results = (messages: readonly ContextMessage[]) =>
  messages.flatMap((m) => (m.role === 'tool' ? [{ toolCallId: m.toolCallId, text: m.text }] : []));

function fitter(store: MemoryOffloadStore, maxRequestTokens: number) {
  return new ToolOutputOffload({
    ledger: contextLedger,
    store,
    thresholdTokens: 1000,
    contextBudget: { maxRequestTokens },
  });
}

const fitOf = (offload: ToolOutputOffload, messages: ContextMessage[]) =>
  offload.fitContext({ threadId: 't', system: 'You fetch orders.', tools: [{ name: 'fetch' }], messages });

describe('merged pointers (C10)', () => {
  it('2,000 results of one parallel call fit 36,000 tokens, every path named and read back, the same in later requests', {
    timeout: 120_000,
  }, async () => {
    const store = new MemoryOffloadStore();
    const offload = fitter(store, 36_000);
    const messages = parallel(0, 2000);
    const fitted = await fitOf(offload, messages);
    expect(fitted.tokens).toBeLessThanOrEqual(36_000);
    expect(fitted.events.map((event) => event.type)).toEqual(['context-cleared']);

    // Without the merge, the pointers alone are over: the thread's cleared records are what would be sent.
    // With it, the oldest are cleared only as far as the merged request needs (the newest three never, C5).
    const cleared = await store.cleared('t');
    expect(cleared.length).toBeGreaterThan(1800);
    expect(cleared.length).toBeLessThan(1997);
    expect(cleared.map((record) => record.toolCallId)).toEqual(
      messages.flatMap((m) => (m.role === 'tool' ? [m.toolCallId] : [])).slice(0, cleared.length),
    );
    expect(cleared.reduce((sum, record) => sum + record.pointer.length / 4, 0)).toBeGreaterThan(1.8 * 36_000);

    // Every result still sent, in its place, under its own id.
    const sent = applied(messages, fitted);
    expect(sent.map((m) => (m.role === 'tool' ? m.toolCallId : m.role))).toEqual(
      messages.map((m) => (m.role === 'tool' ? m.toolCallId : m.role)),
    );
    const shown = mergedShown(results(sent), mergedStub);
    // Blocks of fifty, then of ten (C10), and the few past the last block as their own pointers.
    expect(shown.listings).toBeGreaterThan(30);
    expect(shown.listings + shown.stubs).toBeGreaterThan(cleared.length - 20);
    expect(shown.paths.size).toBe(cleared.length);
    for (const record of cleared) expect(shown.paths.get(record.toolCallId)).toBe(record.path);
    const readFile = offload.readTools('t').find((tool) => tool.name === 'read_file')!;
    for (const [id, path] of shown.paths) {
      expect(await store.read('t', path.slice('/large_tool_results/'.length))).toBe(resultText(id));
    }
    const [firstId, firstPath] = [...shown.paths][0]!;
    expect((await readFile.run({ path: firstPath })).text).toContain(resultText(firstId).split('\n')[0]);

    // The newest three whole.
    expect(results(sent).slice(-3)).toEqual(results(messages).slice(-3));

    // A later request of the thread: the same texts for every merged result, the new ones cleared in turn.
    const later = [...messages, ...parallel(2000, 20)];
    const next = await fitOf(offload, later);
    expect(next.tokens).toBeLessThanOrEqual(36_000);
    const merged = [...fitted.replacements].filter(
      ([, r]) => r.text === mergedStub || /^\[Cleared from context\] (50|10) tool results/.test(r.text),
    );
    for (const [index, replacement] of merged) expect(next.replacements.get(index)).toEqual(replacement);
    const nextShown = mergedShown(results(applied(later, next)), mergedStub);
    expect(nextShown.paths.size).toBe((await store.cleared('t')).length);
    expect(nextShown.paths.size).toBeGreaterThan(cleared.length);

    // A new instance over the same store (a reload, another tab) sends the same as the last request did.
    const again = await fitOf(fitter(store, 36_000), later);
    expect([...again.replacements]).toEqual([...next.replacements]);
  });

  it('400 results fit 8,000 tokens', async () => {
    const store = new MemoryOffloadStore();
    const messages = parallel(0, 400);
    const fitted = await fitOf(fitter(store, 8000), messages);
    expect(fitted.tokens).toBeLessThanOrEqual(8000);
    // Every result cleared is named; the oldest first, as far as the request needs.
    const cleared = await store.cleared('t');
    expect(cleared.length).toBeGreaterThan(350);
    expect(mergedShown(results(applied(messages, fitted)), mergedStub).paths.size).toBe(cleared.length);
  });

  it('a hostile tool call id keeps the listing within its bound: a key is at most 64 safe characters', async () => {
    const store = new MemoryOffloadStore();
    const hostile = (i: number) => `${'<img src=x onerror=alert(1)>'.repeat(400)}-${i}`;
    const messages = parallel(0, 200).map((m): ContextMessage => {
      if (m.role === 'tool') return { ...m, toolCallId: hostile(Number(m.toolCallId.slice(1))) };
      if (m.role === 'assistant' && m.toolCalls)
        return { ...m, toolCalls: m.toolCalls.map((call, i) => ({ ...call, id: hostile(i) })) };
      return m;
    });
    const fitted = await fitOf(fitter(store, 8000), messages);
    const listings = [...fitted.replacements.values()].filter((r) => /^\[Cleared from context\] (50|10) /.test(r.text));
    expect(listings.length).toBeGreaterThan(0);
    for (const { text } of listings) {
      expect(text).not.toContain('<');
      expect(text.length / 4).toBeLessThanOrEqual(60 + 50 * 30);
    }
  });
});
