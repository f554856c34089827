export { type Agent, type AgentOptions, createAgent, type RunEvent, type RunResult } from './agent/create-agent.js';
export { type FileToolsOptions, fileTools } from './agent/file-tools.js';
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
export { MemoryBackend } from './backends/memory-backend.js';
export { type OpenAICompatibleModelOptions, openAICompatibleModel } from './models/openai-compatible.js';
export { type Checkpointer, MemoryCheckpointer } from './runtime/checkpoint.js';
export { UsageError } from './runtime/failure.js';
export { IndexedDbCheckpointer, type IndexedDbCheckpointerOptions } from './runtime/indexeddb-checkpointer.js';
export type { AssistantMessage, Message, ToolCall } from './runtime/messages.js';
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
  Model,
  ModelOutput,
  ModelReply,
  ModelRequest,
  ModelStreamPart,
  ModelUsage,
  ToolSpec,
} from './runtime/model.js';
export { modelReply, type StreamEvent, type StreamListener } from './runtime/model-stream.js';
export { type StateUpdate, ToolOutcome, type ToolResult } from './runtime/outcome.js';
export { type Tool, type ToolContext, tool } from './runtime/tool.js';
export type { JsonSchema } from './shared/content.js';
export {
  Summarization,
  type SummarizationEvent,
  type SummarizationOptions,
} from './summarization/summarization.js';
