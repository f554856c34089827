export { DEFAULT_CHANNEL } from './channel-protocol.js';
export { type ExposeOptions, exposeToInspector } from './expose.js';
export type { InspectableStore } from './inspectable-store.js';
export { type InspectorOptions, type InspectorSourceOption, mountInspector } from './mount.js';
export type { InspectorSource, SourceChange } from './source.js';
export type { StoreInfo } from './store-info.js';
