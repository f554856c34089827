import type { OffloadEvent, ToolOutputOffload } from '../../lib/index.js';
import type { LanguageModelTool } from './session-window.js';

/** What happened on the way to the model: a result stored or not stored, a request fitted, a session continued or overflowed. */
export type OffloadSessionEvent =
  /**
   * The offload's own, as in every way in: a result stored or not stored (`offloaded`,
   * `offload-failed`), a prompt's conversation fitted to the `contextBudget` (`context-cleared`,
   * `context-over-budget`, `context-calibrated`).
   */
  | Extract<
      OffloadEvent,
      { type: 'offloaded' | 'offload-failed' | 'context-cleared' | 'context-over-budget' | 'context-calibrated' }
    >
  /**
   * Before the session's usage reached its window, the conversation went on in a new session whose
   * initial prompts carry it with old results cleared to pointers: `contextUsage` is what the old
   * session held, `carriedTokens` what the new one holds, both in the model's tokens.
   */
  | { type: 'session-continued'; threadId: string; contextUsage: number; carriedTokens: number; contextWindow: number }
  /** A new session could not take the conversation (`why`): the prompt went on in the current one. */
  | { type: 'session-not-continued'; threadId: string; why: string }
  /** The session dropped its oldest turns anyway (its `contextoverflow` event). */
  | { type: 'context-overflow'; threadId: string };

/** One tool call the browser made and the text the model got back, in the order they finished. */
export interface SessionToolCall {
  id: string;
  toolName: string;
  args: unknown;
  /** What the model was sent: the result, its preview, or its cut. */
  text: string;
}

/** A name for an error message: quoted, and cut when long (it is the caller's). */
export const quoted = (name: string): string => JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}…` : name);

/** A tool's result as the text the model is sent: a string as it is, anything else as JSON (its String() when it has none). */
function resultText(result: unknown): string {
  if (typeof result === 'string') return result;
  try {
    const json = JSON.stringify(result);
    if (typeof json === 'string') return json;
  } catch {}
  try {
    return String(result);
  } catch {
    return Object.prototype.toString.call(result);
  }
}

/** Checks the app's tools: each in the Prompt API's shape, names unique and none of the read tools'. */
export function checkTools(tools: unknown, readToolNames: readonly string[]): LanguageModelTool[] {
  if (tools === undefined) return [];
  if (!Array.isArray(tools)) throw new TypeError('offloadSession: options.tools must be an array of Prompt API tools');
  const names = new Set<string>();
  for (const [i, tool] of tools.entries()) {
    const at = `offloadSession: options.tools[${i}]`;
    if (typeof tool !== 'object' || tool === null)
      throw new TypeError(`${at} must be an object { name, description, inputSchema, execute }`);
    const { name, description, inputSchema, execute } = tool as Record<string, unknown>;
    if (typeof name !== 'string' || name === '') throw new TypeError(`${at}.name must be a non-empty string`);
    if (typeof description !== 'string') throw new TypeError(`${at}.description must be a string`);
    if (typeof inputSchema !== 'object' || inputSchema === null)
      throw new TypeError(`${at}.inputSchema must be a JSON Schema object`);
    if (typeof execute !== 'function') throw new TypeError(`${at}.execute must be a function`);
    if (readToolNames.includes(name)) {
      throw new TypeError(
        `${at}: the app already has a tool named ${quoted(name)}; the offload adds ${readToolNames.join(', ')}`,
      );
    }
    if (names.has(name)) throw new TypeError(`${at}: two tools are named ${quoted(name)}`);
    names.add(name);
  }
  return tools as LanguageModelTool[];
}

interface ToolWiring {
  threadId: string;
  /** Each call as it finishes (the conversation keeps it). */
  onCall: (call: SessionToolCall) => void;
  emit: (event: OffloadSessionEvent) => void;
}

/**
 * An app tool whose `execute` the browser calls as before, but whose result over the threshold is
 * stored and sent as its preview (`offload.offloadResult`). A thrown error is thrown again with its
 * message cut to the threshold; the conversation keeps it as the call's result.
 */
export function offloadingTool(
  offload: ToolOutputOffload,
  tool: LanguageModelTool,
  wiring: ToolWiring,
): LanguageModelTool {
  const { threadId, onCall, emit } = wiring;
  const toolName = tool.name;
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema,
    async execute(...args: never[]): Promise<string> {
      // The Prompt API gives a call no id; each gets its own, path-safe (a secure context has randomUUID).
      const id = crypto.randomUUID();
      let result: unknown;
      try {
        result = await tool.execute(...args);
      } catch (error) {
        const message = error instanceof Error ? error.message : resultText(error);
        const cut = offload.cutToThreshold(`Error: ${message}`, toolName);
        onCall({ id, toolName, args: args[0], text: cut });
        throw cut === `Error: ${message}` ? error : new Error(cut.slice('Error: '.length), { cause: error });
      }
      const outcome = await offload.offloadResult({ threadId, callId: id, toolName, content: resultText(result) });
      if (outcome.kind === 'stored' && outcome.stored)
        emit({ type: 'offloaded', threadId, toolName, toolCallId: id, path: outcome.path });
      if (outcome.kind === 'failed')
        emit({ type: 'offload-failed', threadId, toolName, toolCallId: id, why: outcome.why });
      onCall({ id, toolName, args: args[0], text: outcome.text });
      return outcome.text;
    },
  };
}

/** read_file, grep, ls and glob over the thread's stored results, as Prompt API tools; an error is the text the model reads. */
export function readTools(offload: ToolOutputOffload, wiring: ToolWiring): LanguageModelTool[] {
  return offload.readTools(wiring.threadId).map((read) => ({
    name: read.name,
    description: read.description,
    inputSchema: read.parameters,
    async execute(...args: never[]): Promise<string> {
      const id = crypto.randomUUID();
      // The read tools check their arguments by hand: whatever the model sent is answered in words.
      const { text } = await read.run(args[0]);
      wiring.onCall({ id, toolName: read.name, args: args[0], text });
      return text;
    },
  }));
}
