import { IndexedDbOffloadStore } from '../../lib/store/indexeddb-store.js';
import { MemoryOffloadStore } from '../../lib/store/memory-store.js';
import { storeContract } from './store-contract.js';

storeContract('MemoryOffloadStore in Chromium', {
  open: async () => new MemoryOffloadStore(),
  dispose: async () => {},
});

storeContract('IndexedDbOffloadStore', {
  open: async () => new IndexedDbOffloadStore({ name: `store-contract-${crypto.randomUUID()}` }),
  dispose: (store) => (store as IndexedDbOffloadStore).deleteDatabase(),
});

// The same contract with every text in many chunks of 7 code units, so pages cross chunks.
storeContract('MemoryOffloadStore, texts in chunks of 7', {
  open: async () => new MemoryOffloadStore({ chunkChars: 7 }),
  dispose: async () => {},
});

storeContract('IndexedDbOffloadStore, texts in chunks of 7', {
  open: async () => new IndexedDbOffloadStore({ name: `store-contract-${crypto.randomUUID()}`, chunkChars: 7 }),
  dispose: (store) => (store as IndexedDbOffloadStore).deleteDatabase(),
});
