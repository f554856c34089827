import { afterEach, describe, expect, it, vi } from 'vitest';
import { measureInspector10k, storeWithEntries } from '../../bench/inspector-bench.js';
import { IndexedDbOffloadStore } from '../../lib/store/indexeddb-store.js';
import { MemoryOffloadStore } from '../../lib/store/memory-store.js';
import { button, cleanupMounts, mount, put, until } from './inspector-fixtures.js';

afterEach(cleanupMounts);

describe('live updates', () => {
  it('shows new entries, evictions and failures as the store changes', async () => {
    const store = new MemoryOffloadStore();
    const view = mount({ store }, { bound: 1000 });
    await until(() => expect(view.one('tbody').textContent).toContain('No stored entries yet.'));

    await put(store, 'chat', 'one', 'x'.repeat(600), {}, 1000);
    await until(() => expect(view.paths()).toEqual(['/large_tool_results/one']));
    expect(view.one<HTMLMeterElement>('meter').value).toBe(600);

    await put(store, 'chat', 'two', 'y'.repeat(700), {}, 1000); // evicts "one"
    await until(() => expect(view.paths()).toEqual(['/large_tool_results/two']));
    expect(view.one<HTMLMeterElement>('meter').value).toBe(700);
    button(view, 'Evictions (1)').click();
    await until(() => expect(view.one('.timeline').textContent).toContain('/large_tool_results/one'));

    await store.reportFailure({
      threadId: 'chat',
      key: 'three',
      path: '/large_tool_results/three',
      toolName: 'fetch_page',
      bytes: 5_000_000,
      at: Date.now(),
      error: 'QuotaExceededError: the quota has been exceeded',
    });
    await until(() => button(view, 'Not stored (1)')).then((tab) => tab.click());
    await until(() => expect(view.one('.timeline').textContent).toContain('QuotaExceededError'));
    expect(view.one('.timeline').textContent).toContain('/large_tool_results/three');
  });

  it('re-reads the selected text when its entry is evicted while open', async () => {
    const store = new MemoryOffloadStore();
    await put(store, 'chat', 'one', 'first text', {}, 20);
    const view = mount({ store });
    await until(() => expect(view.paths()).toHaveLength(1));
    view.all('tbody tr.row')[0]!.click();
    await until(() => expect(view.one('.lt').textContent).toBe('first text'));

    await put(store, 'chat', 'two', 'second text', {}, 20);
    await until(() => expect(view.one('[role="alert"]').textContent).toMatch(/one was evicted/));
    // The preview the model saw stays on screen.
    expect(view.one('pre.preview').textContent).toBe('preview of one');
  });

  it('works with the IndexedDB store, seeing what another instance of the database writes', async () => {
    const name = `inspector-live-${Date.now()}`;
    const shown = new IndexedDbOffloadStore({ name });
    const otherTab = new IndexedDbOffloadStore({ name });
    try {
      await put(shown, 'chat', 'here', 'stored by this tab');
      const view = mount({ store: shown });
      await until(() => expect(view.paths()).toEqual(['/large_tool_results/here']));
      await put(otherTab, 'chat', 'there', 'stored by another tab');
      await until(() => expect(view.paths()).toHaveLength(2));
      view.all('tbody tr.row')[0]!.click();
      await until(() => expect(view.one('.lt').textContent).toBe('stored by another tab'));
    } finally {
      cleanupMounts();
      await otherTab.close();
      await shown.deleteDatabase();
    }
  });

  it('coalesces a burst of 1,000 events into a handful of re-reads', async () => {
    const store = new MemoryOffloadStore();
    const view = mount({ store });
    await until(() => expect(view.one('tbody').textContent).toContain('No stored entries yet.'));
    const list = vi.spyOn(store, 'list');
    const events: unknown[] = [];
    store.subscribe((event) => events.push(event));

    await Promise.all(Array.from({ length: 1000 }, (_, i) => put(store, `t${i % 4}`, `k${i}`, `text ${i}`)));
    expect(events).toHaveLength(1000);
    await until(() => expect(view.one('[role="tab"]').textContent).toBe('Entries (1,000)'));
    await new Promise((resolve) => setTimeout(resolve, 200)); // any trailing read has run
    expect(list.mock.calls.length).toBeGreaterThanOrEqual(1);
    expect(list.mock.calls.length).toBeLessThanOrEqual(10);
  });
});

describe('10,000 entries', () => {
  let filled: ReturnType<typeof storeWithEntries> | undefined;
  const tenThousand = () => {
    filled ??= storeWithEntries(10_000);
    return filled;
  };

  it('keep at most 100 rows in the DOM, and scrolling shows the later ones', async () => {
    const store = await tenThousand();
    const view = mount({ store });
    await until(() => expect(view.one('[role="tab"]').textContent).toBe('Entries (10,000)'));
    await until(() => expect(view.all('tbody tr.row').length).toBeGreaterThan(10));
    expect(view.all('tbody tr.row').length).toBeLessThanOrEqual(100);
    expect(view.one('table').getAttribute('aria-rowcount')).toBe('10001');
    // Newest first: the oldest entry is the last row.
    expect(view.paths()[0]).toBe('/large_tool_results/call-09999');
    expect(view.root.textContent).not.toContain('/large_tool_results/call-00000');

    const scroller = view.one('.scroller');
    scroller.scrollTop = scroller.scrollHeight;
    await until(() => expect(view.paths().at(-1)).toBe('/large_tool_results/call-00000'));
    expect(view.all('tbody tr.row').length).toBeLessThanOrEqual(100);
    const last = view.all('tbody tr.row').find((row) => row.getAttribute('aria-rowindex') === '10001');
    expect(last?.getBoundingClientRect().bottom).toBeLessThanOrEqual(scroller.getBoundingClientRect().bottom + 1);
  });

  it('keyboard End reaches the last of 10,000 rows', async () => {
    const store = await tenThousand();
    const view = mount({ store });
    await until(() => expect(view.all('tbody tr.row').length).toBeGreaterThan(10));
    const grid = view.one('table');
    grid.dispatchEvent(new KeyboardEvent('keydown', { key: 'End', bubbles: true }));
    await until(() => expect(view.one('tr.row.active').getAttribute('aria-rowindex')).toBe('10001'));
  });

  it('the bench helper reports first-render time and DOM rows', async () => {
    const result = await measureInspector10k(2_000, 1);
    expect(result['inspector-10k-first-render-ms']).toBeGreaterThan(0);
    expect(result['inspector-10k-dom-rows']).toBeGreaterThan(0);
    expect(result['inspector-10k-dom-rows']).toBeLessThanOrEqual(100);
  });
});
