import { expect, it } from 'vitest';
import type { LedgerRecord } from '../inspector/context/records.js';
import { mountInspector } from '../inspector/index.js';
import { MemoryOffloadStore } from '../lib/store/memory-store.js';
import { ledgerRecord } from '../test/browser/inspector-context-fixtures.js';
import { median, record } from './record.js';

/**
 * The inspector's Context tab over a thread of 10,000 model steps: from a click on the tab to its
 * first bars (the store's `requests()` included), and from a store's 'request' event to the new
 * step's bar; with the bars and SVG nodes then in the DOM (the chart is windowed).
 */
const RUNS = 21;
const STEPS = 10_000;

/** A MemoryOffloadStore whose ledger holds `records`, written as every way in writes it (`recordRequest`). */
async function ledgerStore(records: LedgerRecord[]): Promise<MemoryOffloadStore> {
  const store = new MemoryOffloadStore({ requestRetention: 2 * STEPS });
  for (const { threadId, step: _step, at, ...record } of records) {
    await store.recordRequest({ threadId, at, record, cleared: [] });
  }
  return store;
}

/** Adds one model request to the store's ledger: its 'request' event tells the tab. */
function addRequest(store: MemoryOffloadStore, next: LedgerRecord): Promise<unknown> {
  const { threadId, step: _step, at, ...record } = next;
  return store.recordRequest({ threadId, at, record, cleared: [] });
}

/** Resolves once `check` holds, checked after every DOM change under `root`. */
function when(root: ShadowRoot, check: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    if (check()) return resolve();
    const observer = new MutationObserver(() => {
      if (!check()) return;
      observer.disconnect();
      resolve();
    });
    observer.observe(root, { childList: true, subtree: true, attributes: true });
  });
}

const lastBar = (root: ShadowRoot) => {
  const drawn = root.querySelectorAll('[role="option"].ctx-step');
  return drawn[drawn.length - 1];
};

async function measureOnce(): Promise<{ firstRender: number; update: number; bars: number; nodes: number }> {
  const records = Array.from({ length: STEPS }, (_, i) => ledgerRecord('chat-1', i + 1, 8000));
  const store = await ledgerStore(records);
  await store.stage({
    threadId: 'chat-1',
    key: 'k1',
    path: '/large_tool_results/k1',
    toolName: 'fetch_orders',
    bytes: 4,
    originalBytes: 4,
    estimatedTokens: 1,
    truncated: false,
    createdAt: Date.now(),
    preview: 'text',
    text: 'text',
  });
  await store.apply({ type: 'commit', threadId: 'chat-1', key: 'k1', maxTotalBytes: 1 << 30 });
  const container = document.createElement('div');
  container.style.cssText = 'width: 1200px; height: 800px;';
  document.body.append(container);
  const unmount = mountInspector(container, { store });
  try {
    const root = container.querySelector('[data-tool-output-offload-inspector]')!.shadowRoot!;
    const tab = () =>
      [...root.querySelectorAll<HTMLElement>('[role="tab"]')].find((each) => each.textContent === 'Context');
    // The panel's own first read is done before the clock starts: its figure is inspector-10k-first-render-ms.
    await when(root, () => tab() !== undefined && root.querySelector('tbody tr.row') !== null);
    let started = performance.now();
    tab()!.click();
    await when(root, () => lastBar(root) !== undefined);
    const firstRender = performance.now() - started;
    const bars = root.querySelectorAll('[role="option"].ctx-step').length;
    const nodes = root.querySelector('svg.ctx-svg')!.querySelectorAll('*').length;
    started = performance.now();
    await addRequest(store, ledgerRecord('chat-1', STEPS + 1, 8000));
    await when(root, () => lastBar(root)?.getAttribute('aria-setsize') === String(STEPS + 1));
    const update = performance.now() - started;
    return { firstRender, update, bars, nodes };
  } finally {
    unmount();
    container.remove();
  }
}

const round = (ms: number) => Math.round(ms * 10) / 10;

it('inspector-context-10k-steps-first-render-ms', async () => {
  for (let i = 0; i < 3; i++) await measureOnce(); // warm-up: code compiled, styles parsed
  const runs = [];
  for (let i = 0; i < RUNS; i++) runs.push(await measureOnce());
  const bars = Math.max(...runs.map((run) => run.bars));
  const nodes = Math.max(...runs.map((run) => run.nodes));
  expect(bars).toBeGreaterThan(0);
  await record('inspector-context', [
    {
      name: 'inspector-context-10k-steps-first-render-ms',
      value: round(median(runs.map((run) => run.firstRender))),
      unit: 'ms',
      goal: '<= 150',
      detail: `a click on the Context tab to its first bars, over a thread of ${STEPS.toLocaleString('en-US')} model steps (the MemoryOffloadStore's requests() included), median of ${RUNS} mounts`,
    },
    {
      name: 'inspector-context-10k-steps-update-ms',
      value: round(median(runs.map((run) => run.update))),
      unit: 'ms',
      detail: `a store's 'request' event to the new step's bar, on the same thread (the store's requests() read again, ${STEPS.toLocaleString('en-US')} records; the tab merges only the steps after its last), median of ${RUNS}`,
    },
    {
      name: 'inspector-context-10k-steps-dom-nodes',
      value: nodes,
      unit: 'nodes',
      detail: `SVG nodes of the chart after the first render of ${STEPS.toLocaleString('en-US')} steps (${bars} bars drawn: the chart is windowed), the most over the runs`,
    },
  ]);
});
