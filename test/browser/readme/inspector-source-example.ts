import { type InspectorSource, mountInspector } from '../../../inspector/index.js';
import { MemoryOffloadStore } from '../../../lib/index.js';

const store = new MemoryOffloadStore(); // or your offload's: offload.store
const threadId = 'chat-1';
// The panel over one thread of the store only, e.g. to show a user their own conversation.
const oneThread: InspectorSource = {
  label: `thread ${threadId}`,
  list: (_anyThread, options) => store.list(threadId, options),
  evictions: () => store.evictions(threadId),
  failures: () => store.failures(threadId),
  totalBytes: () => store.totalBytes(threadId),
  bound: () => store.bound(threadId),
  read: (_thread, key) => store.read(threadId, key),
  onChange: (listener) =>
    store.subscribe((event) => {
      if (event.threadId === threadId) listener([event]);
    }),
};
const unmount = mountInspector(document.body, { source: oneThread });

export { store, unmount };
