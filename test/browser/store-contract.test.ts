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
