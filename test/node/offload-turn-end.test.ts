import { MemoryOffloadStore } from '../../lib/store/memory-store.js';
import { turnEndScenarios } from './turn-end-scenarios.js';

turnEndScenarios('MemoryOffloadStore', { open: async () => new MemoryOffloadStore(), dispose: async () => {} });
