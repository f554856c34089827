import { IndexedDbOffloadStore } from '../lib/store/indexeddb-store.ts';

const s = new IndexedDbOffloadStore();
console.log(await s.list('t'));
