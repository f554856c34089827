import type { ContentPart, Message, ToolCall } from './messages.js';

/** A JSON Schema object (draft 2020-12). */
export type JsonSchema = Record<string, unknown>;

export interface ToolSpec {
  name: string;
  description: string;
  parameters: JsonSchema;
}

export interface ModelRequest {
  systemPrompt: string;
  messages: readonly Message[];
  tools: readonly ToolSpec[];
}

export interface ModelReply {
  content: string | ContentPart[];
  toolCalls?: ToolCall[];
}

export type Model = (request: ModelRequest, options: { signal: AbortSignal }) => Promise<ModelReply>;
