import { describe, expect, it } from 'vitest';
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
