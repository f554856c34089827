import { type InspectableStore, mountInspector } from '../inspector/index.js';
import { utf8Bytes } from '../lib/shared/text.js';
import { MemoryOffloadStore } from '../lib/store/memory-store.js';
import type { StoredResultInfo } from '../lib/store/offload-store.js';

/**
 * `inspector-10k-first-render-ms` (goal ≤ 150): from `mountInspector` to the first rendered rows
 * over a MemoryOffloadStore of 10,000 entries, the store's own list() included (median of runs).
 * `inspector-10k-first-render-panel-only-ms`: the same over a store whose reads answer at once
 * (the panel's own cost). `inspector-10k-dom-rows` (goal ≤ 100): rows then in the DOM.
 */
export interface InspectorBenchResult {
  'inspector-10k-first-render-ms': number;
  'inspector-10k-first-render-panel-only-ms': number;
  'inspector-10k-dom-rows': number;
}

/** A MemoryOffloadStore holding `count` results over ten threads, filled the way the middleware fills it. */
export async function storeWithEntries(count: number): Promise<MemoryOffloadStore> {
  const store = new MemoryOffloadStore();
  const start = Date.now() - count * 1000;
  for (let i = 0; i < count; i++) {
    const threadId = `thread-${i % 10}`;
    const key = `call-${i.toString().padStart(5, '0')}`;
    const text = `result ${i}\n${'x'.repeat(200 + (i % 500))}`;
    const bytes = utf8Bytes(text);
    const info: Omit<StoredResultInfo, 'seq'> = {
      threadId,
      key,
      path: `/large_tool_results/${key}`,
      toolName: ['fetch_page', 'search', 'read_db'][i % 3]!,
      bytes,
      originalBytes: bytes,
      estimatedTokens: Math.ceil(text.length / 4),
      truncated: false,
      createdAt: start + i * 1000,
      preview: `Stored at /large_tool_results/${key}\nresult ${i}`,
    };
    await store.stage({ ...info, text });
    await store.apply({ type: 'commit', threadId, key, turnId: `turn-${i}`, maxTotalBytes: 1 << 30 });
  }
  return store;
}

function renderedRows(root: ShadowRoot): number {
  return root.querySelectorAll('tbody tr.row').length;
}

/** Resolves once `root` shows entry rows (checked after every DOM change). */
function firstRows(root: ShadowRoot): Promise<void> {
  return new Promise((resolve) => {
    if (renderedRows(root) > 0) return resolve();
    const observer = new MutationObserver(() => {
      if (renderedRows(root) === 0) return;
      observer.disconnect();
      resolve();
    });
    observer.observe(root, { childList: true, subtree: true });
  });
}

/** One mount into `document`: milliseconds to the first rows, and the rows then rendered. */
async function mountOnce(store: InspectableStore): Promise<{ ms: number; rows: number }> {
  const container = document.createElement('div');
  container.style.cssText = 'width: 1200px; height: 800px;';
  document.body.append(container);
  try {
    const started = performance.now();
    const unmount = mountInspector(container, { store });
    const host = container.querySelector('[data-tool-output-offload-inspector]');
    if (!host?.shadowRoot) throw new Error('mountInspector rendered no shadow root');
    await firstRows(host.shadowRoot);
    const ms = performance.now() - started;
    const rows = renderedRows(host.shadowRoot);
    unmount();
    return { ms, rows };
  } finally {
    container.remove();
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.floor(sorted.length / 2)]! * 10) / 10;
}

/** A store over lists read once: every read answers at once. */
async function prefetched(store: MemoryOffloadStore): Promise<InspectableStore> {
  const [entries, evictions] = await Promise.all([store.list(), store.evictions()]);
  return {
    list: async () => entries.slice(),
    evictions: async () => evictions.slice(),
    totalBytes: (threadId) => store.totalBytes(threadId),
    read: (threadId, key) => store.read(threadId, key),
    subscribe: () => () => {},
  };
}

/**
 * Measures the inspector over `count` entries (10,000 for the named metrics) in this page, taking
 * the median of `runs` mounts each. The store is filled before any clock starts.
 */
export async function measureInspector10k(count = 10_000, runs = 5): Promise<InspectorBenchResult> {
  const store = await storeWithEntries(count);
  const instant = await prefetched(store);
  const full: number[] = [];
  const panelOnly: number[] = [];
  let rows = 0;
  for (let run = 0; run < runs; run++) {
    const measured = await mountOnce(store);
    full.push(measured.ms);
    rows = Math.max(rows, measured.rows);
    panelOnly.push((await mountOnce(instant)).ms);
  }
  return {
    'inspector-10k-first-render-ms': median(full),
    'inspector-10k-first-render-panel-only-ms': median(panelOnly),
    'inspector-10k-dom-rows': rows,
  };
}
