import { MemoryOffloadStore } from '../../lib/store/memory-store.js';
import { maxAgeScenarios } from './max-age-scenarios.js';

maxAgeScenarios('MemoryOffloadStore', { open: async () => new MemoryOffloadStore(), dispose: async () => {} });
