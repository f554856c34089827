// The budget's plan without a store (C1, C5, C6, C10): measuring a request, choosing what may be
// cleared and cutting previews to their headers are pure functions of the request, the budget and
// what the store said — here given by hand.

import { describe, expect, it } from 'vitest';
import {
  clearable,
  cutPreviewsToHeaders,
  ledgerChange,
  measureRequest,
  mergeBlockSizes,
  mergePointers,
  pointerRoom,
  type ResultInRequest,
  replacementsOf,
} from '../../lib/offload/context/plan.js';
import { type ContextMessage, resolveContextBudget } from '../../lib/offload/context/request.js';
import { mergedCallStub, mergedStub } from '../../lib/offload/words.js';

const tokens = (text: string) => Math.ceil(text.length / 4);
const budget = resolveContextBudget({ maxRequestTokens: 2000, keepRecentResults: 1, excludeTools: ['keep_me'] })!;

function resultAt(index: number, toolName: string, text: string, shownAs: ResultInRequest['shownAs'] = 'whole') {
  const message: Extract<ContextMessage, { role: 'tool' }> = { role: 'tool', toolCallId: `c${index}`, toolName, text };
  return { index, message, shownAs, text, tokens: tokens(text), wholeTokens: tokens(text) } as ResultInRequest;
}

describe('the budget plan (no store)', () => {
  it('measures the system prompt with the tool specs, and every message but the results with their calls (C1)', () => {
    const measured = measureRequest(
      {
        threadId: 't',
        system: 'x'.repeat(400),
        tools: [{ name: 'fetch', description: 'd' }],
        messages: [
          { role: 'user', text: 'u'.repeat(40) },
          { role: 'assistant', text: 'a'.repeat(8), toolCalls: [{ id: 'c1', name: 'fetch', args: { q: 1 } }] },
          { role: 'tool', toolCallId: 'c1', toolName: 'fetch', text: 'r'.repeat(4000) },
        ],
      },
      tokens,
    );
    expect(measured.system).toBe(100 + tokens(JSON.stringify({ name: 'fetch', description: 'd' })));
    expect(measured.messages).toBe(10 + 2 + tokens('{"q":1}'));
    expect(measured.lastAssistant).toBe(1);
    expect([...measured.calls.keys()]).toEqual(['c1']);
  });

  it('may clear neither pointers, the newest results, those after the last assistant message, nor excluded tools (C5)', () => {
    const slots = [
      resultAt(2, 'fetch', 'a'.repeat(400)),
      resultAt(4, 'fetch', 'b'.repeat(400), 'pointer'),
      resultAt(6, 'keep_me', 'c'.repeat(400)),
      resultAt(8, 'fetch', 'd'.repeat(400)),
      resultAt(10, 'fetch', 'e'.repeat(400)),
      resultAt(14, 'fetch', 'f'.repeat(400)),
    ];
    expect(clearable(slots, budget, 12).map((slot) => slot.index)).toEqual([2, 8, 10]);
    expect(clearable(slots, budget, 9).map((slot) => slot.index)).toEqual([2, 8]);
  });

  it('cuts previews to their headers only while the request is over the budget, and sends the cut (C6)', () => {
    const replaced = {
      key: 'k',
      path: '/large_tool_results/k',
      preview: 'p'.repeat(4000),
      headerOnly: 'header',
      originalTokens: 9000,
    };
    const preview = { ...resultAt(2, 'fetch', replaced.preview, 'preview'), replaced, wholeTokens: 9000 };
    const within = [{ ...preview }];
    cutPreviewsToHeaders(within, 900, budget, tokens);
    expect(within[0]!.shownAs).toBe('preview');
    const over = [{ ...preview }];
    cutPreviewsToHeaders(over, 1500, budget, tokens);
    expect(over[0]).toMatchObject({ shownAs: 'cut', text: 'header', tokens: tokens('header') });
    expect([...replacementsOf(over)]).toEqual([[2, { shownAs: 'cut', text: 'header', dropMedia: false }]]);

    const change = ledgerChange(
      { threadId: 't', system: '', tools: [], messages: [] },
      5,
      { system: 1000, messages: 500 },
      over,
      [],
      budget,
    );
    const { parts } = change.record;
    expect(parts.system + parts.messages + parts.whole + parts.previews + parts.pointers + parts.cut).toBe(
      change.record.tokens,
    );
    expect(change.record.tokensWithoutOffload).toBe(1500 + 9000);
    expect(JSON.stringify(change)).not.toContain('header');
  });

  describe('merging the oldest pointers (C10)', () => {
    const wide = resolveContextBudget({ maxRequestTokens: 8000, keepRecentResults: 2, excludeTools: ['keep_me'] })!;
    /** A pointer slot at message index 2i+2, cleared as call `c<i>`, its key of the usual shape. */
    const pointerAt = (i: number, toolName = 'fetch'): ResultInRequest => {
      const path = `/large_tool_results/c${i}-${i.toString(16).padStart(24, '0')}`;
      const text = `[Cleared from context] Result of "${toolName}" (about 150 tokens), stored at ${path}. Read it with read_file or grep.`;
      const message: Extract<ContextMessage, { role: 'tool' }> = {
        role: 'tool',
        toolCallId: `c${i}`,
        toolName,
        text: 'r'.repeat(600),
      };
      return { index: 2 * i + 2, message, shownAs: 'pointer', text, tokens: tokens(text), wholeTokens: 150, path };
    };
    const session = (count: number) => Array.from({ length: count }, (_, i) => pointerAt(i));
    const orderOf = (slots: readonly ResultInRequest[]) =>
      slots.map((slot) => ({ toolCallId: slot.message.toolCallId, path: slot.path }));
    const last = 100_000;

    it('merges nothing within the pointer room, then blocks of ten of the oldest as they fill, every fifty as one, each listing every path of its block', () => {
      const [large, small] = mergeBlockSizes;
      const room = pointerRoom(wide);
      expect(room).toBe(2); // a 64th of 8,000 at 60 tokens a pointer
      const within = session(room + small - 1);
      mergePointers(within, orderOf(within), wide, last, undefined, tokens);
      expect(within.every((slot) => slot.unmerged === undefined)).toBe(true);

      const expectBlock = (slots: readonly ResultInRequest[], size: number) => {
        const [lead, ...rest] = slots;
        expect(lead!.text).toMatch(
          new RegExp(`^\\[Cleared from context\\] ${size} tool results \\(about ${size * 150} tokens\\)`),
        );
        // The mount once, then every key of the block in order.
        expect(lead!.text.split('/large_tool_results/')).toHaveLength(2);
        const keys = slots.map((slot) => slot.path!.slice('/large_tool_results/'.length));
        expect(lead!.text).toContain(keys.join(' '));
        expect(lead!.tokens).toBe(tokens(lead!.text));
        for (const slot of rest) expect(slot).toMatchObject({ text: mergedStub, tokens: tokens(mergedStub) });
      };
      const tens = session(room + 3 * small + 5);
      mergePointers(tens, orderOf(tens), wide, last, undefined, tokens);
      expect(tens.filter((slot) => slot.unmerged !== undefined)).toEqual(tens.slice(0, 3 * small)); // the oldest
      for (const block of [0, 1, 2]) expectBlock(tens.slice(block * small, (block + 1) * small), small);

      const slots = session(room + large + 2 * small + 5);
      const ownTexts = slots.map((slot) => slot.text);
      mergePointers(slots, orderOf(slots), wide, last, undefined, tokens);
      const merged = slots.filter((slot) => slot.unmerged !== undefined);
      expect(merged).toEqual(slots.slice(0, large + 2 * small));
      expectBlock(slots.slice(0, large), large);
      expectBlock(slots.slice(large, large + small), small);
      expectBlock(slots.slice(large + small, large + 2 * small), small);
      // Still pointers (their media dropped), so every way in keeps each result with its call id.
      expect([...replacementsOf(slots).values()].every((r) => r.shownAs === 'pointer' && r.dropMedia)).toBe(true);
      const before = merged.reduce((sum, _, i) => sum + tokens(ownTexts[i]!), 0);
      expect(merged.reduce((sum, slot) => sum + slot.tokens, 0)).toBeLessThan(before / 2);

      // The same again (C4), whatever else the request holds; merged once more, nothing changes; taken back, their own.
      const again = session(room + large + 2 * small + 9);
      mergePointers(again, orderOf(again), wide, last, undefined, tokens);
      expect(again.slice(0, slots.length).map((slot) => slot.text)).toEqual(slots.map((slot) => slot.text));
      mergePointers(slots, orderOf(slots), wide, last, undefined, tokens);
      expect(slots.filter((slot) => slot.unmerged !== undefined)).toHaveLength(large + 2 * small);
      mergePointers(slots, [], wide, last, undefined, tokens);
      expect(slots.map((slot) => slot.text)).toEqual(ownTexts);
    });

    it('blocks follow the order the thread cleared them, not the request: a block with a result missing or protected stays as pointers', () => {
      const count = 2 + 100;
      const slots = session(count);
      // Cleared in another order: the second block of the request's results was cleared first.
      const order = [...orderOf(slots).slice(50, 100), ...orderOf(slots).slice(0, 50), ...orderOf(slots).slice(100)];
      mergePointers(slots, order, wide, last, undefined, tokens);
      expect(slots[50]!.text).toMatch(/^\[Cleared from context\] 50 tool results/);
      expect(slots[0]!.text).toMatch(/^\[Cleared from context\] 50 tool results/);

      // Cleared in turns (every other result first): the second block's span would overlap the first's, and so
      // would each of its blocks of ten, so it stays as pointers.
      const interleaved = session(count);
      const turns = orderOf(interleaved);
      const alternate = [
        ...turns.slice(0, 100).filter((_, i) => i % 2 === 0),
        ...turns.slice(0, 100).filter((_, i) => i % 2 === 1),
        ...turns.slice(100),
      ];
      mergePointers(interleaved, alternate, wide, last, undefined, tokens);
      expect(interleaved.filter((slot) => slot.unmerged !== undefined).map((slot) => slot.message.toolCallId)).toEqual(
        alternate.slice(0, 50).map((record) => record.toolCallId),
      );

      // One result missing or protected: only its block of ten stays as pointers, the rest of the fifty merge by ten.
      const missing = session(count);
      mergePointers(missing.slice(1), orderOf(missing), wide, last, undefined, tokens); // c0 not in the request
      expect(missing.slice(1, 10).every((slot) => slot.unmerged === undefined)).toBe(true);
      expect(missing.slice(10, 50).every((slot) => slot.unmerged !== undefined)).toBe(true);
      expect(missing[10]!.text).toMatch(/^\[Cleared from context\] 10 tool results/);
      expect(missing[50]!.text).toMatch(/^\[Cleared from context\] 50 tool results/);

      const excluded = session(count);
      excluded[7] = pointerAt(7, 'keep_me');
      mergePointers(excluded, orderOf(excluded), wide, last, undefined, tokens);
      expect(excluded.slice(0, 10).every((slot) => slot.unmerged === undefined)).toBe(true);
      expect(excluded.slice(10, 50).every((slot) => slot.unmerged !== undefined)).toBe(true);

      const unanswered = session(count);
      mergePointers(unanswered, orderOf(unanswered), wide, 10, undefined, tokens); // after the last assistant message
      expect(unanswered.every((slot) => slot.unmerged === undefined)).toBe(true);

      const newest = session(count);
      mergePointers(newest.slice(0, 51), orderOf(newest), wide, last, undefined, tokens); // c49, c50 the newest two
      expect(newest.slice(0, 40).every((slot) => slot.unmerged !== undefined)).toBe(true);
      expect(newest.slice(40, 50).every((slot) => slot.unmerged === undefined)).toBe(true);
    });

    it('merges a result without a path (a file tool page) as the stub that says to repeat its call, listing only the paths', () => {
      const count = 2 + 10;
      const slots = session(count).map((slot, i) => (i % 3 === 0 ? { ...slot, path: undefined } : slot));
      mergePointers(slots, orderOf(slots), wide, last, undefined, tokens);
      const block = slots.slice(0, 10);
      expect(block.every((slot) => slot.unmerged !== undefined)).toBe(true);
      const pages = block.filter((_, i) => i % 3 === 0);
      for (const page of pages) expect(page).toMatchObject({ text: mergedCallStub, tokens: tokens(mergedCallStub) });
      const listed = block.filter((_, i) => i % 3 !== 0);
      expect(listed[0]!.text).toMatch(/^\[Cleared from context\] 6 tool results/);
      expect(listed[0]!.text).toContain(
        listed.map((slot) => slot.path!.slice('/large_tool_results/'.length)).join(' '),
      );
      for (const slot of listed.slice(1)) expect(slot.text).toBe(mergedStub);

      // A block of pages alone has no listing.
      const allPages = session(count).map((slot) => ({ ...slot, path: undefined }));
      mergePointers(allPages, orderOf(allPages), wide, last, undefined, tokens);
      expect(allPages.slice(0, 10).map((slot) => slot.text)).toEqual(Array(10).fill(mergedCallStub));
    });

    it("never lists a path out of a key's shape, nor a listing an estimator inflates past its bound", () => {
      const count = 2 + 10;
      const hostile = session(count);
      hostile[3] = { ...hostile[3]!, path: `/large_tool_results/${'x'.repeat(5000)}<img src=x>` };
      mergePointers(hostile, orderOf(hostile), wide, last, undefined, tokens);
      expect(hostile.every((slot) => !slot.text.includes('<img'))).toBe(true);
      expect(hostile.every((slot) => slot.unmerged === undefined)).toBe(true); // the block is one short

      const slots = session(count);
      const inflated = (text: string) => (text.startsWith('[Cleared from context] 10') ? 1_000_000 : tokens(text));
      mergePointers(slots, orderOf(slots), wide, last, undefined, inflated);
      expect(slots.every((slot) => slot.unmerged === undefined)).toBe(true);

      // Read tools as the model has them.
      const none = session(count);
      mergePointers(none, orderOf(none), wide, last, [], tokens);
      expect(none[0]!.text).toContain('you have no tool to read them');
    });
  });
});
