// What a way in reports when the reply arrives (`FittedContext.reportUsage`): the fitted request's
// ledger record gains it, whether the record was written behind the model call or awaited for a
// clearing; a store that keeps no ledger or fails says false, and never fails the run (S3).

import { describe, expect, it, vi } from 'vitest';
import { contextLedger } from '../../lib/context.js';
import { MemoryOffloadStore, ToolOutputOffload } from '../../lib/index.js';
import { conversation, ledgerOf, longSystem, offloaded, request, textOf } from './context-fixtures.js';

describe('FittedContext.reportUsage', () => {
  it("adds what the provider reported to the request's own ledger record, each of several requests", async () => {
    const store = new MemoryOffloadStore();
    const offload = new ToolOutputOffload({ ledger: contextLedger, store });
    const first = await offload.fitContext(
      request('t', conversation([{ id: 'c1', toolName: 'fetch_orders', text: 'a' }])),
    );
    const second = await offload.fitContext(
      request('t', conversation([{ id: 'c2', toolName: 'fetch_orders', text: 'b' }])),
    );
    // Reported in the other order: each goes to its own step.
    expect(await second.reportUsage({ inputTokens: 200, outputTokens: 0 })).toBe(true);
    expect(await first.reportUsage({ inputTokens: 100, cachedInputTokens: 40 })).toBe(true);
    const ledger = await ledgerOf(store, 't', 2);
    expect(ledger.map((record) => [record.step, record.reported])).toEqual([
      [1, { inputTokens: 100, cachedInputTokens: 40 }],
      [2, { inputTokens: 200, outputTokens: 0 }],
    ]);
  });

  it('reaches a record written for a clearing (awaited before the model call) too', async () => {
    const store = new MemoryOffloadStore();
    const offload = new ToolOutputOffload({
      ledger: contextLedger,
      store,
      thresholdTokens: 1000,
      contextBudget: { maxRequestTokens: 2400, keepRecentResults: 1 },
    });
    const big = await offloaded(offload, 't', 'c1', textOf(8000, 'big'));
    const steps = [
      { id: 'c1', toolName: 'fetch_orders', text: big.text },
      { id: 'c2', toolName: 'fetch_orders', text: textOf(900, 'small') },
      { id: 'c3', toolName: 'fetch_orders', text: 'newest' },
    ];
    const fitted = await offload.fitContext(request('t', conversation(steps), { system: longSystem }));
    expect(fitted.events.map((event) => event.type)).toContain('context-cleared');
    expect(await fitted.reportUsage({ inputTokens: 2100 })).toBe(true);
    const [record] = await store.requests('t');
    expect(record!.reported).toEqual({ inputTokens: 2100 });
  });

  it('checks the usage: a malformed count or an unknown name rejects with a TypeError naming it, and nothing is written', async () => {
    const store = new MemoryOffloadStore();
    const offload = new ToolOutputOffload({ ledger: contextLedger, store });
    const fitted = await offload.fitContext(request('t', conversation([])));
    await expect(fitted.reportUsage({ inputTokens: -1 })).rejects.toThrow(
      /usage.inputTokens must be a number of tokens/,
    );
    await expect(fitted.reportUsage({ inputTokens: Number.POSITIVE_INFINITY })).rejects.toThrow(TypeError);
    await expect(fitted.reportUsage({ outputTokens: 3 } as never)).rejects.toThrow(/usage.inputTokens/);
    await expect(fitted.reportUsage({ inputTokens: 1, cachedInputTokens: '2' } as never)).rejects.toThrow(
      /usage.cachedInputTokens/,
    );
    await expect(fitted.reportUsage({ inputTokens: 1, totalTokens: 3 } as never)).rejects.toThrow(/"totalTokens"/);
    await expect(fitted.reportUsage(null as never)).rejects.toThrow(TypeError);
    const [record] = await ledgerOf(store, 't', 1);
    expect(record).not.toHaveProperty('reported');
  });

  it('says false, never failing, when the store keeps no ledger or cannot write the usage (S3)', async () => {
    const store = new MemoryOffloadStore();
    const offload = new ToolOutputOffload({ ledger: contextLedger, store });
    const fitted = await offload.fitContext(request('t', conversation([])));
    await ledgerOf(store, 't', 1);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const failing = vi.spyOn(store, 'recordUsage').mockRejectedValue(new DOMException('full', 'QuotaExceededError'));
    expect(await fitted.reportUsage({ inputTokens: 5 })).toBe(false);
    failing.mockRestore();
    expect(warn).toHaveBeenCalledWith(
      'ToolOutputOffload: could not add the reported usage to the context ledger',
      expect.any(DOMException),
    );

    // A ledger write that failed leaves no record to add the usage to.
    const unrecorded = vi.spyOn(store, 'recordRequest').mockRejectedValue(new Error('closed'));
    const lost = await offload.fitContext(request('t', conversation([])));
    expect(await lost.reportUsage({ inputTokens: 5 })).toBe(false);
    unrecorded.mockRestore();
    warn.mockRestore();
    expect((await store.requests('t')).map((record) => record.reported)).toEqual([undefined]);
  });
});
