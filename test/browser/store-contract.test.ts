import { IndexedDbOffloadStore } from '../../lib/store/indexeddb-store.js';
import { MemoryOffloadStore } from '../../lib/store/memory-store.js';
import { failMemoryCommits, failMemoryFailureWrites } from '../node/fixtures/fail-memory-commits.js';
import { failIdbCommits, failIdbFailureWrites } from './fixtures/fail-commits.js';
import { storeContract } from './store-contract.js';

storeContract('MemoryOffloadStore in Chromium', {
  open: async () => new MemoryOffloadStore(),
  dispose: async () => {},
  failCommits: failMemoryCommits,
  failFailureWrites: failMemoryFailureWrites,
});

storeContract('IndexedDbOffloadStore', {
  open: async () => new IndexedDbOffloadStore({ name: `store-contract-${crypto.randomUUID()}`, logRetention: 50 }),
  dispose: (store) => (store as IndexedDbOffloadStore).deleteDatabase(),
  failCommits: failIdbCommits,
  failFailureWrites: failIdbFailureWrites,
  logRetention: 50,
});

// The same contract with every text in many chunks of 7 code units, so pages cross chunks, and a
// log retention of 10.
storeContract('MemoryOffloadStore, texts in chunks of 7', {
  open: async () => new MemoryOffloadStore({ chunkChars: 7, logRetention: 10 }),
  dispose: async () => {},
  failCommits: failMemoryCommits,
  failFailureWrites: failMemoryFailureWrites,
  logRetention: 10,
});

storeContract('IndexedDbOffloadStore, texts in chunks of 7', {
  open: async () =>
    new IndexedDbOffloadStore({ name: `store-contract-${crypto.randomUUID()}`, chunkChars: 7, logRetention: 10 }),
  dispose: (store) => (store as IndexedDbOffloadStore).deleteDatabase(),
  failCommits: failIdbCommits,
  failFailureWrites: failIdbFailureWrites,
  logRetention: 10,
});
