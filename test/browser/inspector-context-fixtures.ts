import { expect, vi } from 'vitest';
import type { LedgerRecord } from '../../inspector/context/records.js';
import { MemoryOffloadStore } from '../../lib/store/memory-store.js';
import type { StoreEvent } from '../../lib/store/offload-store.js';
import { button, type Mounted, until } from './inspector-fixtures.js';

/**
 * One ledger record as a model request of `threadId` writes it: parts that sum to its tokens, one
 * preview per earlier step (paths `/large_tool_results/k<step>`), the newest result whole.
 */
export function ledgerRecord(threadId: string, step: number, budget?: number): LedgerRecord {
  const previews = Array.from({ length: Math.min(step - 1, 3) }, (_, i) => step - 1 - i);
  const results: LedgerRecord['results'] = previews.map((earlier) => ({
    toolCallId: `call-${earlier}`,
    toolName: 'fetch_orders',
    path: `/large_tool_results/k${earlier}`,
    shownAs: 'preview' as const,
    tokens: 150,
  }));
  results.push({ toolCallId: `call-${step}`, toolName: 'lookup', shownAs: 'whole', tokens: 40 * step });
  const parts = {
    system: 1200,
    messages: 300 * step,
    whole: 40 * step,
    previews: 150 * previews.length,
    pointers: 0,
    cut: step % 4 === 0 ? 25 : 0,
  };
  const tokens = Object.values(parts).reduce((sum, part) => sum + part, 0);
  return {
    threadId,
    step,
    at: Date.now() - 1_000_000 + step * 1000,
    tokens,
    tokensWithoutOffload: tokens + 4000 * previews.length,
    ...(budget === undefined ? {} : { budget }),
    parts,
    results,
  };
}

export type LedgerStore = MemoryOffloadStore & {
  requests: (threadId: string) => Promise<LedgerRecord[]>;
  /** Adds a record (as recordRequest would) and tells the store's 'request' event. */
  addRequest(record: LedgerRecord): void;
};

/**
 * A MemoryOffloadStore whose context ledger is served from `records` (a stand-in for the store's
 * own `recordRequest`/`requests` until they are on main), with the store's 'request' events.
 */
export function ledgerStore(records: unknown[] = []): LedgerStore {
  const store = new MemoryOffloadStore();
  const subscribe = store.subscribe.bind(store);
  const listeners = new Set<(event: StoreEvent) => void>();
  return Object.assign(store, {
    requests: vi.fn(async (threadId: string) =>
      structuredClone(records.filter((record) => (record as { threadId?: unknown }).threadId === threadId)),
    ) as unknown as (threadId: string) => Promise<LedgerRecord[]>,
    subscribe(listener: (event: StoreEvent) => void) {
      const stop = subscribe(listener);
      listeners.add(listener);
      return () => {
        stop();
        listeners.delete(listener);
      };
    },
    addRequest(record: LedgerRecord) {
      records.push(record);
      const event = { type: 'request', threadId: record.threadId, step: record.step, tokens: record.tokens };
      for (const listener of [...listeners]) listener(event as unknown as StoreEvent);
    },
  });
}

/** The bars in the DOM, left to right. */
export function bars(view: Mounted): SVGGElement[] {
  return view
    .all<SVGGElement>('[role="option"].ctx-step')
    .sort((a, b) => Number(a.dataset.index) - Number(b.dataset.index));
}

/** Opens the Context tab and waits for its bars. */
export async function openContext(view: Mounted): Promise<void> {
  await until(() => button(view, 'Context')).then((tab) => tab.click());
  await until(() => expect(bars(view).length).toBeGreaterThan(0));
}

/** The label of the step shown in the list below the chart. */
export function detailHeading(view: Mounted): string {
  return view.one('.ctx-detail h3').textContent ?? '';
}
