import type { ContentPart, JsonSchema } from '../shared/content.js';
import type { Message, ToolCall } from './messages.js';

/** A tool as the model is offered it: its name, what it does, and its parameters as a JSON Schema. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: JsonSchema;
}

/** What one model call is sent: the system prompt, the messages and the tools offered. */
export interface ModelRequest {
  systemPrompt: string;
  messages: readonly Message[];
  tools: readonly ToolSpec[];
}

/** A model's whole reply: its text (or content parts) and the tool calls it asks for. */
export interface ModelReply {
  content: string | ContentPart[];
  toolCalls?: ToolCall[];
}

/**
 * One piece of a streamed reply: a piece of its text, or one whole tool call. The runtime joins
 * the text deltas and keeps the tool calls in the order they came.
 */
export type ModelStreamPart = { type: 'text-delta'; text: string } | ({ type: 'tool-call' } & ToolCall);

/** What a model gives back: the whole reply, or a stream of its parts. */
export type ModelOutput = ModelReply | AsyncIterable<ModelStreamPart>;

/**
 * A model: the request in, the reply out. A model that streams returns (or resolves to) an
 * AsyncIterable of ModelStreamParts, e.g. from an `async function*`; the runtime assembles the
 * reply and reports the parts as they arrive (createAgent's `onStream`). `signal` aborts the call.
 */
export type Model = (
  request: ModelRequest,
  options: { signal: AbortSignal },
) => Promise<ModelOutput> | AsyncIterable<ModelStreamPart>;
