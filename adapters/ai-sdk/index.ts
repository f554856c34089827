export type { OffloadReadTools } from './read-tools.js';
export { type OffloadEvent, type WithOffload, type WithOffloadOptions, withOffload } from './with-offload.js';
