export type { OffloadEvent } from '../../lib/index.js';
export { type OffloadChat, type OffloadChatOptions, offloadChat } from './chat.js';
export { type OffloadChatRoute, offloadChatRoute } from './chat-route.js';
export type { OffloadReadTools } from './read-tools.js';
export { type WithOffload, type WithOffloadOptions, withOffload } from './with-offload.js';
