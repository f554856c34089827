export type { OffloadEvent } from '../../lib/index.js';
export { type OffloadMiddlewareOptions, offloadMiddleware } from './offload-middleware.js';
export type { ThreadIdOf } from './thread-id.js';
