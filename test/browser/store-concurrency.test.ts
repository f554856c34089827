import { describe, expect, it } from 'vitest';
import { IndexedDbOffloadStore } from '../../lib/store/indexeddb-store.js';
import type { StoreEvent } from '../../lib/store/offload-store.js';
import { integrity } from './fixtures/idb-integrity.js';
import { snapshot } from './fixtures/idb-snapshot.js';
import { result } from './fixtures/staged-result.js';
import type { WorkerJob, WorkerReply } from './fixtures/store-worker.js';

const MAX = 400;

async function commitAll(store: IndexedDbOffloadStore, name: string, threadId: string, keys: string[]) {
  const checks = keys.map(async (key, i) => {
    await store.stage(result(threadId, key, `${key} `.repeat(10 + (i % 13) * 4), 'turn'));
    const applied = await store.apply({ type: 'commit', threadId, key, turnId: 'turn', maxTotalBytes: MAX });
    expect(applied.totalBytes).toBeLessThanOrEqual(MAX);
    const state = await snapshot(name, threadId);
    expect(state.totalBytes).toBe(state.sum);
    expect(state.count).toBe(state.entries.length);
    expect(state.totalBytes).toBeLessThanOrEqual(MAX);
  });
  await Promise.all(checks);
}

async function expectAccountedFor(store: IndexedDbOffloadStore, name: string, threadId: string, keys: string[]) {
  const state = await snapshot(name, threadId);
  expect(state.totalBytes).toBe(state.sum);
  expect(state.totalBytes).toBeLessThanOrEqual(MAX);
  const live = new Set(state.entries.map((entry) => entry.key));
  const evicted = new Set((await store.evictions(threadId)).map((eviction) => eviction.key));
  for (const key of keys) expect(live.has(key) || evicted.has(key), `${key} listed or evicted`).toBe(true);
  for (const entry of state.entries) expect(await store.read(threadId, entry.key)).toContain(entry.key);
  expect(new Set(state.entries.map((entry) => entry.seq)).size).toBe(state.entries.length);
  expect(state.staged).toEqual([]);
  expect((await integrity(name)).problems).toEqual([]);
}

describe('IndexedDbOffloadStore under concurrent writers', () => {
  it('two instances committing into one thread keep the bound and exact totals', async () => {
    const name = `store-concurrent-${crypto.randomUUID()}`;
    const a = new IndexedDbOffloadStore({ name });
    const b = new IndexedDbOffloadStore({ name });
    const seen: StoreEvent[] = [];
    a.subscribe((event) => seen.push(event));
    try {
      const keysA = Array.from({ length: 30 }, (_, i) => `a${i}`);
      const keysB = Array.from({ length: 30 }, (_, i) => `b${i}`);
      await Promise.all([commitAll(a, name, 't', keysA), commitAll(b, name, 't', keysB)]);
      await expectAccountedFor(a, name, 't', [...keysA, ...keysB]);
      for (const event of seen) if ('totalBytes' in event) expect(event.totalBytes).toBeLessThanOrEqual(MAX);
      // b's changes reach a's subscribers through the BroadcastChannel.
      await expect.poll(() => seen.some((event) => event.type === 'stored' && event.key.startsWith('b'))).toBe(true);
    } finally {
      await b.close();
      await a.deleteDatabase();
    }
  });

  it('a page and a Web Worker writing one thread keep the bound and exact totals', async () => {
    const name = `store-worker-${crypto.randomUUID()}`;
    const store = new IndexedDbOffloadStore({ name });
    const worker = new Worker(new URL('./fixtures/store-worker.ts', import.meta.url), { type: 'module' });
    try {
      const workerKeys = Array.from({ length: 30 }, (_, i) => `w${i}`);
      const pageKeys = Array.from({ length: 30 }, (_, i) => `p${i}`);
      const reply = new Promise<WorkerReply>((resolve, reject) => {
        worker.onmessage = (message: MessageEvent<WorkerReply>) => resolve(message.data);
        worker.onerror = (event) => reject(new Error(`worker failed: ${event.message}`));
      });
      worker.postMessage({ name, threadId: 't', keys: workerKeys, maxTotalBytes: MAX } satisfies WorkerJob);
      await commitAll(store, name, 't', pageKeys);
      const done = await reply;
      if (!done.ok) throw new Error(done.error);
      expect(done.hasDocument).toBe(false);
      for (const total of done.totals) expect(total).toBeLessThanOrEqual(MAX);
      await expectAccountedFor(store, name, 't', [...workerKeys, ...pageKeys]);
      expect((await store.list('t')).some((entry) => entry.key.startsWith('w'))).toBe(true);
    } finally {
      worker.terminate();
      await store.deleteDatabase();
    }
  });
});
