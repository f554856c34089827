// The memory store's eviction queue: the oldest entry is found without looking at every entry.
import { describe, expect, it } from 'vitest';
import { MapJournal } from '../../lib/store/memory-journal.js';
import { MemoryOffloadStore } from '../../lib/store/memory-store.js';
import { MemoryTables, MemoryTx } from '../../lib/store/memory-tables.js';
import type { EntryRecord } from '../../lib/store/store-records.js';
import { result } from '../browser/fixtures/staged-result.js';

function entry(key: string, seq: number): EntryRecord {
  return {
    threadId: 't',
    key,
    path: `/large_tool_results/${key}`,
    toolName: 'fetch',
    bytes: 1,
    originalBytes: 1,
    estimatedTokens: 1,
    truncated: false,
    seq,
    createdAt: 0,
    preview: '',
    textId: `text-${key}`,
    chunkNewlines: [0],
    lines: 1,
  };
}

/** A thread's entry table that counts its lookups. */
class CountingMap extends Map<string, EntryRecord> {
  lookups = 0;
  override get(key: string) {
    this.lookups++;
    return super.get(key);
  }
}

describe('MemoryTx.oldestEntry', () => {
  it('looks at a few entries per eviction, not all 10,000', async () => {
    const tables = new MemoryTables();
    const entries = new CountingMap();
    tables.entries.set('t', entries);
    const tx = new MemoryTx(tables, new MapJournal());
    for (let seq = 1; seq <= 10_000; seq++) await tx.putEntry(entry(`k${seq}`, seq));
    expect((await tx.oldestEntry('t'))?.key).toBe('k1');
    entries.lookups = 0;
    for (let evicted = 1; evicted <= 100; evicted++) {
      const oldest = await tx.oldestEntry('t');
      expect(oldest?.seq).toBe(evicted);
      await tx.deleteEntry('t', oldest!.key);
      await tx.putEntry(entry(`new${evicted}`, 10_000 + evicted));
    }
    // Per eviction: the entry evicted before it (skipped), the oldest, and the delete's own lookup.
    expect(entries.lookups).toBeLessThanOrEqual(300);
  });

  it('finds the oldest again after an older entry comes back (restore) or an operation is rolled back', async () => {
    const tables = new MemoryTables();
    const journal = new MapJournal();
    const tx = new MemoryTx(tables, journal);
    for (let seq = 1; seq <= 5; seq++) await tx.putEntry(entry(`k${seq}`, seq));
    await tx.deleteEntry('t', 'k1');
    expect((await tx.oldestEntry('t'))?.key).toBe('k2');
    await tx.putEntry(entry('k1', 1)); // restored with its old seq
    expect((await tx.oldestEntry('t'))?.key).toBe('k1');

    const failed = new MapJournal();
    const undone = new MemoryTx(tables, failed);
    await undone.deleteEntry('t', 'k1');
    await undone.deleteEntry('t', 'k2');
    expect((await undone.oldestEntry('t'))?.key).toBe('k3');
    failed.rollback();
    tables.afterRollback();
    expect((await tx.oldestEntry('t'))?.key).toBe('k1');
    expect(await new MemoryTx(new MemoryTables(), journal).oldestEntry('t')).toBeUndefined();
  });

  it('evicts oldest first through the store after a blocked turn brought older entries back', async () => {
    const store = new MemoryOffloadStore();
    const put = async (key: string, turnId: string) => {
      await store.stage(result('t', key, 'x'.repeat(10), turnId));
      return store.apply({ type: 'commit', threadId: 't', key, turnId, maxTotalBytes: 30 });
    };
    await put('a', 't1');
    await put('b', 't1');
    await put('c', 't1');
    expect((await put('d', 't2')).evicted.map((e) => e.key)).toEqual(['a']);
    await store.restoreTurn('t', 't2', 30); // d goes, a comes back with its old seq
    expect((await store.list('t')).map((e) => e.key)).toEqual(['a', 'b', 'c']);
    expect((await put('e', 't3')).evicted.map((e) => e.key)).toEqual(['a']);
    expect((await put('f', 't3')).evicted.map((e) => e.key)).toEqual(['b']);
  });
});
