export type {
  Backend,
  FileInfo,
  GrepMatch,
  GrepMatches,
  GrepOptions,
  GrepStop,
  LinesPage,
} from './backends/backend.js';
export { CompositeBackend } from './backends/composite-backend.js';
export { type FileToolsOptions, fileTools } from './backends/file-tools.js';
export { MemoryBackend } from './backends/memory-backend.js';
export { type OpenAICompatibleModelOptions, openAICompatibleModel } from './models/openai-compatible.js';
export { OffloadBackend } from './offload/offload-backend.js';
export type { OffloadedResult, OffloadResultInput } from './offload/offload-now.js';
export type { OffloadReadTool } from './offload/read-tools.js';
export { ToolOutputOffload, type ToolOutputOffloadOptions } from './offload/tool-output-offload.js';
export { type Agent, type AgentOptions, createAgent } from './runtime/agent.js';
export { type Checkpointer, MemoryCheckpointer } from './runtime/checkpoint.js';
export type { RunEvent } from './runtime/events.js';
export { IndexedDbCheckpointer, type IndexedDbCheckpointerOptions } from './runtime/indexeddb-checkpointer.js';
export type { AssistantMessage, ContentPart, MediaPart, Message, TextPart, ToolCall } from './runtime/messages.js';
export {
  type Block,
  block,
  type HookContext,
  type Middleware,
  type StateKey,
  type ToolCallRequest,
  type TurnEnd,
} from './runtime/middleware.js';
export type {
  JsonSchema,
  Model,
  ModelOutput,
  ModelReply,
  ModelRequest,
  ModelStreamPart,
  ToolSpec,
} from './runtime/model.js';
export { modelReply, type StreamEvent, type StreamListener } from './runtime/model-stream.js';
export { type StateUpdate, ToolOutcome, type ToolResult } from './runtime/outcome.js';
export type { RunResult } from './runtime/run-result.js';
export { type Tool, type ToolContext, tool } from './runtime/tool.js';
export { BackendError, type BackendErrorCode } from './shared/errors.js';
export { estimateTokens } from './shared/text.js';
export { IndexedDbOffloadStore, type IndexedDbOffloadStoreOptions } from './store/indexeddb-store.js';
export { MemoryOffloadStore, type MemoryOffloadStoreOptions } from './store/memory-store.js';
export type {
  EvictionRecord,
  HeldText,
  ListOptions,
  OffloadStore,
  SeenDetails,
  SeenResult,
  SettleOptions,
  StoredResultInfo,
  StoreEvent,
  StoreFailure,
  UnreadableRecord,
  UnreadableStore,
} from './store/offload-store.js';
export { StoreReadError } from './store/store-read-error.js';
export {
  Summarization,
  type SummarizationEvent,
  type SummarizationOptions,
} from './summarization/summarization.js';
export { estimateTokensByScript } from './tokens/estimate-by-script.js';
export type { EstimateTokens } from './tokens/token-measure.js';
