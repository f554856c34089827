// The Context tab beside the estimate: what the provider reported each request cost (a mark on the
// step's bar, its cached part along the bar), the factor the budget was calibrated with (C9), and a
// thread summary (how far the estimate was off, how much the cache served). Records are hostile
// input: a malformed count drops the record, and nothing in one reaches HTML. Live over both stores:
// usage added to the newest step (the store's 'request' event for it) shows without a reload.

import { afterEach, describe, expect, it } from 'vitest';
import { IndexedDbOffloadStore } from '../../lib/store/indexeddb-store.js';
import { MemoryOffloadStore } from '../../lib/store/memory-store.js';
import type { WritableOffloadStore } from '../../lib/store/offload-store.js';
import { bars, detailHeading, ledgerRecord, ledgerStore, openContext } from './inspector-context-fixtures.js';
import { cleanupMounts, mount, put, until } from './inspector-fixtures.js';

afterEach(cleanupMounts);

/** The y of a bar's top (its highest part) and of its reported mark. */
function levels(bar: SVGGElement) {
  const tops = [...bar.querySelectorAll('rect.ctx-part')].map((rect) => Number(rect.getAttribute('y')));
  const mark = bar.querySelector('line.ctx-reported');
  return {
    barTop: Math.min(...tops),
    mark: mark === null ? undefined : Number(mark.getAttribute('y1')),
    cachedTop: Number(bar.querySelector('rect.ctx-cached')?.getAttribute('y') ?? Number.NaN),
  };
}

const summaryText = (view: ReturnType<typeof mount>) => view.root.querySelector('.ctx-summary')?.textContent ?? '';

describe('the Context tab: reported tokens beside the estimate', () => {
  it('marks each reported request on its bar, its cached part along it, and sums the thread', async () => {
    const [one, two, three] = [1, 2, 3].map((step) => ledgerRecord('chat-1', step, 8000));
    const records = [
      one,
      { ...two!, reported: { inputTokens: Math.round(two!.tokens * 1.3), cachedInputTokens: 0 } },
      {
        ...three!,
        calibration: 1.3,
        reported: { inputTokens: Math.round(three!.tokens * 1.3), cachedInputTokens: three!.tokens, outputTokens: 9 },
      },
    ];
    const store = ledgerStore(records);
    await put(store, 'chat-1', 'k3', 'x'.repeat(3000), { toolName: 'fetch_orders' });
    const view = mount({ store });
    await openContext(view);

    const [first, second, third] = bars(view);
    // No report: no mark. Reported: a mark above the estimate's bar (the provider counted 30% more).
    expect(levels(first!).mark).toBeUndefined();
    expect(levels(second!).mark).toBeLessThan(levels(second!).barTop);
    expect(second!.querySelector('rect.ctx-cached')).toBeNull(); // a cached count of 0 draws nothing
    const drawn = levels(third!);
    expect(drawn.mark).toBeLessThan(drawn.barTop);
    // The cached part (the estimate's size here) rises as high as the bar.
    expect(drawn.cachedTop).toBeCloseTo(drawn.barTop, 5);
    // The bar's label stays the estimate's.
    expect(third!.getAttribute('aria-label')).toBe(`step 3: ${three!.tokens.toLocaleString('en-US')} tokens`);

    const heading = detailHeading(view);
    expect(heading).toContain(
      `reported ${Math.round(three!.tokens * 1.3).toLocaleString('en-US')} (cached ${three!.tokens.toLocaleString('en-US')})`,
    );
    expect(heading).toContain('budget 8,000 (calibrated ×1.3)');
    const input = Math.round(two!.tokens * 1.3) + Math.round(three!.tokens * 1.3);
    const error = Math.round((input / (two!.tokens + three!.tokens) - 1) * 1000) / 10;
    const cached = Math.round((three!.tokens / input) * 1000) / 10;
    expect(summaryText(view)).toBe(
      `Reported by the provider for 2 of 3 requests: it counted +${error}% against the estimate · ${cached}% of its input read from its cache · budget calibrated ×1.3`,
    );
  });

  it('says nothing of reports in a thread with none', async () => {
    const store = ledgerStore([ledgerRecord('chat-1', 1), ledgerRecord('chat-1', 2)]);
    await put(store, 'chat-1', 'k', 'x'.repeat(3000));
    const view = mount({ store });
    await openContext(view);
    expect(view.root.querySelector('.ctx-summary')).toBeNull();
    expect(view.root.querySelector('line.ctx-reported')).toBeNull();
  });

  it('drops a record whose reported usage or calibration is malformed, and never renders what one holds as HTML', async () => {
    const html = '<img src=x onerror="globalThis.reportedOwned=1">';
    const good = { ...ledgerRecord('chat-1', 1), reported: { inputTokens: 900, html } };
    const records = [
      good,
      { ...ledgerRecord('chat-1', 2), reported: { inputTokens: html } },
      { ...ledgerRecord('chat-1', 3), reported: { inputTokens: 10, cachedInputTokens: -1 } },
      { ...ledgerRecord('chat-1', 4), reported: html },
      { ...ledgerRecord('chat-1', 5), calibration: html },
      { ...ledgerRecord('chat-1', 6), calibration: 0.5 },
      { ...ledgerRecord('chat-1', 7), reported: { inputTokens: 1200 }, calibration: 1.25 },
    ];
    const store = ledgerStore(records);
    await put(store, 'chat-1', 'k', 'x'.repeat(3000));
    const view = mount({ store });
    await openContext(view);
    expect(bars(view).map((bar) => bar.getAttribute('aria-label')?.replace(/:.*/, ''))).toEqual(['step 1', 'step 7']);
    await until(() => expect(view.root.textContent).toContain('5 records of the ledger are malformed'));
    expect(view.root.querySelector('img')).toBeNull();
    expect(view.root.innerHTML).not.toContain('onerror');
    expect((globalThis as { reportedOwned?: number }).reportedOwned).toBeUndefined();
    expect(summaryText(view)).toContain('for 2 of 2 requests');
  });
});

const stores: { name: string; open(): WritableOffloadStore }[] = [
  { name: 'MemoryOffloadStore', open: () => new MemoryOffloadStore() },
  {
    name: 'IndexedDbOffloadStore',
    open: () => new IndexedDbOffloadStore({ name: `ctx-reported-${crypto.randomUUID()}` }),
  },
];

describe.each(stores)('the Context tab hears reported usage, over $name', ({ open }) => {
  it('the newest step gains its mark when the usage is added to it (recordUsage)', async () => {
    const store = open();
    try {
      await put(store, 'chat-1', 'k', 'x'.repeat(3000));
      const parts = { system: 1000, messages: 500, whole: 0, previews: 0, pointers: 0, cut: 0 };
      const change = (at: number) => ({
        threadId: 'chat-1',
        at,
        record: { tokens: 1500, tokensWithoutOffload: 1500, budget: 4000, parts, results: [] },
        cleared: [],
      });
      await store.recordRequest(change(Date.now() - 2000));
      await store.recordUsage({ threadId: 'chat-1', step: 1, reported: { inputTokens: 1900 } });
      const view = mount({ store });
      await openContext(view);
      expect(bars(view).map((bar) => levels(bar).mark === undefined)).toEqual([false]);

      await store.recordRequest(change(Date.now() - 1000));
      await until(() => expect(bars(view)).toHaveLength(2));
      expect(levels(bars(view)[1]!).mark).toBeUndefined();
      // The reply arrives: the newest step, already drawn, is read again with its usage.
      await store.recordUsage({
        threadId: 'chat-1',
        step: 2,
        reported: { inputTokens: 1950, cachedInputTokens: 1500 },
      });
      await until(() => expect(levels(bars(view)[1]!).mark).toBeDefined());
      await until(() => expect(detailHeading(view)).toContain('reported 1,950 (cached 1,500)'));
      expect(summaryText(view)).toContain('for 2 of 2 requests');
    } finally {
      if (store instanceof IndexedDbOffloadStore) await store.deleteDatabase();
    }
  });
});
