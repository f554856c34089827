// The options of the stores and the checkpointer are named types of the package's main entry, so an
// app can write its options once (in a config module, say) and hand them on. The type assertions are
// checked by the typecheck that `npm test` runs; the calls below check they reach the constructors.
import { describe, expect, expectTypeOf, it } from 'vitest';
import { IndexedDbCheckpointer, type IndexedDbCheckpointerOptions } from '../../lib/agent.js';
import {
  IndexedDbOffloadStore,
  type IndexedDbOffloadStoreOptions,
  MemoryOffloadStore,
  type MemoryOffloadStoreOptions,
} from '../../lib/index.js';

type OptionsOf<C extends abstract new (...args: never[]) => unknown> = NonNullable<ConstructorParameters<C>[0]>;

describe('the options types of the stores and the checkpointer, from the main entry', () => {
  it('each is exactly what its constructor takes', () => {
    expectTypeOf<IndexedDbOffloadStoreOptions>().toEqualTypeOf<OptionsOf<typeof IndexedDbOffloadStore>>();
    expectTypeOf<MemoryOffloadStoreOptions>().toEqualTypeOf<OptionsOf<typeof MemoryOffloadStore>>();
    expectTypeOf<IndexedDbCheckpointerOptions>().toEqualTypeOf<OptionsOf<typeof IndexedDbCheckpointer>>();
  });

  it('options written ahead under those types are the ones the constructors use and check', async () => {
    const storeOptions: IndexedDbOffloadStoreOptions = { name: 'app-results', blockedTimeoutMs: 500 };
    const checkpointerOptions: IndexedDbCheckpointerOptions = { name: 'app-threads' };
    expect(new IndexedDbOffloadStore(storeOptions).name).toBe('app-results');
    expect(new IndexedDbCheckpointer(checkpointerOptions).name).toBe('app-threads');

    const badTimeout: IndexedDbCheckpointerOptions = { blockedTimeoutMs: -1 };
    expect(() => new IndexedDbCheckpointer(badTimeout)).toThrow(/blockedTimeoutMs/);
    const badChunks: MemoryOffloadStoreOptions = { chunkChars: 0 };
    expect(() => new MemoryOffloadStore(badChunks)).toThrow(/chunkChars/);
    const memoryOptions: MemoryOffloadStoreOptions = { chunkChars: 4, logRetention: 1 };
    const memory = new MemoryOffloadStore(memoryOptions);
    expect(await memory.list()).toEqual([]);
  });
});
