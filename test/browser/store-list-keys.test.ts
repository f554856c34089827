import { describe, expect, it } from 'vitest';
import { IndexedDbOffloadStore } from '../../lib/store/indexeddb-store.js';
import { MemoryOffloadStore } from '../../lib/store/memory-store.js';
import type { OffloadStore } from '../../lib/store/offload-store.js';
import { put } from './inspector-fixtures.js';

/** `list(threadId, { keys })`: what the inspector reads after a change event, on both stores. */
const stores: Array<[string, () => Promise<{ store: OffloadStore; dispose(): Promise<void> }>]> = [
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
