// Issue 23, the inspector's part: results cleared from a thread's requests are marked ("cleared
// from the context since step N"), and the budget of the thread's latest request shows beside its
// gauge — from a store in this window and through the channel, whatever the store answers.
import { render } from 'preact';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startContentRelay } from '../../extension/content-relay.js';
import { PanelPage } from '../../extension/panel-page.js';
import { startRouter } from '../../extension/router.js';
import { exposeToInspector } from '../../inspector/index.js';
import { PROTOCOL } from '../../inspector/source/channel-protocol.js';
import { MemoryOffloadStore } from '../../lib/store/memory-store.js';
import { fakeChrome } from './extension-fake-chrome.js';
import { cleanupMounts, inspectorRoot, type Mounted, mount, put, until } from './inspector-fixtures.js';
import { clearedRecord, LedgerStore, record } from './inspector-ledger.js';

const stops: Array<() => void> = [];
afterEach(() => {
  cleanupMounts();
  for (const stop of stops.splice(0)) stop();
});

async function ledgerStore(): Promise<LedgerStore> {
  const store = new LedgerStore();
  await put(store, 'chat-1', 'alpha', 'a'.repeat(3000), { toolName: 'fetch_orders', createdAt: Date.now() - 60_000 });
  await put(store, 'chat-1', 'bravo', 'b'.repeat(2000), { toolName: 'fetch_orders', createdAt: Date.now() - 30_000 });
  await put(store, 'chat-2', 'charlie', 'c'.repeat(100), { toolName: 'read_db', createdAt: Date.now() - 5_000 });
  return store;
}

/** The mark each listed entry shows, by path ('' for none). */
function marks(view: Pick<Mounted, 'all'>): Record<string, string> {
  return Object.fromEntries(
    view
      .all<HTMLTableRowElement>('tbody tr.row')
      .map((row) => [
        row.querySelector('.path-text')?.getAttribute('title') ?? '',
        row.querySelector('.cleared-mark')?.textContent ?? '',
      ]),
  );
}

/** What the gauge of `threadId` says beside its bar. */
function gaugeText(view: Pick<Mounted, 'one'>, threadId: string): string {
  const meter = view.one(`meter[aria-label="Thread ${threadId}: stored bytes"]`);
  return meter.closest('.gauge')?.textContent ?? '';
}

const since = (step: number) => `cleared from the context since step ${step}`;

describe('cleared results and the context budget (issue 23)', () => {
  it('marks the entries a cleared record names, shows the latest budget, and follows the request events', async () => {
    const store = await ledgerStore();
    await store.request('chat-1', { budget: 8000 });
    await store.request('chat-1', { budget: 8000 });
    await store.request('chat-1', { budget: 8000, cleared: ['alpha'] });
    const requests = vi.spyOn(store, 'requests');
    const view = mount({ store }, { bound: 1 << 20 });
    await until(() =>
      expect(marks(view)).toEqual({
        '/large_tool_results/alpha': since(3),
        '/large_tool_results/bravo': '',
        '/large_tool_results/charlie': '',
      }),
    );
    await until(() => expect(gaugeText(view, 'chat-1')).toContain('budget 8,000 tokens'));
    expect(gaugeText(view, 'chat-2')).not.toContain('budget');

    // A later request clears bravo too; it was fitted to no budget (the app turned it off): none shown.
    // A request event reads the thread's context only: no list, total or bound again.
    const lists = ['list', 'evictions', 'failures', 'totalBytes', 'bound'].map((name) =>
      vi.spyOn(store, name as 'list'),
    );
    await store.request('chat-1', { cleared: ['bravo'] });
    await until(() => expect(marks(view)['/large_tool_results/bravo']).toBe(since(4)));
    for (const read of lists) expect(read).not.toHaveBeenCalled();
    await until(() => expect(gaugeText(view, 'chat-1')).not.toContain('budget'));
    expect(marks(view)['/large_tool_results/alpha']).toBe(since(3));

    // The selected entry says so in its details too.
    view
      .all<HTMLTableRowElement>('tbody tr.row')
      .find((row) => row.textContent?.includes('alpha'))!
      .click();
    await until(() => expect(view.one('.detail .facts').textContent).toContain(since(3)));
    // The latest budget is the newest record, read alone: never the whole ledger.
    expect(requests).toHaveBeenCalledWith('chat-1', { newest: 1 });
    expect(requests).not.toHaveBeenCalledWith('chat-1');
  });

  it('marks an evicted result in the Evictions timeline too: its pointer stays in the requests', async () => {
    const store = await ledgerStore();
    await store.request('chat-1', { budget: 8000, cleared: ['alpha'] });
    // A result that no longer fits the thread's bound evicts alpha, the oldest.
    await put(store, 'chat-1', 'echo', 'e'.repeat(2500), { createdAt: Date.now() }, 5000);
    const view = mount({ store }, { bound: 1 << 20 });
    await until(() => expect(view.all('[role="tab"]').map((tab) => tab.textContent)).toContain('Evictions (1)'));
    expect(marks(view)['/large_tool_results/alpha']).toBeUndefined(); // no longer listed
    view
      .all<HTMLButtonElement>('[role="tab"]')
      .find((tab) => tab.textContent === 'Evictions (1)')!
      .click();
    await until(() => expect(view.one('.timeline').textContent).toContain(since(1)));
  });

  for (const way of ['store', 'channel'] as const) {
    it(`a thread cleared (its 'thread-cleared' event) loses its marks, budget and ledger, also with only a ledger (${way})`, async () => {
      const store = await ledgerStore();
      await store.request('chat-1', { budget: 8000, cleared: ['alpha'] });
      const channel = `inspector-thread-cleared-${crypto.randomUUID()}`;
      if (way === 'channel') stops.push(exposeToInspector(store, { channel }));
      const view = mount(way === 'store' ? { store } : { channel }, { bound: 1 << 20 });
      await until(() => expect(marks(view)['/large_tool_results/alpha']).toBe(since(1)));
      await until(() => expect(gaugeText(view, 'chat-1')).toContain('budget 8,000 tokens'));
      await store.clearThread('chat-1');
      // Its entries went (its log says cleared), and the budget of its ledger with them.
      await until(() => expect(marks(view)['/large_tool_results/alpha']).toBeUndefined());
      await until(() => expect(gaugeText(view, 'chat-1')).not.toContain('budget'));
      // A thread with a ledger and no entry: the Context tab shows it, and shows it emptied by a clear.
      view
        .all<HTMLButtonElement>('[role="tab"]')
        .find((tab) => tab.textContent === 'Context')!
        .click();
      await store.request('ledger-only', { budget: 4000 });
      await until(() => expect(view.one('.ctx-head').textContent).toContain('ledger-only'));
      await store.clearThread('ledger-only');
      await until(() =>
        expect(view.one('.tabpanel').textContent).toContain('No model request recorded in this thread yet'),
      );
      // And it says how an offload gets its requests recorded.
      expect(view.one('.tabpanel').textContent).toContain(
        "new ToolOutputOffload({ ledger: contextLedger }), contextLedger imported from 'tool-output-offload/context'",
      );
      // chat-1 starts afresh: its steps count from 1 again, and its entries carry no mark.
      await put(store, 'chat-1', 'alpha', 'a'.repeat(3000));
      view
        .all<HTMLButtonElement>('[role="tab"]')
        .find((tab) => tab.textContent?.startsWith('Entries'))!
        .click();
      await until(() => expect(marks(view)['/large_tool_results/alpha']).toBe(''));
      expect(gaugeText(view, 'chat-1')).not.toContain('budget');
    });
  }

  it('a store without the ledger shows no marks and no budget', async () => {
    const store = new MemoryOffloadStore();
    await put(store, 'chat-1', 'alpha', 'a'.repeat(3000));
    const view = mount(
      { store: Object.assign(store, { cleared: undefined, requests: undefined }) },
      { bound: 1 << 20 },
    );
    await until(() => expect(view.all('meter')).toHaveLength(1));
    expect(view.all('.cleared-mark')).toHaveLength(0);
    expect(view.one('.gauges').textContent).not.toContain('budget');
  });

  it('through the channel: asks for the newest record after the last step read, never the whole ledger', async () => {
    const store = await ledgerStore();
    await store.request('chat-1', { budget: 8000, cleared: ['alpha'] });
    const channel = `inspector-cleared-${Date.now()}`;
    const wire: Array<Record<string, unknown>> = [];
    const listen = new BroadcastChannel(channel);
    listen.onmessage = (event) => wire.push(event.data);
    stops.push(() => listen.close(), exposeToInspector(store, { channel }));
    const view = mount({ channel }, { bound: 1 << 20 });
    await until(() => expect(marks(view)['/large_tool_results/alpha']).toBe(since(1)));
    await until(() => expect(gaugeText(view, 'chat-1')).toContain('budget 8,000 tokens'));

    await store.request('chat-1', { budget: 6000, cleared: ['bravo'] });
    await until(() => expect(gaugeText(view, 'chat-1')).toContain('budget 6,000 tokens'));
    await until(() => expect(marks(view)['/large_tool_results/bravo']).toBe(since(2)));
    const asked = wire.filter((message) => message.kind === 'request' && message.op === 'latestRequest');
    expect(asked.map(({ threadId, after }) => ({ threadId, after }))).toEqual(
      expect.arrayContaining([
        { threadId: 'chat-1', after: undefined },
        { threadId: 'chat-1', after: 1 },
      ]),
    );
    // One record crossed for each, never the ledger (the Context tab, not opened, asks for that).
    expect(wire.filter((message) => message.op === 'requests')).toEqual([]);
  });

  it('through the channel: a damaged or forged record marks nothing and gives no budget; the others still count', async () => {
    const store = await ledgerStore();
    const channel = `inspector-cleared-forged-${Date.now()}`;
    const side = new BroadcastChannel(channel);
    stops.push(() => side.close());
    const answered: string[] = [];
    const hostile: Record<string, (threadId: string) => unknown> = {
      cleared: (threadId) =>
        threadId === 'chat-1'
          ? [
              { ...clearedRecord('chat-1', 'alpha', 1), step: 'soon' },
              clearedRecord('chat-1', 'bravo', 2),
              // Another thread's path: no entry of chat-1 has it, and chat-2's charlie is not marked.
              { ...clearedRecord('chat-2', 'charlie', 1), threadId: 'chat-1' },
              { ...clearedRecord('chat-1', 'bravo', 1), threadId: 7 },
            ]
          : 'nonsense',
      // chat-1's newest record has a budget that is no count; chat-2's is well-formed.
      latestRequest: (threadId) =>
        threadId === 'chat-1' ? { ...record('chat-1', 2), budget: -5 } : record('chat-2', 1, 6000),
    };
    side.onmessage = async (event) => {
      const { id, op, threadId } = event.data as { id: string; op: string; threadId: string };
      const answers: Record<string, () => Promise<unknown>> = {
        list: () => store.list(),
        evictions: () => store.evictions(),
        failures: () => store.failures(),
        totalBytes: () => store.totalBytes(threadId),
        cleared: async () => hostile.cleared!(threadId),
        latestRequest: async () => hostile.latestRequest!(threadId),
      };
      const answer = answers[op];
      if (!answer) return;
      side.postMessage({ protocol: PROTOCOL, kind: 'response', id, ok: true, value: await answer() });
      answered.push(`${op} ${threadId}`);
    };
    const view = mount({ channel }, { bound: 1 << 20 });
    await until(() => expect(marks(view)['/large_tool_results/bravo']).toBe(since(2)));
    expect(marks(view)['/large_tool_results/alpha']).toBe('');
    await until(() => expect(gaugeText(view, 'chat-2')).toContain('budget 6,000 tokens'));
    await until(() => expect(answered).toEqual(expect.arrayContaining(['cleared chat-2', 'latestRequest chat-1'])));
    expect(marks(view)['/large_tool_results/charlie']).toBe('');
    expect(gaugeText(view, 'chat-1')).not.toContain('budget');
    expect(view.all('[role="alert"]')).toHaveLength(0);
  });

  it('in the DevTools panel: the marks and the budget come through the extension, and follow the requests', async () => {
    const store = await ledgerStore();
    await store.request('chat-1', { budget: 8000, cleared: ['alpha'] });
    const fake = fakeChrome();
    const channel = `inspector-cleared-devtools-${crypto.randomUUID()}`;
    stops.push(startRouter(fake.worker), exposeToInspector(store, { channel }));
    stops.push(startContentRelay(fake.contentScript(7), { origin: 'http://127.0.0.1:5173', channel }));
    const container = document.createElement('div');
    container.style.cssText = 'width: 1000px; height: 600px; display: flex; flex-direction: column;';
    document.body.append(container);
    render(<PanelPage runtime={fake.extensionPage()} tabId={7} timing={{ retryMs: 30 }} />, container);
    stops.push(() => {
      render(null, container);
      container.remove();
    });
    const root = await until(() => inspectorRoot(container.querySelector('.inspector')!));
    const panel = {
      all: <E extends Element>(selector: string) => [...root.querySelectorAll<E>(selector)],
      one: <E extends Element>(selector: string) => root.querySelector<E>(selector)!,
    };
    await until(() => expect(marks(panel)['/large_tool_results/alpha']).toBe(since(1)));
    await until(() => expect(gaugeText(panel, 'chat-1')).toContain('budget 8,000 tokens'));
    await store.request('chat-1', { budget: 4000, cleared: ['bravo'] });
    await until(() => expect(marks(panel)['/large_tool_results/bravo']).toBe(since(2)));
    await until(() => expect(gaugeText(panel, 'chat-1')).toContain('budget 4,000 tokens'));
  });
});
