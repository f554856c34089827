import { maxAgeScenarios } from '../node/max-age-scenarios.js';
import { indexedDbStores, memoryStores } from './fixtures/holding-stores.js';

maxAgeScenarios('IndexedDbOffloadStore', indexedDbStores('max-age'));
maxAgeScenarios('MemoryOffloadStore in the browser', memoryStores);
