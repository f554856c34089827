import type { ContentPart } from '../shared/content.js';

/** A tool call as the model asked for it; `id` is the provider's tool call id. */
export interface ToolCall {
  id: string;
  name: string;
  args: unknown;
}

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

export type AssistantMessage = Extract<Message, { role: 'assistant' }>;
export type ToolMessage = Extract<Message, { role: 'tool' }>;
