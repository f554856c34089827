export { type Backend, BackendError, type FileInfo, type GrepMatch } from './backends/backend.js';
export { type Agent, type AgentOptions, createAgent } from './runtime/agent.js';
export { type Checkpointer, MemoryCheckpointer } from './runtime/checkpoint.js';
export type { AssistantMessage, ContentPart, MediaPart, Message, TextPart, ToolCall } from './runtime/messages.js';
export {
  type Block,
  block,
  type HookContext,
  type Middleware,
  type StateKey,
  type ToolCallRequest,
} from './runtime/middleware.js';
export type { JsonSchema, Model, ModelReply, ModelRequest, ToolSpec } from './runtime/model.js';
export { type StateUpdate, ToolOutcome, type ToolResult } from './runtime/outcome.js';
export type { RunResult } from './runtime/run-result.js';
export { type Tool, type ToolContext, tool } from './runtime/tool.js';
export { MemoryOffloadStore } from './store/memory-store.js';
export type {
  EvictionRecord,
  OffloadStore,
  StoredResultInfo,
  StoreEvent,
  StoreFailure,
} from './store/offload-store.js';
export { estimateTokens } from './text.js';
