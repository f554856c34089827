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

/**
 * What the provider said a model call cost, in its own tokens: the whole input, the part of it read
 * from its prompt cache, and the reply. A count the provider did not give is left out; a 0 it gave
 * stays 0. The runtime keeps only finite counts ≥ 0 (anything else is dropped, never a failed run).
 */
export interface ModelUsage {
  /** The whole input: the system prompt, tools and messages, as the provider counted them. */
  inputTokens?: number;
  /** The part of the input the provider read from its prompt cache. */
  cachedInputTokens?: number;
  /** The reply. */
  outputTokens?: number;
}

/** A model's whole reply: its text (or content parts), the tool calls it asks for, and what it cost. */
export interface ModelReply {
  content: string | ContentPart[];
  toolCalls?: ToolCall[];
  /** What the provider reported the call cost; the offload adds it to the request's ledger record. */
  usage?: ModelUsage;
}

/**
 * One piece of a streamed reply: a piece of its text, one whole tool call, or what the call cost
 * (usually last). The runtime joins the text deltas, keeps the tool calls in the order they came,
 * and takes the last usage part as the reply's `usage`.
 */
export type ModelStreamPart =
  | { type: 'text-delta'; text: string }
  | ({ type: 'tool-call' } & ToolCall)
  | ({ type: 'usage' } & ModelUsage);

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
