// The budget's plan without a store (C1, C5, C6): measuring a request, choosing what may be
// cleared and cutting previews to their headers are pure functions of the request, the budget and
// what the store said — here given by hand.

import { describe, expect, it } from 'vitest';
import {
  clearable,
  cutPreviewsToHeaders,
  ledgerChange,
  measureRequest,
  type ResultInRequest,
  replacementsOf,
} from '../../lib/offload/context/plan.js';
import type { ContextMessage } from '../../lib/offload/context/request.js';
import { resolveContextBudget } from '../../lib/offload/options.js';

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
});
