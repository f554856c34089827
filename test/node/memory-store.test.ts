import { MemoryOffloadStore } from '../../lib/store/memory-store.js';
import { storeContract } from '../browser/store-contract.js';
import { failMemoryCommits } from './fixtures/fail-memory-commits.js';

storeContract('MemoryOffloadStore', {
  open: async () => new MemoryOffloadStore(),
  dispose: async () => {},
  failCommits: failMemoryCommits,
});

// Every text in many chunks of 7 code units, so pages cross chunks.
storeContract('MemoryOffloadStore, texts in chunks of 7', {
  open: async () => new MemoryOffloadStore({ chunkChars: 7 }),
  dispose: async () => {},
  failCommits: failMemoryCommits,
});
