import type { ContentPart } from '../shared/content.js';

/** A tool call as the model asked for it; `id` is the provider's tool call id. */
export interface ToolCall {
  id: string;
  name: string;
  args: unknown;
}

/** One message of a thread: the user's, the assistant's (with the tool calls it asked for), or one tool call's result. */
export type Message =
  | { role: 'user'; id: string; content: ContentPart[] }
  | { role: 'assistant'; id: string; content: ContentPart[]; toolCalls: ToolCall[] }
  | {
      role: 'tool';
      id: string;
      toolCallId: string;
      toolName: string;
      content: ContentPart[];
      isError: boolean;
    };

/** A message of the model, with the tool calls it asked for (RunResult's `output`). */
export type AssistantMessage = Extract<Message, { role: 'assistant' }>;
export type ToolMessage = Extract<Message, { role: 'tool' }>;
