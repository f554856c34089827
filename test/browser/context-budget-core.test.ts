// The context budget's core over IndexedDB, in each engine (C1–C6): what a pointer names is stored
// and reads back, a new instance over the same database (a reload, another tab) sends the same
// pointers, and every request leaves its ledger record, summing its parts and holding no text.

import { afterEach, describe, expect, it } from 'vitest';
import { contextLedger } from '../../lib/context.js';
import { IndexedDbOffloadStore, ToolOutputOffload } from '../../lib/index.js';
import { applied, conversation, ledgerOf, longSystem, request, type Step, textOf } from '../node/context-fixtures.js';

const opened: IndexedDbOffloadStore[] = [];
function openStore(name = `context-budget-${crypto.randomUUID()}`): IndexedDbOffloadStore {
  const store = new IndexedDbOffloadStore({ name });
  opened.push(store);
  return store;
}

afterEach(async () => {
  for (const store of opened.splice(0)) await store.deleteDatabase();
});

const budget = { maxRequestTokens: 2400, keepRecentResults: 1 };

describe('the context budget over IndexedDbOffloadStore', () => {
  it('stores what it clears, reads it back, and a new instance over the database sends the same pointers', async () => {
    const store = openStore();
    const offload = new ToolOutputOffload({
      ledger: contextLedger,
      store,
      thresholdTokens: 1000,
      contextBudget: budget,
    });
    const large = textOf(8000, 'large');
    const outcome = await offload.offloadResult({
      threadId: 't1',
      callId: 'c1',
      toolName: 'fetch_orders',
      content: large,
    });
    const small = textOf(900, 'small');
    const steps: Step[] = [
      { id: 'c1', toolName: 'fetch_orders', text: outcome.text },
      { id: 'c2', toolName: 'fetch_orders', text: small },
      { id: 'c3', toolName: 'read_file', args: { path: outcome.path, offset: 5 }, text: textOf(600, 'page') },
      { id: 'c4', toolName: 'fetch_orders', text: 'the newest result' },
    ];
    const messages = conversation(steps);
    const fitted = await offload.fitContext(request('t1', messages, { system: longSystem }));
    const pointers = [...fitted.replacements].filter(([, replacement]) => replacement.shownAs === 'pointer');
    expect(pointers.map(([index]) => index)).toEqual([2, 4, 6]);
    expect(fitted.events).toEqual([
      {
        type: 'context-cleared',
        threadId: 't1',
        paths: [outcome.path, expect.stringMatching(/^\/large_tool_results\/c2-[A-Za-z0-9_-]{16}$/)],
        tokensBefore: expect.any(Number),
        tokensAfter: fitted.tokens,
      },
    ]);
    expect(fitted.tokens).toBeLessThanOrEqual(2400);

    const paths = pointers.map(([, { text }]) => /stored at (\/large_tool_results\/[A-Za-z0-9_-]+)\./.exec(text)?.[1]);
    expect(paths[0]).toBe(outcome.path);
    expect(await store.read('t1', paths[0]!.slice('/large_tool_results/'.length))).toBe(large);
    expect(await store.read('t1', paths[1]!.slice('/large_tool_results/'.length))).toBe(small);
    expect(paths[2]).toBeUndefined(); // a page: its pointer names the call
    expect(pointers[2]![1].text).toContain(`call read_file {"path":"${outcome.path}","offset":5}`);

    // A reload: a new store object and offload over the same database.
    const reloaded = openStore(store.name);
    const again = new ToolOutputOffload({
      ledger: contextLedger,
      store: reloaded,
      thresholdTokens: 1000,
      contextBudget: budget,
    });
    const next = await again.fitContext(request('t1', messages, { system: longSystem }));
    expect([...next.replacements]).toEqual([...fitted.replacements]);
    expect(next.events).toEqual([]);
    expect(applied(messages, next)).toEqual(applied(messages, fitted));

    const ledger = await ledgerOf(reloaded, 't1', 2);
    expect(ledger.map((record) => record.step)).toEqual([1, 2]);
    for (const record of ledger) {
      const { system, messages: texts, whole, previews, pointers: shown, cut } = record.parts;
      expect(system + texts + whole + previews + shown + cut).toBe(record.tokens);
      expect(record.budget).toBe(2400);
      expect(JSON.stringify(record)).not.toMatch(/large:|small:|page:|newest result|careful analyst/);
    }
    expect(ledger[1]!.results.map((result) => result.shownAs)).toEqual(['pointer', 'pointer', 'pointer', 'whole']);
    expect(await reloaded.cleared('t1')).toHaveLength(3);
  });
});
