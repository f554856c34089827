import { describe, expect, it } from 'vitest';
import { storeSource } from '../../inspector/source/read-ops.js';
import { MemoryOffloadStore } from '../../lib/store/memory-store.js';
import { storeContract } from '../../lib/testing.js';
import { failMemoryCommits, failMemoryFailureWrites } from './fixtures/fail-memory-commits.js';

const faults = { failCommits: failMemoryCommits, failFailureWrites: failMemoryFailureWrites, exactMessages: true };

storeContract(() => new MemoryOffloadStore(), { name: 'MemoryOffloadStore', ...faults });

// Every text in many chunks of 7 code units, so pages cross chunks.
storeContract(() => new MemoryOffloadStore({ chunkChars: 7, requestRetention: 3 }), {
  name: 'MemoryOffloadStore, texts in chunks of 7, a ledger of 3',
  ...faults,
  requestRetention: 3,
});

describe('MemoryOffloadStore options', () => {
  it('checks logRetention like its other options', () => {
    expect(() => new MemoryOffloadStore({ logRetention: 0 })).toThrow(
      'MemoryOffloadStore: logRetention must be an integer of at least 1, got 0',
    );
    expect(() => new MemoryOffloadStore({ logRetention: '5' as never })).toThrow(RangeError);
    expect(() => new MemoryOffloadStore({ logRetention: Number.POSITIVE_INFINITY })).toThrow(/logRetention/);
  });

  it('checks requestRetention like logRetention', () => {
    expect(() => new MemoryOffloadStore({ requestRetention: 0 })).toThrow(
      'MemoryOffloadStore: requestRetention must be an integer of at least 1, got 0',
    );
    expect(() => new MemoryOffloadStore({ requestRetention: '5' as never })).toThrow(RangeError);
  });

  it('rejects an unknown option naming it and the options it takes', () => {
    expect(() => new MemoryOffloadStore({ logRetenion: 5 } as never)).toThrow(
      new TypeError(
        'MemoryOffloadStore: unknown option "logRetenion"; the options are chunkChars, logRetention, requestRetention',
      ),
    );
    expect(() => new MemoryOffloadStore(null as never)).toThrow(
      'MemoryOffloadStore: options must be an object of chunkChars, logRetention, requestRetention, got null',
    );
  });
});

describe('MemoryOffloadStore: the latest request', () => {
  it("requests with `newest` (and the inspector's latestRequest) copies only the newest records, not the ledger", async () => {
    const store = new MemoryOffloadStore();
    for (let tokens = 1; tokens <= 50; tokens++) {
      await store.recordRequest({
        threadId: 't',
        at: 1000 + tokens,
        record: {
          tokens,
          tokensWithoutOffload: tokens,
          parts: { system: tokens, messages: 0, whole: 0, previews: 0, pointers: 0, cut: 0 },
          results: [],
        },
        cleared: [],
      });
    }
    expect((await store.requests('t', { newest: 1 })).map((record) => record.step)).toEqual([50]);
    expect((await store.requests('t', { after: 10, newest: 3 })).map((record) => record.step)).toEqual([48, 49, 50]);
    expect((await store.requests('t', { after: 49, newest: 3 })).map((record) => record.step)).toEqual([50]);
    // What the store answers the inspector's latestRequest: one record, not 50 filtered after.
    const answered: number[] = [];
    const counted = Object.assign(Object.create(store) as MemoryOffloadStore, {
      requests: async (...args: Parameters<MemoryOffloadStore['requests']>) => {
        const records = await store.requests(...args);
        answered.push(records.length);
        return records;
      },
    });
    expect((await storeSource(counted).latestRequest!('t'))?.step).toBe(50);
    expect(answered).toEqual([1]);
    await expect(store.requests('t', { newest: 1.5 })).rejects.toThrow(
      'requests: options.newest must be an integer of at least 1, got 1.5',
    );
  });
});
