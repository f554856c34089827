import { MemoryOffloadStore } from '../../lib/store/memory-store.js';
import { storeContract } from '../browser/store-contract.js';

storeContract('MemoryOffloadStore', {
  open: async () => new MemoryOffloadStore(),
  dispose: async () => {},
});
