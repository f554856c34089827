import { IndexedDbOffloadStore } from '../store/indexeddb-store.js';
export function defaultOffloadStore() {
  return new IndexedDbOffloadStore();
}
