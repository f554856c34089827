// C1: what a model request is measured as (every part), the token counts kept so a long thread is not
// tokenized again, the contextBudget option's checks, and a malformed request's error.

import { describe, expect, it } from 'vitest';
import { contextLedger } from '../../lib/context.js';
import type { ContextMessage } from '../../lib/index.js';
import { ToolOutputOffload } from '../../lib/index.js';
import { contextStore, conversation, ledgerOf, request } from './context-fixtures.js';

/** An estimator that counts one token per character and remembers every text it was asked about. */
function countingEstimator() {
  const asked: string[] = [];
  const estimate = (text: string) => {
    asked.push(text);
    return text.length;
  };
  return { asked, estimate };
}

describe('measuring a request (C1)', () => {
  it('counts the system prompt, each tool spec as JSON, every message, each call’s arguments as JSON, and each result', async () => {
    const store = contextStore();
    const { estimate } = countingEstimator();
    const offload = new ToolOutputOffload({ ledger: contextLedger, store, estimateTokens: estimate });
    const tools = [
      { name: 'fetch_orders', description: 'Fetches orders.', parameters: { type: 'object', properties: {} } },
      { name: 'ping' },
    ];
    const messages = conversation([
      { id: 'c1', toolName: 'fetch_orders', args: { week: 12 }, text: 'three orders' },
      { id: 'c2', toolName: 'ping', args: {}, text: 'pong' },
    ]);
    const fitted = await offload.fitContext(request('t1', messages, { system: 'Be brief.', tools }));

    const system = 'Be brief.'.length + tools.reduce((sum, tool) => sum + JSON.stringify(tool).length, 0);
    const texts =
      'Look into the orders of last week.'.length +
      'Calling fetch_orders.'.length +
      JSON.stringify({ week: 12 }).length +
      'Calling ping.'.length +
      JSON.stringify({}).length +
      'Noted.'.length;
    const results = 'three orders'.length + 'pong'.length;
    expect(fitted.tokens).toBe(system + texts + results);
    expect(fitted.replacements.size).toBe(0);
    expect(fitted.events).toEqual([]);

    const [record] = await ledgerOf(store, 't1', 1);
    expect(record).toMatchObject({
      threadId: 't1',
      step: 1,
      tokens: fitted.tokens,
      tokensWithoutOffload: fitted.tokens,
      parts: { system, messages: texts, whole: results, previews: 0, pointers: 0, cut: 0 },
      results: [
        { toolCallId: 'c1', toolName: 'fetch_orders', shownAs: 'whole', tokens: 12 },
        { toolCallId: 'c2', toolName: 'ping', shownAs: 'whole', tokens: 4 },
      ],
    });
    expect(record!.budget).toBeUndefined();
  });

  it('measures a text once: a second request of the same texts asks the estimator only about the new ones', async () => {
    const { asked, estimate } = countingEstimator();
    const offload = new ToolOutputOffload({ ledger: contextLedger, store: contextStore(), estimateTokens: estimate });
    const steps = Array.from({ length: 20 }, (_, i) => ({
      id: `c${i}`,
      toolName: 'fetch_orders',
      text: `result ${i} `.repeat(200),
    }));
    const first = request('t1', conversation(steps));
    await offload.fitContext(first);
    const askedFirst = asked.length;
    expect(askedFirst).toBeGreaterThan(40);

    asked.length = 0;
    const next = conversation([...steps, { id: 'c-new', toolName: 'fetch_orders', text: 'the newest result' }]);
    // The same texts as new strings, as a framework converting its messages again would hand them.
    const copied = next.map((message) => ({ ...message, text: `${message.text} `.slice(0, -1) }));
    await offload.fitContext(request('t1', copied));
    // The assistant's words are the same at every step: known already.
    expect(asked.sort()).toEqual(['the newest result', JSON.stringify({ id: 'c-new' })].sort());
  });

  it('says which field of a malformed request is wrong', async () => {
    const offload = new ToolOutputOffload({ ledger: contextLedger, store: contextStore() });
    const good = request('t1', conversation([{ id: 'c1', toolName: 'fetch_orders', text: 'x' }]));
    const cases: [unknown, RegExp][] = [
      [null, /fitContext: request\. must be an object/],
      [{ ...good, threadId: '' }, /request\.threadId must be a non-empty string/],
      [{ ...good, system: 3 }, /request\.system must be a string/],
      [{ ...good, tools: [{ description: 'x' }] }, /request\.tools\[0\]\.name must be a string/],
      [{ ...good, messages: [{ role: 'robot', text: '' }] }, /request\.messages\[0\]\.role must be/],
      [{ ...good, messages: [{ role: 'tool', toolCallId: 'a', toolName: 'b' }] }, /request\.messages\[0\]\.text/],
      [
        { ...good, messages: [{ role: 'tool', toolCallId: 7, toolName: 'b', text: '' }] },
        /request\.messages\[0\]\.toolCallId must be a string/,
      ],
      [
        { ...good, messages: [{ role: 'tool', toolCallId: 'a', toolName: 'b', text: '', mediaParts: -1 }] },
        /request\.messages\[0\]\.mediaParts must be an integer ≥ 0/,
      ],
      [
        { ...good, messages: [{ role: 'assistant', text: '', toolCalls: [{ id: 1, name: 'x' }] }] },
        /request\.messages\[0\]\.toolCalls\[0\]\.id must be a string/,
      ],
      [{ ...good, readTools: 'read_file' }, /request\.readTools must be an array of tool names/],
    ];
    for (const [bad, message] of cases) {
      await expect(offload.fitContext(bad as never)).rejects.toThrow(TypeError);
      await expect(offload.fitContext(bad as never)).rejects.toThrow(message);
    }
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const withCycle = request('t1', [
      { role: 'assistant', text: '', toolCalls: [{ id: 'a', name: 'b', args: cyclic }] },
    ]);
    await expect(offload.fitContext(withCycle)).rejects.toThrow(
      /request\.messages\[0\]\.toolCalls\[0\]\.args cannot be written as JSON/,
    );
  });
});

describe('a tool result whose call has no id', () => {
  it('counts with the messages and is never cleared: nothing could record its clearing (C4)', async () => {
    const store = contextStore();
    const offload = new ToolOutputOffload({
      ledger: contextLedger,
      store,
      estimateTokens: (text) => text.length / 4,
      contextBudget: { maxRequestTokens: 2000, keepRecentResults: 1 },
    });
    const text = (i: number) => `row ${i} `.repeat(250);
    const steps = [0, 1, 2, 3, 4, 5].map((i) => ({ id: `c${i}`, toolName: 'fetch_orders', text: text(i) }));
    const messages = conversation(steps, { answered: true });
    const oldest = messages.findIndex((m) => m.role === 'tool');
    messages[oldest] = { ...(messages[oldest] as Extract<ContextMessage, { role: 'tool' }>), toolCallId: '' };
    const fitted = await offload.fitContext(request('t1', messages));

    // Clearing ran (the request was over), oldest first, but passed over the result without an id.
    expect(fitted.replacements.size).toBeGreaterThan(0);
    expect(fitted.replacements.has(oldest)).toBe(false);
    expect(fitted.replacements.has(messages.findIndex((m) => m.role === 'tool' && m.toolCallId === 'c1'))).toBe(true);
    const [record] = await ledgerOf(store, 't1', 1);
    expect(record!.results.map((result) => result.toolCallId)).not.toContain('');
    expect(record!.parts.messages).toBeGreaterThanOrEqual(text(0).length / 4);
  });
});

describe('the contextBudget option', () => {
  it('is exposed resolved, with its defaults, and frozen; undefined without one', () => {
    const store = contextStore();
    const offload = new ToolOutputOffload({ ledger: contextLedger, store, contextBudget: { maxRequestTokens: 8000 } });
    expect(offload.contextBudget).toEqual({
      maxRequestTokens: 8000,
      keepRecentResults: 3,
      clearAtLeastTokens: 2000,
      excludeTools: [],
      calibrate: true,
    });
    expect(Object.isFrozen(offload.contextBudget)).toBe(true);
    expect(Object.isFrozen(offload.contextBudget!.excludeTools)).toBe(true);
    expect(new ToolOutputOffload({ ledger: contextLedger, store }).contextBudget).toBeUndefined();

    const excludeTools = ['search'];
    const given = { maxRequestTokens: 2001, keepRecentResults: 0, clearAtLeastTokens: 0, excludeTools };
    const custom = new ToolOutputOffload({ ledger: contextLedger, store, contextBudget: given });
    excludeTools.push('later');
    expect(custom.contextBudget).toEqual({ ...given, excludeTools: ['search'], calibrate: true });
    expect(
      new ToolOutputOffload({
        ledger: contextLedger,
        store,
        contextBudget: { maxRequestTokens: 2000, calibrate: false },
      }).contextBudget,
    ).toMatchObject({ calibrate: false });
    // Below thresholdTokens is allowed: a small model's window can be smaller than a preview's bound.
    expect(
      new ToolOutputOffload({
        ledger: contextLedger,
        store,
        thresholdTokens: 20_000,
        contextBudget: { maxRequestTokens: 2000 },
      }).contextBudget,
    ).toMatchObject({ maxRequestTokens: 2000, clearAtLeastTokens: 500 });
  });

  it('rejects a bad value with an error naming contextBudget.<field>', () => {
    const store = contextStore();
    const make = (contextBudget: unknown) => () =>
      new ToolOutputOffload({ ledger: contextLedger, store, contextBudget: contextBudget as never });
    expect(make(8000)).toThrow(
      new TypeError(
        'ToolOutputOffload: contextBudget must be an object { maxRequestTokens, keepRecentResults?, clearAtLeastTokens?, excludeTools?, calibrate? }, got 8000',
      ),
    );
    expect(make({})).toThrow(TypeError);
    expect(make({})).toThrow(/contextBudget\.maxRequestTokens must be an integer of at least 2000, got undefined/);
    expect(make({ maxRequestTokens: 1999 })).toThrow(RangeError);
    expect(make({ maxRequestTokens: 1999 })).toThrow(
      /contextBudget\.maxRequestTokens must be an integer of at least 2000, got 1999/,
    );
    expect(make({ maxRequestTokens: 2500.5 })).toThrow(RangeError);
    expect(make({ maxRequestTokens: '8000' })).toThrow(TypeError);
    expect(make({ maxRequestTokens: 8000, keepRecentResults: -1 })).toThrow(/contextBudget\.keepRecentResults/);
    expect(make({ maxRequestTokens: 8000, clearAtLeastTokens: Number.NaN })).toThrow(
      /contextBudget\.clearAtLeastTokens/,
    );
    expect(make({ maxRequestTokens: 8000, excludeTools: 'search' })).toThrow(
      /contextBudget\.excludeTools must be an array of tool names/,
    );
    expect(make({ maxRequestTokens: 8000, excludeTools: [1] })).toThrow(TypeError);
    expect(make({ maxRequestTokens: 8000, calibrate: 'no' })).toThrow(
      new TypeError('ToolOutputOffload: contextBudget.calibrate must be true or false, got "no"'),
    );
    expect(make({ maxRequestTokens: 8000, calibrate: 0 })).toThrow(/contextBudget\.calibrate must be true or false/);
    expect(make({ maxRequestTokens: 8000, keepRecent: 2 })).toThrow(
      new TypeError(
        'ToolOutputOffload: unknown field contextBudget.keepRecent; the fields are maxRequestTokens, keepRecentResults, clearAtLeastTokens, excludeTools, calibrate',
      ),
    );
  });

  it('needs a store that records what it clears', async () => {
    const { MemoryOffloadStore } = await import('../../lib/index.js');
    const plain = new MemoryOffloadStore();
    const withoutLedger = Object.assign(Object.create(plain), { cleared: undefined, recordRequest: undefined });
    expect(
      () =>
        new ToolOutputOffload({
          ledger: contextLedger,
          store: withoutLedger,
          contextBudget: { maxRequestTokens: 8000 },
        }),
    ).toThrow(/the ledger needs a store that keeps one \(cleared, recordRequest missing/);
  });

  it('needs the context ledger for a budget, and takes only contextLedger as one', () => {
    const store = contextStore();
    expect(() => new ToolOutputOffload({ store, contextBudget: { maxRequestTokens: 8000 } })).toThrow(
      new TypeError(
        "ToolOutputOffload: contextBudget needs the context ledger: import { contextLedger } from 'tool-output-offload/context' and pass new ToolOutputOffload({ ledger: contextLedger, contextBudget })",
      ),
    );
    // A copy of part of the piece is not it either: each of its functions is needed.
    const { shownTexts: _shownTexts, ...withoutShownTexts } = contextLedger;
    const { resolveBudget: _resolveBudget, ...withoutResolveBudget } = contextLedger;
    for (const ledger of [null, {}, 'contextLedger', { fitterFor: 1 }, withoutShownTexts, withoutResolveBudget]) {
      expect(() => new ToolOutputOffload({ store, ledger: ledger as never })).toThrow(
        /ToolOutputOffload: ledger must be contextLedger from 'tool-output-offload\/context', got /,
      );
    }
  });

  it('without the ledger, sends every request as it is and records nothing', async () => {
    const store = contextStore();
    const offload = new ToolOutputOffload({ store, thresholdTokens: 1000 });
    const big = await offload.offloadResult({
      threadId: 't1',
      callId: 'c1',
      toolName: 'fetch_orders',
      content: 'x'.repeat(20_000),
    });
    const fitted = await offload.fitContext(
      request('t1', conversation([{ id: 'c1', toolName: 'fetch_orders', text: big.text }])),
    );
    expect(fitted.replacements.size).toBe(0);
    expect(fitted.events).toEqual([]);
    expect(fitted.tokens).toBeUndefined();
    expect(await fitted.reportUsage({ inputTokens: 10 })).toBe(false);
    expect(await store.requests('t1')).toEqual([]);
    await expect(offload.fitContext(null as never)).rejects.toThrow(TypeError);
  });
});
