import { IndexedDbOffloadStore } from '../../lib/store/indexeddb-store.js';
import { MemoryOffloadStore } from '../../lib/store/memory-store.js';
import { maxAgeScenarios } from '../node/max-age-scenarios.js';

maxAgeScenarios('IndexedDbOffloadStore', {
  open: async () => new IndexedDbOffloadStore({ name: `max-age-${crypto.randomUUID()}` }),
  dispose: (store) => (store as IndexedDbOffloadStore).deleteDatabase(),
});

maxAgeScenarios('MemoryOffloadStore in the browser', {
  open: async () => new MemoryOffloadStore(),
  dispose: async () => {},
});
