import { afterEach, describe, expect, it, vi } from 'vitest';
import { userEvent } from 'vitest/browser';
import { IndexedDbOffloadStore } from '../../lib/store/indexeddb-store.js';
import { MemoryOffloadStore } from '../../lib/store/memory-store.js';
import type { WritableOffloadStore } from '../../lib/store/offload-store.js';
import { bars, detailHeading, ledgerRecord, ledgerStore, openContext } from './inspector-context-fixtures.js';
import { button, chooseThread, cleanupMounts, mount, put, sampleStore, until } from './inspector-fixtures.js';

afterEach(cleanupMounts);

const steps = (threadId: string, count: number, budget?: number) =>
  Array.from({ length: count }, (_, i) => ledgerRecord(threadId, i + 1, budget));

/** The part rects of one bar, by part, with their heights. */
function partHeights(bar: SVGGElement): Record<string, number> {
  const heights: Record<string, number> = {};
  for (const rect of bar.querySelectorAll('rect.ctx-part')) {
    const part = [...rect.classList].find((name) => name !== 'ctx-part')!.replace('ctx-', '');
    heights[part] = Number(rect.getAttribute('height'));
  }
  return heights;
}

describe('the Context tab (issue 24)', () => {
  it('draws one bar per step, stacked by part, labelled with its step and tokens', async () => {
    const records = steps('chat-1', 12, 8000);
    const store = ledgerStore(records);
    await put(store, 'chat-1', 'k3', 'x'.repeat(3000), { toolName: 'fetch_orders' });
    const view = mount({ store });
    await openContext(view);

    const drawn = bars(view);
    expect(drawn.map((bar) => bar.getAttribute('aria-label'))).toEqual(
      records.map((record) => `step ${record.step}: ${record.tokens.toLocaleString('en-US')} tokens`),
    );
    expect(drawn[11]!.getAttribute('aria-label')).toBe('step 12: 5,755 tokens');
    // Stacked by part: each part's rect is as tall as its share of the request.
    const twelve = partHeights(drawn[11]!);
    const parts = records[11]!.parts;
    expect(Object.keys(twelve)).toEqual(['system', 'messages', 'whole', 'previews', 'cut']);
    expect(twelve.messages! / twelve.system!).toBeCloseTo(parts.messages / parts.system, 5);
    expect(twelve.previews! / twelve.system!).toBeCloseTo(parts.previews / parts.system, 5);
    expect(partHeights(drawn[0]!)).not.toHaveProperty('previews');
    // A line for the tokens without the offload and one for the budget.
    expect(view.one('path.ctx-without').getAttribute('d')).toMatch(/^M/);
    const budgetLevels = new Set(
      [...(view.one('path.ctx-budget').getAttribute('d') ?? '').matchAll(/[ML][\d.]+,([\d.]+)/g)].map((m) => m[1]),
    );
    expect(budgetLevels.size).toBe(1);
    // The newest step is selected and its results are listed.
    expect(drawn[11]!.getAttribute('aria-selected')).toBe('true');
    expect(detailHeading(view)).toContain('step 12: 5,755 tokens');
    expect(detailHeading(view)).toContain('budget 8,000');
  });

  it('walks the steps with the keyboard: arrows, Home and End move one tab stop', async () => {
    const store = ledgerStore(steps('chat-1', 30));
    await put(store, 'chat-1', 'a', 'a');
    const view = mount({ store });
    await openContext(view);
    const selected = () => view.one('[role="option"][aria-selected="true"]');
    const focused = () => view.root.activeElement?.getAttribute('aria-label');
    selected().focus();
    expect(focused()).toBe(selected().getAttribute('aria-label'));
    await userEvent.keyboard('{ArrowLeft}{ArrowLeft}');
    await until(() => expect(focused()).toMatch(/^step 28:/));
    expect(selected().getAttribute('aria-label')).toMatch(/^step 28:/);
    expect(detailHeading(view)).toMatch(/^step 28:/);
    await userEvent.keyboard('{Home}');
    await until(() => expect(focused()).toMatch(/^step 1:/));
    await userEvent.keyboard('{ArrowRight}');
    await until(() => expect(focused()).toMatch(/^step 2:/));
    await userEvent.keyboard('{End}');
    await until(() => expect(focused()).toMatch(/^step 30:/));
    // Roving tabindex: the selected step alone is in the tab order.
    expect(view.all('[role="option"][tabindex="0"]').map((bar) => bar.getAttribute('aria-label'))).toEqual([
      selected().getAttribute('aria-label'),
    ]);
  });

  it("lists a hovered step's results and how each was shown, each linking to its entry", async () => {
    const store = ledgerStore(steps('chat-1', 6));
    await put(store, 'chat-1', 'k4', 'fourth result', { toolName: 'fetch_orders' });
    const view = mount({ store });
    await openContext(view);
    // The pointer's events, dispatched: WebKitWebDriver finds no SVG element inside a shadow root to move to.
    bars(view)[4]!.dispatchEvent(new MouseEvent('mouseover', { bubbles: true }));
    await until(() => expect(detailHeading(view)).toMatch(/^step 5:/));
    const items = view.all('.ctx-result');
    expect(items.map((item) => item.textContent)).toEqual([
      expect.stringMatching(/^fetch_orderspreview150 tokens\/large_tool_results\/k4$/),
      expect.stringMatching(/^fetch_orderspreview150 tokens\/large_tool_results\/k3 \(not in the store\)$/),
      expect.stringMatching(/^fetch_orderspreview150 tokens\/large_tool_results\/k2 \(not in the store\)$/),
      expect.stringMatching(/^lookupwhole200 tokensnot stored$/),
    ]);
    // Clicking the step selects it, so the pointer can leave the chart for the list.
    bars(view)[4]!.dispatchEvent(new MouseEvent('click', { bubbles: true }));
    view.one('svg.ctx-svg').dispatchEvent(new MouseEvent('mouseleave'));
    await until(() => expect(detailHeading(view)).toMatch(/^step 5:/));
    button(view, '/large_tool_results/k4').click();
    await until(() => expect(view.one('.detail-head .path').textContent).toBe('/large_tool_results/k4'));
  });

  it('follows new steps live, from the store events', async () => {
    const store = ledgerStore(steps('chat-1', 3));
    await put(store, 'chat-1', 'a', 'a');
    const view = mount({ store });
    await openContext(view);
    expect(bars(view)).toHaveLength(3);
    const before = vi.mocked(store.requests).mock.calls.length;
    store.addRequest(ledgerRecord('chat-1', 4));
    await until(() => expect(bars(view)).toHaveLength(4));
    // Only the steps after those held are asked for, never the whole ledger again (a store that
    // ignores it is filtered): after step 3, or after 2 when a change named step 3 again (its usage
    // added), or after 4 when a read in flight brought step 4; the newest record alone may be asked too.
    const since = vi.mocked(store.requests).mock.calls.slice(before) as unknown as [
      string,
      { after?: number; newest?: number }?,
    ][];
    expect(since.every(([, options]) => options?.after !== undefined || options?.newest === 1)).toBe(true);
    expect(since.some(([threadId, options]) => threadId === 'chat-1' && (options?.after ?? 0) >= 2)).toBe(true);
    expect(bars(view)[3]!.getAttribute('aria-selected')).toBe('true');
    expect(detailHeading(view)).toMatch(/^step 4:/);
    // A thread cleared counts from 1 again: the ledger is read whole.
    const cleared = ledgerStore();
    const again = mount({ store: cleared });
    await put(cleared, 'chat-9', 'a', 'text');
    cleared.addRequest(ledgerRecord('chat-9', 1));
    await openContext(again);
    expect(bars(again)).toHaveLength(1);
  });

  it('shows the thread picked in the filter; with none, the thread of the newest request', async () => {
    const records = [...steps('older', 5), ...steps('newer', 2)];
    // The newer thread's requests came last.
    for (const record of records) if (record.threadId === 'newer') record.at = Date.now();
    const store = ledgerStore(records);
    await put(store, 'older', 'a', 'a');
    await put(store, 'newer', 'b', 'b');
    const view = mount({ store });
    await openContext(view);
    await until(() => expect(bars(view)).toHaveLength(2));
    expect(view.one('.ctx-head').textContent).toContain('newer');
    await chooseThread(view, 'older');
    await until(() => expect(bars(view)).toHaveLength(5));
    expect(view.one('[role="listbox"].ctx-svg').getAttribute('aria-label')).toBe('Model steps of thread older');
    // With none picked, a request of another thread shows that thread.
    await chooseThread(view, '');
    await until(() => expect(view.one('.ctx-head').textContent).toContain("the newest request's thread"));
    await until(() => expect(bars(view)).toHaveLength(2));
    store.addRequest({ ...ledgerRecord('older', 6), at: Date.now() + 1000 });
    await until(() => expect(bars(view)).toHaveLength(6));
  });

  it('says so for a store that keeps no ledger, and drops malformed records', async () => {
    const view = mount({ store: Object.assign(await sampleStore(), { requests: undefined }) });
    await until(() => button(view, 'Context')).then((tab) => tab.click());
    await until(() => expect(view.one('.tabpanel').textContent).toContain('keeps no context ledger'));

    const good = steps('chat-1', 3);
    const bad = [
      { ...ledgerRecord('chat-1', 4), tokens: -1 },
      { ...ledgerRecord('chat-1', 5), parts: { system: 1 } },
      { ...ledgerRecord('chat-1', 6), results: [{ toolCallId: 'x', toolName: 'y', shownAs: 'hidden', tokens: 1 }] },
      {
        ...ledgerRecord('chat-1', 7),
        results: [{ toolCallId: 'x'.repeat(5000), toolName: 'y', shownAs: 'whole', tokens: 1 }],
      },
      'not a record', // spread below into an object of its characters: no record either
    ];
    const store = ledgerStore([...good, ...bad.map((record) => ({ threadId: 'chat-1', ...(record as object) }))]);
    await put(store, 'chat-1', 'a', 'a');
    const damaged = mount({ store });
    await openContext(damaged);
    expect(bars(damaged)).toHaveLength(3);
    expect(damaged.one('.ctx .error').textContent).toBe('5 records of the ledger are malformed and not shown.');
  });

  it('draws 10,000 steps with a bounded number of DOM nodes', async () => {
    const store = ledgerStore(steps('chat-1', 10_000, 8000));
    await put(store, 'chat-1', 'a', 'a');
    const view = mount({ store });
    await openContext(view);
    const drawn = bars(view);
    expect(drawn.length).toBeLessThan(120);
    expect(view.one('svg.ctx-svg').querySelectorAll('*').length).toBeLessThan(1200);
    expect(drawn.at(-1)!.getAttribute('aria-label')).toMatch(/^step 10,000: /);
    expect(drawn.at(-1)!.getAttribute('aria-setsize')).toBe('10000');
    // Home walks to the first step, drawn in place of the last ones.
    drawn.at(-1)!.focus();
    await userEvent.keyboard('{Home}');
    await until(() => expect(view.root.activeElement?.getAttribute('aria-label')).toMatch(/^step 1: /));
    await until(() => expect(bars(view)[0]!.getAttribute('aria-label')).toMatch(/^step 1: /));
    expect(bars(view).length).toBeLessThan(120);
  });

  it.each([
    ['MemoryOffloadStore', () => new MemoryOffloadStore()],
    ['IndexedDbOffloadStore', () => new IndexedDbOffloadStore({ name: `inspector-context-${crypto.randomUUID()}` })],
  ] as const)('draws the ledger a %s recorded, and follows it', async (_name, makeStore) => {
    const store: WritableOffloadStore = makeStore();
    await put(store, 'chat-1', 'k1', 'x'.repeat(3000));
    for (let step = 1; step <= 5; step++) {
      const { threadId: _t, step: _s, at, ...record } = ledgerRecord('chat-1', step);
      await store.recordRequest({ threadId: 'chat-1', at, record, cleared: [] });
    }
    const view = mount({ store });
    await openContext(view);
    expect(bars(view).map((bar) => bar.getAttribute('aria-label'))).toEqual(
      (await store.requests('chat-1')).map(
        (record) => `step ${record.step}: ${record.tokens.toLocaleString('en-US')} tokens`,
      ),
    );
    const { threadId: _t, step: _s, at, ...sixth } = ledgerRecord('chat-1', 6);
    await store.recordRequest({ threadId: 'chat-1', at, record: sixth, cleared: [] });
    await until(() => expect(bars(view)).toHaveLength(6));
    await store.close?.();
  });
});
