// Hand-made hook contexts, so the offload's hooks can be tested without the agent loop.

import { OffloadMiddleware } from '../../lib/agent/offload-middleware.js';
import { readToolNames } from '../../lib/offload/read-tools.js';
import { ToolOutputOffload } from '../../lib/offload/tool-output-offload.js';
import type { Message } from '../../lib/runtime/messages.js';
import type { HookContext, StateKey, ToolCallRequest } from '../../lib/runtime/middleware.js';
import type { StateUpdate, ToolOutcome } from '../../lib/runtime/outcome.js';
import type { ToolContext } from '../../lib/runtime/tool.js';
import type { ContentPart } from '../../lib/shared/content.js';

const middlewares = new WeakMap<ToolOutputOffload, OffloadMiddleware>();

/**
 * The offload's middleware in the built-in runtime, as `createAgent({ middleware: [offload] })`
 * makes it (for an agent with all read tools, unless `tools` names others); one per offload, so its
 * hooks share their stagings as one agent's do. A middleware passed in is returned as it is.
 */
export function middlewareOf(
  offload: ToolOutputOffload | OffloadMiddleware,
  tools: readonly string[] = readToolNames,
): OffloadMiddleware {
  if (offload instanceof OffloadMiddleware) return offload;
  const known = middlewares.get(offload);
  if (known) return known;
  const made = new OffloadMiddleware(offload, tools);
  middlewares.set(offload, made);
  return made;
}

export function hookContext(over: Partial<HookContext> = {}): HookContext {
  return {
    threadId: 't1',
    turnId: 'turn-1',
    step: 0,
    signal: new AbortController().signal,
    state: {},
    messages: [],
    ...over,
    emit: over.emit ?? (() => {}),
  };
}

export function toolContext(over: Partial<ToolContext> = {}): ToolContext {
  return {
    threadId: 't1',
    turnId: 'turn-1',
    idempotencyKey: 'key-1',
    approved: false,
    signal: new AbortController().signal,
    state: {},
    ...over,
    emit: over.emit ?? (() => {}),
  };
}

export interface CallOptions {
  threadId?: string;
  turnId?: string;
  key?: string;
  callId?: string;
  toolName?: string;
  args?: unknown;
}

/** Runs `wrapToolCall` around a tool that returns `content` (or a whole outcome). */
export async function callTool(
  offload: ToolOutputOffload | OffloadMiddleware,
  result: string | ContentPart[] | ToolOutcome,
  options: CallOptions = {},
): Promise<ToolOutcome> {
  const key = options.key ?? 'key-1';
  const request: ToolCallRequest = {
    call: { id: options.callId ?? 'call-1', name: options.toolName ?? 'fetch_page', args: options.args ?? {} },
    idempotencyKey: key,
    tool: { name: options.toolName ?? 'fetch_page', description: '', parameters: {}, execute: () => '' },
  };
  const outcome: ToolOutcome =
    typeof result === 'string'
      ? { type: 'success', content: [{ type: 'text', text: result }] }
      : Array.isArray(result)
        ? { type: 'success', content: result }
        : result;
  const context = toolContext({
    threadId: options.threadId ?? 't1',
    turnId: options.turnId ?? 'turn-1',
    idempotencyKey: key,
  });
  return middlewareOf(offload).wrapToolCall(request, async () => outcome, context);
}

/** Applies an update's offload part through the middleware's state key, as the runtime does. */
export async function applyUpdate(
  offload: ToolOutputOffload | OffloadMiddleware,
  update: StateUpdate | undefined,
  context: Partial<HookContext> = {},
): Promise<unknown> {
  const key = middlewareOf(offload).writes[ToolOutputOffload.key] as StateKey;
  const value = update?.[ToolOutputOffload.key];
  if (value === undefined) return undefined;
  return key.apply!(key.initial, value, hookContext(context));
}

/** Calls the tool and applies what it wrote: the whole path of one result through the offload. */
export async function storeResult(
  offload: ToolOutputOffload,
  result: string | ContentPart[],
  options: CallOptions = {},
): Promise<{ outcome: ToolOutcome; value: unknown }> {
  const outcome = await callTool(offload, result, options);
  const update = outcome.type === 'success' ? outcome.update : undefined;
  const value = await applyUpdate(offload, update, {
    threadId: options.threadId ?? 't1',
    turnId: options.turnId ?? 'turn-1',
  });
  return { outcome, value };
}

export function textOf(outcome: ToolOutcome): string {
  if (outcome.type !== 'success') throw new Error(`expected a success, got ${outcome.type}`);
  return outcome.content
    .filter((p) => p.type === 'text')
    .map((p) => (p as { text: string }).text)
    .join('\n');
}

export function toolMessage(id: string, text: string, extra: ContentPart[] = []): Message {
  return {
    role: 'tool',
    id,
    toolCallId: `call-${id}`,
    toolName: 'fetch_page',
    content: [{ type: 'text', text }, ...extra],
    isError: false,
  };
}

/** A text of `lines` numbered lines, each about `width` characters. */
export function bigText(lines: number, width = 80): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++) out.push(`line ${i} `.padEnd(width, 'x'));
  return out.join('\n');
}
