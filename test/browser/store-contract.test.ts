import { IndexedDbOffloadStore } from '../../lib/store/indexeddb-store.js';
import { MemoryOffloadStore } from '../../lib/store/memory-store.js';
import { storeContract } from '../../lib/testing.js';
import { failMemoryCommits, failMemoryFailureWrites } from '../node/fixtures/fail-memory-commits.js';
import { failIdbCommits, failIdbFailureWrites } from './fixtures/fail-commits.js';

// The package's stores run the exported contract suite, with their own words checked too.
const memory = { failCommits: failMemoryCommits, failFailureWrites: failMemoryFailureWrites, exactMessages: true };
const indexedDb = {
  dispose: (store: IndexedDbOffloadStore) => store.deleteDatabase(),
  failCommits: failIdbCommits,
  failFailureWrites: failIdbFailureWrites,
  exactMessages: true,
};
const database = () => `store-contract-${crypto.randomUUID()}`;

storeContract(() => new MemoryOffloadStore(), { name: 'MemoryOffloadStore in the browser', ...memory });

storeContract(() => new IndexedDbOffloadStore({ name: database(), logRetention: 50, requestRetention: 40 }), {
  name: 'IndexedDbOffloadStore',
  ...indexedDb,
  logRetention: 50,
  requestRetention: 40,
});

// The same contract with every text in many chunks of 7 code units, so pages cross chunks, and a
// log retention of 10 (a ledger retention of 5).
storeContract(() => new MemoryOffloadStore({ chunkChars: 7, logRetention: 10, requestRetention: 5 }), {
  name: 'MemoryOffloadStore, texts in chunks of 7',
  ...memory,
  logRetention: 10,
  requestRetention: 5,
});

storeContract(
  () => new IndexedDbOffloadStore({ name: database(), chunkChars: 7, logRetention: 10, requestRetention: 5 }),
  { name: 'IndexedDbOffloadStore, texts in chunks of 7', ...indexedDb, logRetention: 10, requestRetention: 5 },
);
