import type { Checkpointer } from '../../lib/runtime/checkpoint.js';
import type { Message, ToolCall } from '../../lib/runtime/messages.js';
import type { ModelReply } from '../../lib/runtime/model.js';
import { type Tool, tool } from '../../lib/runtime/tool.js';
import { type ContentPart, joinText } from '../../lib/shared/content.js';

/** Echoes its text; the schema requires a string `text` and nothing else. */
export const echo: Tool<{ text: string }> = tool({
  name: 'echo',
  description: 'Echoes the text back',
  parameters: {
    type: 'object',
    properties: { text: { type: 'string' } },
    required: ['text'],
    additionalProperties: false,
  },
  execute: ({ text }) => `echo: ${text}`,
});

/** A tool with any behaviour and an open schema. */
export function makeTool(name: string, execute: Tool['execute']): Tool {
  return { name, description: `${name} tool`, parameters: { type: 'object' }, execute };
}

let callCount = 0;
export function call(name: string, args: unknown = {}, id = `provider-${++callCount}`): ToolCall {
  return { id, name, args };
}

export function say(text: string): ModelReply {
  return { content: text };
}

export function calls(...toolCalls: ToolCall[]): ModelReply {
  return { content: '', toolCalls };
}

export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets pending promise callbacks run. */
export function tick(ms = 0): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Keeps every checkpoint it was given, in order, so a test can look at what was saved when. */
export class RecordingCheckpointer implements Checkpointer {
  readonly saves: Array<{ threadId: string; checkpoint: unknown }> = [];
  readonly #latest = new Map<string, unknown>();

  async load(threadId: string): Promise<unknown> {
    const saved = this.#latest.get(threadId);
    return saved === undefined ? undefined : structuredClone(saved);
  }

  async save(threadId: string, checkpoint: unknown): Promise<void> {
    const copy = structuredClone(checkpoint);
    this.saves.push({ threadId, checkpoint: copy });
    this.#latest.set(threadId, copy);
  }

  /** A new checkpointer holding only what had been saved so far: the store a crashed tab leaves behind. */
  snapshot(): RecordingCheckpointer {
    const copy = new RecordingCheckpointer();
    for (const [threadId, checkpoint] of this.#latest) copy.#latest.set(threadId, structuredClone(checkpoint));
    return copy;
  }
}

export function text(content: ContentPart[]): string {
  return joinText(content);
}

/** The thread as role:text lines, for compact assertions. */
export function transcript(messages: readonly Message[]): string[] {
  return messages.map((m) => {
    if (m.role === 'tool') return `tool ${m.toolName}${m.isError ? ' (error)' : ''}: ${text(m.content)}`;
    if (m.role === 'assistant' && m.toolCalls.length > 0) {
      return `assistant calls ${m.toolCalls.map((c) => c.name).join(', ')}`;
    }
    return `${m.role}: ${text(m.content)}`;
  });
}
