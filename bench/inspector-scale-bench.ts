import { mountInspector } from '../inspector/index.js';
import { utf8Bytes } from '../lib/shared/text.js';
import { MemoryOffloadStore } from '../lib/store/memory-store.js';
import type { StagedResult } from '../lib/store/offload-store.js';
import { blockingWhile, longest } from './blocking.js';
import { median } from './record.js';

/**
 * The inspector at scale: how long a store change takes to show in a panel over a thread of
 * 10,000 entries and 5,000 evictions (against one of 100 and 50, in the same page), and the first
 * render over 1,000 threads of one result each, with the longest main-thread task meanwhile.
 */

const TEXT_CHARS = 200;
const keyOf = (i: number) => `call-${i.toString().padStart(6, '0')}`;
const pathOf = (i: number) => `/large_tool_results/${keyOf(i)}`;
const start = Date.now() - 10_000_000;

function staged(threadId: string, i: number): StagedResult {
  const text = `result ${keyOf(i)}\n${'x'.repeat(TEXT_CHARS)}`;
  const bytes = utf8Bytes(text);
  return {
    threadId,
    key: keyOf(i),
    path: pathOf(i),
    toolName: 'fetch_page',
    bytes,
    originalBytes: bytes,
    estimatedTokens: Math.ceil(text.length / 4),
    truncated: false,
    createdAt: start + i * 100,
    preview: `Stored at ${pathOf(i)}`,
    text,
    turnId: `turn-${i}`,
  };
}

/** A thread that holds `entries` results and has evicted `evictions`: every result has the same size. */
export async function busyThread(entries: number, evictions: number) {
  const store = new MemoryOffloadStore();
  const threadId = 'busy';
  const bound = entries * utf8Bytes(`result ${keyOf(0)}\n${'x'.repeat(TEXT_CHARS)}`);
  let next = 0;
  const commit = async () => {
    const result = staged(threadId, next);
    next += 1;
    await store.stage(result);
    return () =>
      store.apply({ type: 'commit', threadId, key: result.key, turnId: result.turnId!, maxTotalBytes: bound });
  };
  for (let i = 0; i < entries + evictions; i++) await (await commit())();
  return { store, commit, lastPath: () => pathOf(next - 1) };
}

/** Resolves once the inspector in `root` shows `path` on its top row (checked after every DOM change). */
function topRowShows(root: ShadowRoot, path: string): Promise<void> {
  const shows = () => root.querySelector('tbody tr.row[data-index="0"] .path-text')?.textContent === path;
  return new Promise((resolve) => {
    if (shows()) return resolve();
    const observer = new MutationObserver(() => {
      if (!shows()) return;
      observer.disconnect();
      resolve();
    });
    observer.observe(root, { childList: true, subtree: true, characterData: true });
  });
}

function mounted(store: MemoryOffloadStore) {
  const container = document.createElement('div');
  container.style.cssText = 'width: 1200px; height: 800px;';
  document.body.append(container);
  const unmount = mountInspector(container, { store }, { bound: 1 << 30 });
  const root = container.querySelector('[data-tool-output-offload-inspector]')?.shadowRoot;
  if (!root) throw new Error('mountInspector rendered no shadow root');
  return {
    root,
    remove() {
      unmount();
      container.remove();
    },
  };
}

const round = (ms: number) => Math.round(ms * 100) / 100;

/**
 * Milliseconds from `store.apply` (a commit that evicts the thread's oldest entry) to the panel's
 * top row showing the new entry: median of `runs`, a thread of 10,000 + 5,000 and one of 100 + 50
 * measured alternately, each in its own mounted panel.
 */
export async function measureInspectorUpdate(runs = 21, big = { entries: 10_000, evictions: 5_000 }) {
  const threads = [await busyThread(big.entries, big.evictions), await busyThread(100, 50)];
  const panels = threads.map((thread) => mounted(thread.store));
  try {
    await Promise.all(panels.map((panel, i) => topRowShows(panel.root, threads[i]!.lastPath())));
    const times: number[][] = [[], []];
    for (let run = 0; run < runs + 2; run++) {
      for (const [i, thread] of threads.entries()) {
        const apply = await thread.commit(); // staged before the clock starts
        const shown = topRowShows(panels[i]!.root, thread.lastPath());
        const began = performance.now();
        await apply();
        await shown;
        if (run >= 2) times[i]!.push(performance.now() - began); // two warm-up rounds
      }
    }
    return { big: round(median(times[0]!)), small: round(median(times[1]!)) };
  } finally {
    for (const panel of panels) panel.remove();
  }
}

/** A store of `threads` threads of one result each. */
export async function manyThreads(threads: number): Promise<MemoryOffloadStore> {
  const store = new MemoryOffloadStore();
  for (let i = 0; i < threads; i++) {
    const result = staged(`thread-${i.toString().padStart(4, '0')}`, i);
    await store.stage(result);
    await store.apply({
      type: 'commit',
      threadId: result.threadId,
      key: result.key,
      turnId: result.turnId!,
      maxTotalBytes: 1 << 20,
    });
  }
  return store;
}

/**
 * From `mountInspector` to the first rows and the gauges in view filled, over 1,000 threads of one
 * result each (median of `runs` mounts), and the longest main-thread task meanwhile (the longest
 * of all runs, the median of the runs, how many went over 50 ms), beside an idle probe as long after
 * each mount.
 */
export async function measureThousandThreads(runs = 21, threads = 1000) {
  const store = await manyThreads(threads);
  const times: number[] = [];
  let longestTask = 0;
  let longTasks = 0;
  const perMount: number[] = [];
  const idle: number[] = [];
  for (let run = 0; run < runs; run++) {
    let panel: ReturnType<typeof mounted> | undefined;
    const blocking = await blockingWhile(async () => {
      const began = performance.now();
      panel = mounted(store);
      await topRowShows(panel.root, pathOf(threads - 1));
      times.push(performance.now() - began);
      await new Promise<void>((resolve) => {
        const filled = () => panel!.root.querySelector('meter') !== null;
        if (filled()) return resolve();
        const observer = new MutationObserver(() => {
          if (!filled()) return;
          observer.disconnect();
          resolve();
        });
        observer.observe(panel!.root, { childList: true, subtree: true });
      });
    });
    panel?.remove();
    longestTask = Math.max(longestTask, longest(blocking));
    longTasks += blocking.longTasks;
    perMount.push(longest(blocking));
    // The same probe for as long with nothing running, after each mount: on a shared machine the OS can
    // stall any task (the page's or none); this floor tells such stalls from the panel's own work.
    idle.push(longest(await blockingWhile(() => new Promise((resolve) => setTimeout(resolve, blocking.ms)))));
  }
  const over = (blocks: number[]) => blocks.filter((ms) => ms > 50).length;
  return {
    firstRender: round(median(times)),
    longestTask: round(longestTask),
    longTasks,
    medianLongest: round(median(perMount)),
    mountsOver50: over(perMount),
    idleLongest: round(Math.max(...idle)),
    idleMedian: round(median(idle)),
    idleOver50: over(idle),
  };
}
