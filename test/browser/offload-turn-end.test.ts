import { turnEndScenarios } from '../node/turn-end-scenarios.js';
import { indexedDbStores, memoryStores } from './fixtures/holding-stores.js';

turnEndScenarios('IndexedDbOffloadStore', indexedDbStores('turn-end'));
turnEndScenarios('MemoryOffloadStore in Chromium', memoryStores);
