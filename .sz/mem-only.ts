import { MemoryOffloadStore } from '../lib/store/memory-store.ts';

const s = new MemoryOffloadStore();
console.log(await s.list('t'));
