// A result under the threshold is stored only so it can be cleared to a pointer (C3): that copy is
// optional. It is stored only if the thread fits it as it is: it never evicts a stored result for
// the bound, nor makes room when a full quota refuses it; the result is then sent as it is. And an
// eviction's reason is true: one made to room a full quota refused says 'quota', not 'bound'.
// Over both stores.

import { afterAll, describe, expect, it } from 'vitest';
import { conversation, longSystem, request, textOf } from '../node/context-fixtures.js';
import { failMemoryCommits } from '../node/fixtures/fail-memory-commits.js';
import { budgetOffload, contextStores, deleteContextStores, keyOf } from './fixtures/context-stores.js';
import { failIdbCommits } from './fixtures/fail-commits.js';

afterAll(deleteContextStores);

const failCommits = { MemoryOffloadStore: failMemoryCommits, IndexedDbOffloadStore: failIdbCommits };

describe.each(contextStores)('an optional copy over $name', (kind) => {
  /** A stored result of about 24 KB, then a small result the budget clears after it, and the newest. */
  async function session(maxTotalBytes: number) {
    const store = kind.open();
    const offload = budgetOffload(
      store,
      { maxRequestTokens: 2400, keepRecentResults: 1 },
      { maxTotalBytes, maxResultBytes: Math.min(maxTotalBytes, 1_048_576) },
    );
    const large = textOf(6000, 'large');
    const stored = await offload.offloadResult({
      threadId: 't1',
      callId: 'c1',
      toolName: 'fetch_orders',
      content: large,
    });
    expect(stored.path).toBeDefined();
    const small = textOf(900, 'small');
    const messages = conversation([
      { id: 'c1', toolName: 'fetch_orders', text: stored.text },
      { id: 'c2', toolName: 'fetch_orders', text: small },
      { id: 'c3', toolName: 'fetch_orders', text: 'the newest result' },
    ]);
    return { store, offload, large, path: stored.path!, messages };
  }

  it('is not stored when the thread fits it only by evicting: the result is sent whole, nothing evicted', async () => {
    // 24 KB stored, the bound 26 KB: the small result's 3.6 KB copy fits only by evicting it.
    const { store, offload, large, path, messages } = await session(26_000);
    const fitted = await offload.fitContext(request('t1', messages, { system: longSystem }));
    expect(fitted.replacements.get(2)?.text).toContain(path); // the stored result, cleared to its own path
    expect(fitted.replacements.has(4)).toBe(false); // the small one, sent as it is
    expect(await store.evictions('t1')).toEqual([]);
    expect(await store.read('t1', keyOf(path))).toBe(large);
    expect((await store.list('t1')).map((entry) => entry.path)).toEqual([path]);
    expect((await store.cleared!('t1')).map((record) => record.toolCallId)).toEqual(['c1']);
    expect(fitted.events.map((event) => event.type)).toEqual(['context-cleared', 'context-over-budget']);
  });

  it('is stored, and the result cleared, when the thread fits it as it is', async () => {
    const { store, offload, path, messages } = await session(40_000);
    const fitted = await offload.fitContext(request('t1', messages, { system: longSystem }));
    expect(fitted.replacements.get(4)?.shownAs).toBe('pointer');
    expect(await store.evictions('t1')).toEqual([]);
    expect((await store.list('t1')).map((entry) => entry.path)).toEqual([path, expect.stringContaining('/c2-')]);
  });

  it('makes no room when a full quota refuses it: nothing is evicted, and the result is sent whole', async () => {
    const { store, offload, large, path, messages } = await session(33_554_432);
    const stop = failCommits[kind.name as keyof typeof failCommits](1);
    let fitted: Awaited<ReturnType<typeof offload.fitContext>>;
    try {
      fitted = await offload.fitContext(request('t1', messages, { system: longSystem }));
    } finally {
      stop();
    }
    expect(fitted.replacements.get(2)?.text).toContain(path);
    expect(fitted.replacements.has(4)).toBe(false);
    expect(await store.evictions('t1')).toEqual([]);
    expect(await store.read('t1', keyOf(path))).toBe(large);
  });

  it("logs an eviction made for a full quota as 'quota', not 'bound', the thread far under its bound", async () => {
    const { store, offload, path } = await session(33_554_432);
    const stop = failCommits[kind.name as keyof typeof failCommits](1);
    try {
      await offload.offloadResult({
        threadId: 't1',
        callId: 'c9',
        toolName: 'fetch_orders',
        content: textOf(2000, 'b'),
      });
    } finally {
      stop();
    }
    expect((await store.evictions('t1')).map((eviction) => [eviction.path, eviction.reason])).toEqual([
      [path, 'quota'],
    ]);
    await expect(store.read('t1', keyOf(path))).rejects.toThrow(/storage for this site was full/);
  });
});
