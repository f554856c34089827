import { describe, expect, it } from 'vitest';
import { MemoryOffloadStore } from '../../lib/store/memory-store.js';
import { seenPerThread } from '../../lib/store/store-operations.js';
import { result } from '../browser/fixtures/staged-result.js';

const details = { toolName: 'fetch', thresholdTokens: 1000, previewLines: 10, maxResultBytes: 100 };

describe('the record of results offloadResult stored (A2)', () => {
  // 10,000 commits take about a second alone, several on a busy machine.
  it('holds for the newest 10,000 results of a thread and no more', { timeout: 600_000 }, async () => {
    const store = new MemoryOffloadStore();
    const commit = async (key: string) => {
      await store.stage(result('t', key, 'x'));
      return store.apply({ type: 'commit', threadId: 't', key, maxTotalBytes: 3, seen: details });
    };
    for (let i = 0; i < seenPerThread; i++) await commit(`k${i}`);
    expect(await store.seen('t', 'k0')).toEqual(details);
    await commit(`k${seenPerThread}`);
    await commit(`k${seenPerThread + 1}`);
    expect(await store.seen('t', 'k0')).toBeUndefined();
    expect(await store.seen('t', 'k1')).toBeUndefined();
    expect(await store.seen('t', 'k2')).toEqual(details);
    // The newest is live: its preview comes with it.
    expect(await store.seen('t', `k${seenPerThread + 1}`)).toEqual({
      ...details,
      preview: `preview of k${seenPerThread + 1}`,
    });
    expect(await store.totalBytes('t')).toBe(3);
  });

  it('a seen result offered again is not stored, its staged copy discarded; clearThread forgets it', async () => {
    const store = new MemoryOffloadStore();
    await store.stage(result('t', 'k', 'first'));
    expect(
      (await store.apply({ type: 'commit', threadId: 't', key: 'k', maxTotalBytes: 100, seen: details })).stored,
    ).toEqual(['k']);
    await store.stage(result('t', 'k', 'again'));
    const again = await store.apply({ type: 'commit', threadId: 't', key: 'k', maxTotalBytes: 100, seen: details });
    expect(again).toEqual({ stored: [], evicted: [], totalBytes: 5, entries: 1 });
    expect(await store.read('t', 'k')).toBe('first');
    // Without `seen` (the middleware's rerun of a call) the key is replaced as before.
    await store.settle('t', [], { stagedBefore: Date.now() + 1 });
    await store.clearThread('t');
    expect(await store.seen('t', 'k')).toBeUndefined();
  });

  it('a commit without a turn cannot be undone: restoring any turn brings back nothing it evicted', async () => {
    const store = new MemoryOffloadStore();
    for (const key of ['a', 'b']) {
      await store.stage(result('t', key, 'x'.repeat(60)));
      await store.apply({ type: 'commit', threadId: 't', key, maxTotalBytes: 100, seen: details });
    }
    expect((await store.evictions('t')).map((e) => [e.key, e.reason])).toEqual([['a', 'bound']]);
    await store.restoreTurn('t', '', 100);
    expect((await store.list('t')).map((e) => e.key)).toEqual(['b']);
    await expect(store.read('t', 'a')).rejects.toMatchObject({ code: 'evicted' });
  });
});
