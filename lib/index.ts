// At most 40 names, so the main entry stays quick to read: the context types an app never names
// alone (a tool spec, a tool call, a replacement, a ledger record's parts, how a result was shown)
// are reached through these.
export type {
  ContextBudget,
  ContextMessage,
  ContextRequest,
  FittedContext,
} from './offload/context/request.js';
export type { OffloadEvent } from './offload/events.js';
export { OffloadBackend } from './offload/offload-backend.js';
export type { OffloadResultInput } from './offload/offload-result.js';
export type { OffloadedResult } from './offload/offloaded-result.js';
export type { OffloadReadTool } from './offload/read-tools.js';
export type { OffloadCommit } from './offload/store-result.js';
export { ToolOutputOffload, type ToolOutputOffloadOptions } from './offload/tool-output-offload.js';
export type { ContentPart, MediaPart, TextPart } from './shared/content.js';
export { BackendError, type BackendErrorCode } from './shared/errors.js';
export { estimateTokens, splitLines } from './shared/text.js';
export { IndexedDbOffloadStore, type IndexedDbOffloadStoreOptions } from './store/indexeddb-store.js';
export { MemoryOffloadStore, type MemoryOffloadStoreOptions } from './store/memory-store.js';
export type {
  AppliedChange,
  ClearedResult,
  EvictionRecord,
  ListOptions,
  OffloadStore,
  RequestRecord,
  RequestResult,
  StagedResult,
  StoreChange,
  StoredResultInfo,
  StoreEvent,
  StoreFailure,
  UnreadableRecord,
  WritableOffloadStore,
} from './store/offload-store.js';
export { StoreReadError } from './store/store-read-error.js';
export { estimateTokensByScript } from './tokens/estimate-by-script.js';
export type { EstimateTokens } from './tokens/token-measure.js';
