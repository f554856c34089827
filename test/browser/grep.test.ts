// grep's hardening (issue 12) on the offload's backend over both stores, in Chromium.

import { afterAll } from 'vitest';
import { IndexedDbOffloadStore } from '../../lib/store/indexeddb-store.js';
import { MemoryOffloadStore } from '../../lib/store/memory-store.js';
import { grepContract, offloadBackendWith } from './grep-contract.js';

const idb = new IndexedDbOffloadStore({ name: `grep-${crypto.randomUUID()}` });
// Small chunks: lines run from one stored chunk into the next, and long lines across many.
const small = new IndexedDbOffloadStore({ name: `grep-small-${crypto.randomUUID()}`, chunkChars: 4099 });
afterAll(async () => {
  await idb.deleteDatabase();
  await small.deleteDatabase();
});

grepContract('OffloadBackend over IndexedDbOffloadStore', (files) => offloadBackendWith(idb, files));
grepContract('OffloadBackend over IndexedDbOffloadStore in chunks of 4,099', (files) =>
  offloadBackendWith(small, files),
);
grepContract('OffloadBackend over MemoryOffloadStore in Chromium', (files) =>
  offloadBackendWith(new MemoryOffloadStore(), files),
);
