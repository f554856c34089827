import type { StoreEvent } from '../../lib/index.js';
import { readLedger } from './context-wire.js';
import {
  type InspectableStore,
  readKeyed,
  storeBound,
  storeCleared,
  storeFailures,
  storeUnreadable,
} from './inspectable-store.js';
import { type ChangeListener, type InspectorSource, toSourceChange } from './source.js';
import { readStoreInfo } from './store-info.js';

/**
 * A source over a store in this window: one subscription to the store, however many listen, and
 * `close()` to drop it.
 */
export function storeSource(store: InspectableStore): InspectorSource & { close(): void } {
  const listeners = new Set<ChangeListener>();
  let unsubscribe: (() => void) | undefined;
  const stopListening = () => {
    unsubscribe?.();
    unsubscribe = undefined;
  };
  return {
    label: 'this window',
    list: (threadId, options) => readKeyed(store, 'list', threadId, options?.keys),
    evictions: (threadId, options) => readKeyed(store, 'evictions', threadId, options?.keys),
    failures: (threadId) => storeFailures(store, threadId),
    unreadable: (threadId) => storeUnreadable(store, threadId),
    totalBytes: (threadId) => store.totalBytes(threadId),
    bound: (threadId) => storeBound(store, threadId),
    read: (threadId, key) => store.read(threadId, key),
    requests: (threadId, options) => readLedger(store, threadId, options?.after),
    cleared: (threadId) => storeCleared(store, threadId),
    latestRequest: async (threadId, options) => (await readLedger(store, threadId, options?.after))?.at(-1),
    // Each thread's bound comes from the store (`bound`); mountInspector's own option is the fallback.
    info: () => readStoreInfo(store, undefined),
    onChange(listener) {
      listeners.add(listener);
      unsubscribe ??= store.subscribe((event: StoreEvent) => {
        const change = toSourceChange(event);
        for (const each of [...listeners]) each(change && [change]);
      });
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0) stopListening();
      };
    },
    close() {
      listeners.clear();
      stopListening();
    },
  };
}
