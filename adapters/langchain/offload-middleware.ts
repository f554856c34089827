import { AIMessage, type SystemMessage, ToolMessage } from '@langchain/core/messages';
import { type AgentMiddleware, createMiddleware } from 'langchain';
import type { OffloadEvent, ToolOutputOffload } from '../../lib/index.js';
import { contextRequestOf, withReplacements } from './context-request.js';
import { langChainReadTools } from './read-tools.js';
import { resolveThreadId, type ThreadIdOf } from './thread-id.js';
import { isCommand, offloadCommand, offloadToolMessage } from './tool-messages.js';

/** The options of `offloadMiddleware(offload, options)`. */
export interface OffloadMiddlewareOptions {
  /**
   * The thread a run's results are stored under; with neither it nor the run's
   * `configurable.thread_id`, the run fails with an error saying so — results are never pooled in
   * one shared thread.
   * @default the run's `configurable.thread_id` (`agent.invoke(input, { configurable: { thread_id } })`)
   */
  threadId?: ThreadIdOf;
  /**
   * Told of each result stored or that could not be stored, and of each request fitted to the
   * offload's `contextBudget` (`context-cleared`, `context-over-budget`). A listener that throws is
   * logged, not rethrown.
   */
  onEvent?: (event: OffloadEvent) => void;
}

const optionNames: ReadonlySet<string> = new Set(['threadId', 'onEvent']);
/** A name for an error message: quoted, and cut when long (it is the caller's). */
const quoted = (name: string) => JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}…` : name);

function checkOptions(options: unknown): OffloadMiddlewareOptions {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new TypeError('offloadMiddleware: options must be an object, { threadId?, onEvent? }');
  }
  const unknown = Object.keys(options).filter((name) => !optionNames.has(name));
  if (unknown.length > 0) {
    throw new TypeError(
      `offloadMiddleware: unknown option ${unknown.map(quoted).join(', ')}; the options are ${[...optionNames].join(', ')}`,
    );
  }
  const { threadId, onEvent } = options as OffloadMiddlewareOptions;
  if (threadId !== undefined && typeof threadId !== 'function') {
    throw new TypeError('offloadMiddleware: threadId must be a function (runtime) => string');
  }
  if (onEvent !== undefined && typeof onEvent !== 'function') {
    throw new TypeError('offloadMiddleware: onEvent must be a function (event) => void');
  }
  return { ...(threadId ? { threadId } : {}), ...(onEvent ? { onEvent } : {}) };
}

/** Appends the offload's lines to a system message, after a blank line when there is text before them. */
function withOffloadLines(system: SystemMessage, lines: string): SystemMessage {
  // A string is joined as text; an array of blocks gets the lines as a block of its own.
  return system.concat(system.text !== '' && typeof system.content === 'string' ? `\n\n${lines}` : lines);
}

/**
 * The offload as LangChain.js v1 middleware, for `createAgent({ middleware: [offloadMiddleware(offload)] })`:
 * - a tool's ToolMessage whose text is over the offload's threshold is stored under the run's thread
 *   and replaced, for the model and in the agent's state, by a header naming its path under
 *   `/large_tool_results/` and its first lines (same tool_call_id); a Command's ToolMessages too;
 * - adds the read-only tools read_file, grep, ls and glob over the thread's stored results (their
 *   results are never stored; an evicted or unknown path is an error ToolMessage, not a throw);
 * - appends the offload's lines to the system prompt of every model call, and fits the request to the
 *   offload's `contextBudget` (C1–C7): old ToolMessages are sent as pointers to where they are stored
 *   (copies, same tool_call_id; the agent's state keeps them whole);
 * - tells `onEvent` of each result stored or that could not be stored: a store failure never fails
 *   the run (S3), the model gets a cut with a note saying why.
 * A tool's own error (thrown, or a ToolMessage with status "error") passes through unchanged.
 */
export function offloadMiddleware(
  offload: ToolOutputOffload,
  options: OffloadMiddlewareOptions = {},
): AgentMiddleware<undefined, undefined, unknown> {
  if (typeof offload?.offloadResult !== 'function' || typeof offload.readTools !== 'function') {
    throw new TypeError('offloadMiddleware needs a ToolOutputOffload');
  }
  const { threadId, onEvent } = checkOptions(options);
  const emit = (event: OffloadEvent) => {
    try {
      onEvent?.(event);
    } catch (error) {
      console.warn('offloadMiddleware: onEvent threw', error);
    }
  };
  const threadOf = (runtime: Parameters<ThreadIdOf>[0]) => resolveThreadId(runtime, threadId);
  const readTools = langChainReadTools(offload, threadOf);

  return createMiddleware({
    name: 'ToolOutputOffload',
    tools: readTools.registered,
    wrapModelCall: async (request, handler) => {
      const threadId = threadOf(request.runtime); // a run without a thread fails here, before any tool ran
      // LangChain runs the first tool of a name: an app tool named like a read tool would shadow it.
      const clash = request.tools.find((t) => readTools.names.has(String(t.name)) && !readTools.runnerFor(t));
      if (clash) {
        throw new Error(
          `offloadMiddleware adds the tools ${[...readTools.names].join(', ')}; the agent has another tool named "${clash.name}": rename it or leave it out`,
        );
      }
      const systemMessage = withOffloadLines(request.systemMessage, offload.systemPrompt());
      // Fitted to the context budget as it will be sent (C1): old results become pointers in a copy.
      const fitted = await offload.fitContext(
        contextRequestOf(threadId, systemMessage, request.tools, request.messages),
      );
      for (const event of fitted.events) emit(event);
      const messages = withReplacements(request.messages, fitted.replacements);
      const reply = await handler({ ...request, systemMessage, messages });
      // What the provider reported the call cost, to the request's ledger record.
      const reported = reportedUsage(reply);
      if (reported) await fitted.reportUsage(reported);
      return reply;
    },
    wrapToolCall: async (request, handler) => {
      const runner = readTools.runnerFor(request.tool);
      // The read tools' own results are pages of stored results: never stored again (A4).
      if (runner) return handler({ ...request, tool: runner });
      const threadId = threadOf(request.runtime);
      const result = await handler(request);
      const origin = { offload, threadId, toolName: request.toolCall.name, emit };
      if (ToolMessage.isInstance(result)) return offloadToolMessage(result, origin);
      if (isCommand(result)) return offloadCommand(result, origin);
      return result;
    },
  });
}

const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0;

/**
 * A reply's `usage_metadata` in the ledger's words: its input tokens, the part read from the
 * provider's cache (`input_token_details.cache_read`), its output tokens; nothing without an input count.
 */
function reportedUsage(reply: unknown) {
  if (!AIMessage.isInstance(reply)) return undefined;
  const usage = reply.usage_metadata;
  if (!isCount(usage?.input_tokens)) return undefined;
  const cached = usage.input_token_details?.cache_read;
  return {
    inputTokens: usage.input_tokens,
    ...(isCount(cached) ? { cachedInputTokens: cached } : {}),
    ...(isCount(usage.output_tokens) ? { outputTokens: usage.output_tokens } : {}),
  };
}
