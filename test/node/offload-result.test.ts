import { MemoryOffloadStore } from '../../lib/store/memory-store.js';
import { offloadResultContract } from '../browser/offload-result-contract.js';
import { failMemoryCommits } from './fixtures/fail-memory-commits.js';

offloadResultContract('MemoryOffloadStore', {
  open: async () => new MemoryOffloadStore(),
  dispose: async () => {},
  failCommits: failMemoryCommits,
});
