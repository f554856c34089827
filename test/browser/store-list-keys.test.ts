import { describe, expect, it, vi } from 'vitest';
import { IndexedDbOffloadStore } from '../../lib/store/indexeddb-store.js';
import { MemoryOffloadStore } from '../../lib/store/memory-store.js';
import type { WritableOffloadStore } from '../../lib/store/offload-store.js';
import { put } from './inspector-fixtures.js';

/** `list(threadId, { keys })`: what the inspector reads after a change event, on both stores. */
const stores: Array<[string, () => Promise<{ store: WritableOffloadStore; dispose(): Promise<void> }>]> = [
  ['MemoryOffloadStore', async () => ({ store: new MemoryOffloadStore(), dispose: async () => {} })],
  [
    'IndexedDbOffloadStore',
    async () => {
      const store = new IndexedDbOffloadStore({ name: `store-list-keys-${crypto.randomUUID()}` });
      return { store, dispose: () => store.deleteDatabase() };
    },
  ],
];

describe.each(stores)('%s list(threadId, { keys })', (_name, open) => {
  it('lists only the live entries of those keys in that thread, oldest first', async () => {
    const { store, dispose } = await open();
    try {
      // Texts of 10 bytes in a thread bound at 30: d evicts a, e evicts b.
      for (const [i, key] of ['a', 'b', 'c', 'd', 'e'].entries()) {
        await put(store, 'chat', key, `text ${key}....`, { createdAt: 1000 * (i + 1) }, 30);
      }
      await put(store, 'other', 'a', 'another thread');
      const keys = (entries: Array<{ key: string }>) => entries.map((entry) => entry.key);
      expect(keys(await store.list('chat'))).toEqual(['c', 'd', 'e']);
      expect(keys(await store.list('chat', { keys: ['e', 'd', 'a', 'never', 'e'] }))).toEqual(['d', 'e']);
      expect(await store.list('chat', { keys: [] })).toEqual([]);
      const [listed] = await store.list('other', { keys: ['a'] });
      expect(listed).toEqual((await store.list('other'))[0]);
      expect(keys(await store.list('chat', {}))).toEqual(['c', 'd', 'e']);
    } finally {
      await dispose();
    }
  });

  it('says what is wrong with bad options', async () => {
    const { store, dispose } = await open();
    try {
      await expect(store.list(undefined, { keys: ['a'] })).rejects.toThrow(
        'list: options.keys needs a threadId (keys are per thread)',
      );
      await expect(store.list('chat', { keys: 'a' as never })).rejects.toThrow(
        'list: options.keys must be an array of strings, got "a"',
      );
      await expect(store.list('chat', 7 as never)).rejects.toThrow('list: options must be an object');
    } finally {
      await dispose();
    }
  });
});

describe.each(stores)('%s evictions(threadId, { keys })', (_name, open) => {
  it('reads only the eviction records of those keys in that thread, oldest first', async () => {
    const { store, dispose } = await open();
    try {
      // Texts of 10 bytes in a thread bound at 30: d evicts a, e evicts b, a again evicts c.
      for (const [i, key] of ['a', 'b', 'c', 'd', 'e', 'a'].entries()) {
        await put(store, 'chat', key, `text ${key}....`, { createdAt: 1000 * (i + 1) }, 30);
      }
      await put(store, 'other', 'b', 'b.........', {}, 30);
      await put(store, 'other', 'c', 'c.........', {}, 10); // evicts other's b
      const log = await store.evictions('chat');
      expect(log.map((record) => record.key)).toEqual(['a', 'b', 'c']);
      const of = (...keys: string[]) => log.filter((record) => keys.includes(record.key));
      expect(await store.evictions('chat', { keys: ['c', 'a', 'never', 'c'] })).toEqual(of('a', 'c'));
      expect(await store.evictions('chat', { keys: ['b'] })).toEqual(of('b'));
      expect(await store.evictions('chat', { keys: [] })).toEqual([]);
      expect((await store.evictions('other', { keys: ['b', 'a'] })).map((r) => [r.threadId, r.key])).toEqual([
        ['other', 'b'],
      ]);
      expect(await store.evictions('chat', {})).toEqual(log);
    } finally {
      await dispose();
    }
  });

  it('says what is wrong with bad options', async () => {
    const { store, dispose } = await open();
    try {
      await expect(store.evictions(undefined, { keys: ['a'] })).rejects.toThrow(
        'evictions: options.keys needs a threadId (keys are per thread)',
      );
      await expect(store.evictions('chat', { keys: [1] as never })).rejects.toThrow(
        'evictions: options.keys must be an array of strings, got [1]',
      );
      await expect(store.evictions('chat', 'a' as never)).rejects.toThrow('evictions: options must be an object');
    } finally {
      await dispose();
    }
  });
});

describe('IndexedDbOffloadStore evictions(threadId, { keys })', () => {
  it("reads each key's records through the [threadId, key] index, never the thread's log", async () => {
    const store = new IndexedDbOffloadStore({ name: `store-list-keys-${crypto.randomUUID()}` });
    const getAll = vi.spyOn(IDBIndex.prototype, 'getAll');
    try {
      for (let i = 0; i < 40; i++) await put(store, 'chat', `k${i}`, `text ${i}...`, {}, 30);
      getAll.mockClear();
      const [record] = await store.evictions('chat', { keys: ['k5'] });
      expect(record).toMatchObject({ threadId: 'chat', key: 'k5', reason: 'bound' });
      const reads = getAll.mock.contexts.map((index, call) => {
        const range = getAll.mock.calls[call]![0] as IDBKeyRange;
        return [(index as IDBIndex).name, range.lower, range.upper];
      });
      expect(reads).toEqual([['byKey', ['chat', 'k5'], ['chat', 'k5']]]);
    } finally {
      getAll.mockRestore();
      await store.deleteDatabase();
    }
  });
});
