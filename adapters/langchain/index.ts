export { type OffloadMiddlewareOptions, offloadMiddleware } from './offload-middleware.js';
export type { ThreadIdOf } from './thread-id.js';
export type { OffloadEvent } from './tool-messages.js';
