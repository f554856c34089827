export type { OffloadEvent } from '../../lib/index.js';
export type { OffloadReadTools } from './read-tools.js';
export { type WithOffload, type WithOffloadOptions, withOffload } from './with-offload.js';
