import { describe, expect, it } from 'vitest';
import { MemoryOffloadStore } from '../../lib/store/memory-store.js';
import { storeContract } from '../browser/store-contract.js';
import { failMemoryCommits, failMemoryFailureWrites } from './fixtures/fail-memory-commits.js';

storeContract('MemoryOffloadStore', {
  open: async () => new MemoryOffloadStore(),
  dispose: async () => {},
  failCommits: failMemoryCommits,
  failFailureWrites: failMemoryFailureWrites,
});

// Every text in many chunks of 7 code units, so pages cross chunks.
storeContract('MemoryOffloadStore, texts in chunks of 7', {
  open: async () => new MemoryOffloadStore({ chunkChars: 7 }),
  dispose: async () => {},
  failCommits: failMemoryCommits,
  failFailureWrites: failMemoryFailureWrites,
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
