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
      await put(store, 'chat', 'a', 'first', { createdAt: 1000 });
      await put(store, 'chat', 'b', 'second', { createdAt: 2000 });
      await put(store, 'chat', 'c', 'third', { createdAt: 3000 });
      await put(store, 'other', 'a', 'another thread');
      await put(store, 'chat', 'd', 'x'.repeat(40), { createdAt: 4000 }, 40); // evicts a, b and c
      await put(store, 'chat', 'e', 'fifth', { createdAt: 5000 });

      const keys = (entries: Array<{ key: string }>) => entries.map((entry) => entry.key);
      expect(keys(await store.list('chat', { keys: ['e', 'd', 'a', 'never', 'e'] }))).toEqual(['d', 'e']);
      expect(await store.list('chat', { keys: [] })).toEqual([]);
      const [listed] = await store.list('other', { keys: ['a'] });
      expect(listed).toEqual((await store.list('other'))[0]);
      expect(keys(await store.list('chat', {}))).toEqual(['d', 'e']);
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
