export { DEFAULT_CHANNEL } from './channel-protocol.js';
export { type ExposeOptions, exposeToInspector } from './expose.js';
export { type InspectorOptions, type InspectorSourceOption, mountInspector } from './mount.js';
export type { InspectableStore } from './source.js';
