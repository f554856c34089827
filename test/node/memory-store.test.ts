import { describe, expect, it } from 'vitest';
import { MemoryOffloadStore } from '../../lib/store/memory-store.js';
import { storeContract } from '../../lib/testing.js';
import { failMemoryCommits, failMemoryFailureWrites } from './fixtures/fail-memory-commits.js';

const faults = { failCommits: failMemoryCommits, failFailureWrites: failMemoryFailureWrites, exactMessages: true };

storeContract(() => new MemoryOffloadStore(), { name: 'MemoryOffloadStore', ...faults });

// Every text in many chunks of 7 code units, so pages cross chunks.
storeContract(() => new MemoryOffloadStore({ chunkChars: 7 }), {
  name: 'MemoryOffloadStore, texts in chunks of 7',
  ...faults,
});

describe('MemoryOffloadStore options', () => {
  it('checks logRetention like its other options', () => {
    expect(() => new MemoryOffloadStore({ logRetention: 0 })).toThrow(
      'MemoryOffloadStore: logRetention must be an integer of at least 1, got 0',
    );
    expect(() => new MemoryOffloadStore({ logRetention: '5' as never })).toThrow(RangeError);
    expect(() => new MemoryOffloadStore({ logRetention: Number.POSITIVE_INFINITY })).toThrow(/logRetention/);
  });
});
