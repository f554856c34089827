// grep's hardening (issue 12) on the offload's backend over both stores, in Chromium.

import { afterAll } from 'vitest';
import { IndexedDbOffloadStore } from '../../lib/store/indexeddb-store.js';
import { MemoryOffloadStore } from '../../lib/store/memory-store.js';
import { grepContract, offloadBackendWith } from './grep-contract.js';

const idb = new IndexedDbOffloadStore({ name: `grep-${crypto.randomUUID()}` });
afterAll(() => idb.deleteDatabase());

grepContract('OffloadBackend over IndexedDbOffloadStore', (files) => offloadBackendWith(idb, files));
grepContract('OffloadBackend over MemoryOffloadStore in Chromium', (files) =>
  offloadBackendWith(new MemoryOffloadStore(), files),
);
