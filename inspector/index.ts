export { type InspectorOptions, type InspectorSourceOption, mountInspector } from './mount.js';
export { DEFAULT_CHANNEL } from './source/channel-protocol.js';
export { type ExposeOptions, exposeToInspector } from './source/expose.js';
export type { InspectableStore, InspectorSource, SourceChange } from './source/source.js';
export type { StoreInfo } from './source/store-info.js';
