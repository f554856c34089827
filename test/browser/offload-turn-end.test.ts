import { IndexedDbOffloadStore } from '../../lib/store/indexeddb-store.js';
import { MemoryOffloadStore } from '../../lib/store/memory-store.js';
import { turnEndScenarios } from '../node/turn-end-scenarios.js';

turnEndScenarios('IndexedDbOffloadStore', {
  open: async () => new IndexedDbOffloadStore({ name: `turn-end-${crypto.randomUUID()}` }),
  dispose: (store) => (store as IndexedDbOffloadStore).deleteDatabase(),
});

turnEndScenarios('MemoryOffloadStore in Chromium', {
  open: async () => new MemoryOffloadStore(),
  dispose: async () => {},
});
