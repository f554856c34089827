// An agent wired as the README shows (offload + file tools through a CompositeBackend), for the
// end-to-end tests in Node and in Chromium. Uses no Node API.

import { type AgentOptions, createAgent } from '../../lib/agent/create-agent.js';
import { fileTools } from '../../lib/agent/file-tools.js';
import { OffloadMiddleware } from '../../lib/agent/offload-middleware.js';
import { CompositeBackend } from '../../lib/backends/composite-backend.js';
import { MemoryBackend } from '../../lib/backends/memory-backend.js';
import { ToolOutputOffload, type ToolOutputOffloadOptions } from '../../lib/offload/tool-output-offload.js';
import type { Message, ToolMessage } from '../../lib/runtime/messages.js';
import type { Middleware, StateKey } from '../../lib/runtime/middleware.js';
import type { ModelReply, ModelRequest } from '../../lib/runtime/model.js';
import { type Tool, tool } from '../../lib/runtime/tool.js';
import { MemoryOffloadStore } from '../../lib/store/memory-store.js';

/** A text of `lines` numbered lines, each `width` characters. */
export function linesOf(lines: number, width = 80, tag = 'line'): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++) out.push(`${tag} ${i} `.padEnd(width, '.'));
  return out.join('\n');
}

/** `emit` returns `text`, or `lines` lines tagged `tag`, plus an image when asked. */
export const emitTool = tool<{ text?: string; lines?: number; width?: number; tag?: string; image?: boolean }>({
  name: 'emit',
  description: 'Returns a text of the size asked for.',
  parameters: {
    type: 'object',
    properties: {
      text: { type: 'string' },
      lines: { type: 'integer', minimum: 0 },
      width: { type: 'integer', minimum: 1 },
      tag: { type: 'string' },
      image: { type: 'boolean' },
    },
    additionalProperties: false,
  },
  execute: (args) => {
    const text = args.text ?? linesOf(args.lines ?? 100, args.width ?? 80, args.tag ?? 'line');
    if (!args.image) return text;
    return [
      { type: 'text', text },
      { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' },
    ];
  },
});

let callCount = 0;

/** A model reply asking for tool calls: `[name, args]` or `[name, args, providerId]`. */
export function calls(...requested: Array<[string, unknown] | [string, unknown, string]>): ModelReply {
  return {
    content: '',
    toolCalls: requested.map(([name, args, id]) => ({ id: id ?? `call_${++callCount}`, name, args })),
  };
}

export function reply(text = 'done'): ModelReply {
  return { content: text };
}

export function toolMessagesOf(messages: readonly Message[]): ToolMessage[] {
  return messages.filter((m): m is ToolMessage => m.role === 'tool');
}

/** The joined text of the last tool message(s) a request carried. */
export function lastToolText(request: ModelRequest, back = 1): string {
  const tools = toolMessagesOf(request.messages);
  return tools
    .at(-back)!
    .content.filter((p) => p.type === 'text')
    .map((p) => (p as { text: string }).text)
    .join('\n');
}

/** The path a header names. */
export function pathIn(text: string): string {
  const match = /Path: (\/large_tool_results\/[A-Za-z0-9_-]+)/.exec(text);
  if (!match) throw new Error(`no path in ${text.slice(0, 200)}`);
  return match[1]!;
}

export interface HarnessOptions {
  offload?: ToolOutputOffloadOptions;
  /** Middleware outside (before) the offload. */
  outer?: Middleware[];
  /** Middleware inside (after) the offload, nearer the tools. */
  inner?: Middleware[];
  tools?: Tool[];
  maxPageTokens?: number;
  /** What the agent gets of each file tool fileTools made, e.g. a `{ ...tool }` copy; default the tool itself. */
  fileToolsAs?: (made: Tool) => Tool;
  agent?: Partial<AgentOptions>;
  /**
   * Give the agent the offload's middleware itself (returned as `middleware`) instead of the
   * offload, so a test can watch its hooks; by default the agent makes it, as an app's does.
   */
  ownMiddleware?: boolean;
}

export function offloadAgent(model: AgentOptions['model'], options: HarnessOptions = {}) {
  const offload = new ToolOutputOffload({ thresholdTokens: 1000, store: new MemoryOffloadStore(), ...options.offload });
  const files = new MemoryBackend({ '/notes.txt': 'my notes\n' });
  const made = fileTools(
    (ctx) => new CompositeBackend(files, { [ToolOutputOffload.mount]: offload.backend(ctx.threadId) }),
    { maxPageTokens: options.maxPageTokens ?? 1000 },
  );
  const tools = [emitTool, ...made.map(options.fileToolsAs ?? ((t) => t)), ...(options.tools ?? [])];
  const middleware = new OffloadMiddleware(
    offload,
    tools.map((t) => t.name),
  );
  const agent = createAgent({
    model,
    tools,
    middleware: [...(options.outer ?? []), options.ownMiddleware ? middleware : offload, ...(options.inner ?? [])],
    ...options.agent,
  });
  return { agent, offload, middleware, store: offload.store, files };
}

/**
 * A stand-in for a summarization middleware: after each run it marks the given messages (by a
 * predicate over the thread) as covered by a summary, in the state shape Summarization writes.
 */
export function fakeSummarization(covers: (messages: readonly Message[]) => string[]): Middleware {
  const key: StateKey = { initial: null };
  return {
    name: 'FakeSummarization',
    writes: { summarization: key },
    afterAgent(_output, context) {
      const coveredMessageIds = covers(context.messages);
      return { update: { summarization: { summary: 'a summary', coveredMessageIds } } };
    },
  };
}
