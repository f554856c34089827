import { IndexedDbOffloadStore } from '../store/indexeddb-store.js';
import { MemoryOffloadStore } from '../store/memory-store.js';
import type { WritableOffloadStore } from '../store/offload-store.js';

/**
 * The store a ToolOutputOffload uses when none is given: IndexedDB where it exists (pages, workers,
 * extension service workers), else memory (Node, tests).
 */
export function defaultOffloadStore(): WritableOffloadStore {
  return typeof indexedDB === 'undefined' ? new MemoryOffloadStore() : new IndexedDbOffloadStore();
}
