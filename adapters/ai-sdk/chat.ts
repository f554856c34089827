// The AI SDK UI chat's way in (A5): the chat sends its UI messages to a route on every request, so the
// page sends them with each large tool output as the offload's preview (stored in the page's
// store), fitted to the context budget, and answers the read tools the route declares. The chat's
// own messages keep every output whole.
import {
  convertToModelMessages,
  getToolName,
  type PrepareSendMessagesRequest,
  type Tool,
  type ToolSet,
  type UIMessage,
} from 'ai';
import type { OffloadEvent, ToolOutputOffload } from '../../lib/index.js';
import { contextMessages, type StepOptions, toolSpecs } from './context-step.js';
import { defaultModelOutput, type ModelOutput, offloadModelOutput } from './model-output.js';
import { offloadReadTools } from './read-tools.js';

/** The options of `offloadChat(offload, options)`: the chat's thread, what its route declares, and how the app hears events. */
export interface OffloadChatOptions<UI_MESSAGE extends UIMessage = UIMessage> {
  /** The chat (thread) whose tool outputs are stored and read back: one per chat. */
  threadId: string;
  /**
   * The route's system prompt as it sends it (its own instructions and `offloadChatRoute().system`),
   * measured with each request for the context budget and the ledger.
   * @default the offload's system lines alone
   */
  system?: string;
  /**
   * The route's tools (their declarations are enough: name, description, inputSchema), measured
   * with each request; the read tools are counted without being named here.
   * @default none
   */
  tools?: ToolSet;
  /** Told of each output stored or that could not be stored, and of each request's clearing. A listener that throws is logged, not rethrown. */
  onEvent?: (event: OffloadEvent) => void;
  /**
   * The app's own hook: the returned `prepareSendMessagesRequest` calls it with the messages to
   * send (previews and pointers in place of large outputs) and sends what it returns.
   * @default the transport's body: `{ ...body, id, messages, trigger, messageId }`
   */
  prepareSendMessagesRequest?: PrepareSendMessagesRequest<UI_MESSAGE>;
}

/** A tool call as `onToolCall` gets it. */
interface ChatToolCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
}

/** The chat's `addToolOutput`, as much of it as the read tools use. */
type AddToolOutput = (
  output:
    | { tool: string; toolCallId: string; output: string }
    | { tool: string; toolCallId: string; state: 'output-error'; errorText: string },
) => void | PromiseLike<void>;

/**
 * What `offloadChat` gives a chat in the page: the transport's `prepareSendMessagesRequest` (large
 * tool outputs sent as previews, the request fitted to the budget), `messagesToSend` for any other
 * transport, and `answerReadTool` for `onToolCall`.
 */
export interface OffloadChat<UI_MESSAGE extends UIMessage = UIMessage> {
  /**
   * Pass it as `prepareSendMessagesRequest` of `DefaultChatTransport` (or any HttpChatTransport):
   * each request carries the messages of `messagesToSend`.
   */
  prepareSendMessagesRequest: PrepareSendMessagesRequest<UI_MESSAGE>;
  /**
   * The chat's messages as the route is to get them: copies in which each tool output over the
   * threshold is its preview (stored now, or the same text as before: A1, A2) and, with a
   * `contextBudget`, old outputs are pointers (C1–C6); each request leaves a ledger record. The
   * messages given are not changed.
   */
  messagesToSend(messages: readonly UI_MESSAGE[]): Promise<UI_MESSAGE[]>;
  /**
   * Call it first in the chat's `onToolCall`: a call of a read tool is answered from the store
   * through `addToolOutput` (not awaited, as the SDK asks) and it returns true; any other call,
   * false, for the app to run.
   */
  answerReadTool(toolCall: ChatToolCall, addToolOutput: AddToolOutput): boolean;
}

const optionNames: readonly string[] = ['threadId', 'system', 'tools', 'onEvent', 'prepareSendMessagesRequest'];

function checkOptions(offload: unknown, options: unknown): OffloadChatOptions {
  if (typeof (offload as ToolOutputOffload | null)?.offloadResult !== 'function') {
    throw new TypeError('offloadChat: the first argument must be a ToolOutputOffload');
  }
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new TypeError(`offloadChat: options must be an object, { ${optionNames.join(', ')} }`);
  }
  const unknown = Object.keys(options).filter((name) => !optionNames.includes(name));
  if (unknown.length > 0) {
    throw new TypeError(
      `offloadChat: unknown option ${unknown.map((name) => JSON.stringify(name.slice(0, 80))).join(', ')}; the options are ${optionNames.join(', ')}`,
    );
  }
  const { threadId, system, tools, onEvent, prepareSendMessagesRequest } = options as OffloadChatOptions;
  if (typeof threadId !== 'string' || threadId === '') {
    throw new TypeError(`offloadChat: options.threadId must be a non-empty string, got ${JSON.stringify(threadId)}`);
  }
  if (system !== undefined && typeof system !== 'string') {
    throw new TypeError("offloadChat: options.system must be a string (the route's system prompt)");
  }
  if (tools !== undefined && (typeof tools !== 'object' || tools === null || Array.isArray(tools))) {
    throw new TypeError("offloadChat: options.tools must be an object of AI SDK tools, keyed by name (the route's)");
  }
  if (onEvent !== undefined && typeof onEvent !== 'function') {
    throw new TypeError('offloadChat: options.onEvent must be a function');
  }
  if (prepareSendMessagesRequest !== undefined && typeof prepareSendMessagesRequest !== 'function') {
    throw new TypeError("offloadChat: options.prepareSendMessagesRequest must be a function (the app's own hook)");
  }
  return options as OffloadChatOptions;
}

/** A UI message part that is a tool call with its output or error: what the route sends the model as a tool result. */
type ToolPartWithOutput = Record<string, unknown> & {
  type: string;
  toolCallId: string;
  state: 'output-available' | 'output-error';
};

function isToolPartWithOutput(part: unknown): part is ToolPartWithOutput {
  if (typeof part !== 'object' || part === null) return false;
  const { type, state } = part as Record<string, unknown>;
  if (typeof type !== 'string' || !(type.startsWith('tool-') || type === 'dynamic-tool')) return false;
  return state === 'output-available' || state === 'output-error';
}

/** The part's tool name as the route reads it, or '' when a (hostile) part has none. */
function toolNameOf(part: ToolPartWithOutput): string {
  const name = part.type === 'dynamic-tool' ? part.toolName : getToolName(part as never);
  return typeof name === 'string' ? name : '';
}

/** What the route's model is sent for the part (as convertToModelMessages sends a tool without its own toModelOutput). */
function modelOutputOf(part: ToolPartWithOutput): ModelOutput {
  if (part.state === 'output-error') {
    return { type: 'error-text', value: typeof part.errorText === 'string' ? part.errorText : String(part.errorText) };
  }
  return defaultModelOutput(part.output);
}

/** The part carrying `text` in place of its output (or error), everything else as it was. */
function withShownText(part: ToolPartWithOutput, text: string): ToolPartWithOutput {
  return part.state === 'output-error' ? { ...part, errorText: text } : { ...part, output: text };
}

/** A message's parts, or undefined when a (hostile) message has no list of them. */
function partsOf(message: unknown): unknown[] | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const { parts } = message as { parts?: unknown };
  return Array.isArray(parts) ? parts : undefined;
}

/**
 * The messages to measure: those of a known role with a list of parts, each part an object with a
 * type (a tool call with its id and name). Anything else (hostile, or from an older app) the route's conversion
 * would stumble on; it is sent as it came, but it does not keep the rest of the request from being
 * fitted.
 */
function wellFormed<M extends UIMessage>(messages: readonly M[]): M[] {
  return messages.flatMap((message) => {
    const parts = partsOf(message);
    const { role } = (message ?? {}) as { role?: unknown };
    if (parts === undefined || (role !== 'user' && role !== 'assistant' && role !== 'system')) return [];
    const kept = parts.filter((part) => {
      if (typeof part !== 'object' || part === null) return false;
      const { type, toolCallId, toolName } = part as Record<string, unknown>;
      if (typeof type !== 'string') return false;
      if (type === 'dynamic-tool' && (typeof toolName !== 'string' || toolName === '')) return false;
      return !(type.startsWith('tool-') || type === 'dynamic-tool') || typeof toolCallId === 'string';
    });
    return [kept.length === parts.length ? message : { ...message, parts: kept }];
  });
}

/**
 * The offload for an AI SDK UI chat whose model runs behind a route: large tool outputs (of the
 * page's tools and the route's alike) are stored in the page's store and sent as their previews,
 * the same text every time the same output is sent, also after a reload or from another tab (A1,
 * A2); each request is fitted to the context budget and recorded in the ledger as in every way
 * in (C1–C6); the read tools the route declares (`offloadChatRoute`) are answered in the page.
 * The route converts the messages with `convertToModelMessages` and runs one step per request
 * (streamText's default), so every step's request passes through here. With DirectChatTransport
 * and an in-page ToolLoopAgent, `withOffload`'s tools and prepareStep do all of this.
 */
export function offloadChat<UI_MESSAGE extends UIMessage = UIMessage>(
  offload: ToolOutputOffload,
  options: OffloadChatOptions<UI_MESSAGE>,
): OffloadChat<UI_MESSAGE> {
  const { threadId, system, tools = {}, onEvent, prepareSendMessagesRequest } = checkOptions(offload, options);
  const emit = (event: OffloadEvent) => {
    try {
      onEvent?.(event);
    } catch (error) {
      console.warn('offloadChat: onEvent threw', error);
    }
  };
  const readTools = offload.readTools(threadId);
  const readToolNames = readTools.map((read) => read.name);
  const clash = readToolNames.find((name) => Object.hasOwn(tools, name));
  if (clash !== undefined) {
    throw new TypeError(
      `offloadChat: options.tools already has a tool named "${clash}"; the offload counts ${readToolNames.join(', ')} itself`,
    );
  }
  const measuredTools: Record<string, Tool> = { ...tools, ...offloadReadTools(offload, threadId) };
  const schemas = new Map<string, Promise<unknown>>();
  const systemText = system ?? offload.systemPrompt();

  /** One tool part as it is sent: a read tool's page cut to its threshold (never stored, A4), any other output offloaded. */
  async function partToSend(part: ToolPartWithOutput): Promise<ToolPartWithOutput> {
    const toolName = toolNameOf(part);
    const output = modelOutputOf(part);
    // The text the route's model would be sent: a string as it is, anything else as its JSON.
    const text =
      output.type === 'text' || output.type === 'error-text'
        ? output.value
        : (JSON.stringify(output.type === 'json' ? output.value : null) ?? 'null');
    if (readToolNames.includes(toolName) || toolName === '' || typeof part.toolCallId !== 'string') {
      // Within its threshold it goes as it came; a (hostile) part over it is cut, as O9 cuts what never reached the offload.
      const cut = offload.cutToThreshold(text, toolName || undefined);
      return cut === text ? part : withShownText(part, cut);
    }
    try {
      const shown = await offloadModelOutput(offload, { threadId, toolName, toolCallId: part.toolCallId }, output);
      if (shown.storedAt)
        emit({ type: 'offloaded', threadId, toolName, toolCallId: part.toolCallId, path: shown.storedAt });
      if (shown.failed !== undefined) {
        emit({ type: 'offload-failed', threadId, toolName, toolCallId: part.toolCallId, why: shown.failed });
      }
      if (shown.output === output) return part;
      const sent = shown.output;
      return withShownText(part, sent.type === 'text' || sent.type === 'error-text' ? sent.value : text);
    } catch (error) {
      // A malformed part the offload refuses is sent cut, never whole (S3's note is the store's; this is input).
      console.warn('offloadChat: a tool output could not be offloaded; it is sent cut', error);
      return withShownText(part, offload.cutToThreshold(text, toolName));
    }
  }

  /** The messages with every tool output offloaded, one at a time in the chat's order (so evictions go oldest first). */
  async function offloaded(messages: readonly UI_MESSAGE[]): Promise<UI_MESSAGE[]> {
    const sent: UI_MESSAGE[] = [];
    for (const message of messages) {
      const parts = partsOf(message);
      if (parts === undefined || !parts.some(isToolPartWithOutput)) {
        sent.push(message);
        continue;
      }
      const copy: unknown[] = [];
      for (const part of parts) copy.push(isToolPartWithOutput(part) ? await partToSend(part) : part);
      sent.push(copy.every((part, i) => part === parts[i]) ? message : ({ ...message, parts: copy } as UI_MESSAGE));
    }
    return sent;
  }

  /** Fits the request the messages make (as the route converts them) and puts the replacements in copies of their parts. */
  async function fitted(messages: UI_MESSAGE[]): Promise<UI_MESSAGE[]> {
    let request: ReturnType<typeof contextMessages>;
    let fit: Awaited<ReturnType<ToolOutputOffload['fitContext']>>;
    try {
      request = contextMessages(await convertToModelMessages(wellFormed(messages)));
      fit = await offload.fitContext({
        threadId,
        system: systemText,
        tools: await toolSpecs(measuredTools, undefined, { toolsContext: {} } as StepOptions, schemas),
        messages: request.messages,
        readTools: readToolNames,
      });
    } catch (error) {
      // Messages the route cannot convert either: they go as they are, every output already within its threshold.
      console.warn('offloadChat: the messages could not be measured; sent unfitted', error);
      return messages;
    }
    for (const event of fit.events) emit(event);
    if (fit.replacements.size === 0) return messages;
    const byCall = new Map<string, string>();
    for (const [index, replacement] of fit.replacements) {
      const message = request.messages[index];
      if (message?.role === 'tool') byCall.set(message.toolCallId, replacement.text);
    }
    return messages.map((message) => {
      const parts = partsOf(message);
      if (parts === undefined) return message;
      let changed = false;
      const copy = parts.map((part) => {
        if (!isToolPartWithOutput(part) || part.providerExecuted === true) return part;
        const text = byCall.get(part.toolCallId);
        if (text === undefined) return part;
        changed = true;
        return withShownText(part, text);
      });
      return changed ? ({ ...message, parts: copy } as UI_MESSAGE) : message;
    });
  }

  const messagesToSend = async (messages: readonly UI_MESSAGE[]): Promise<UI_MESSAGE[]> => {
    if (!Array.isArray(messages))
      throw new TypeError('offloadChat: messagesToSend takes the chat’s messages, an array');
    return fitted(await offloaded(messages));
  };

  return {
    messagesToSend,
    async prepareSendMessagesRequest(request) {
      const messages = await messagesToSend(request.messages);
      if (prepareSendMessagesRequest) return prepareSendMessagesRequest({ ...request, messages });
      const { body, id, trigger, messageId } = request;
      return { body: { ...body, id, messages, trigger, messageId } };
    },
    answerReadTool(toolCall, addToolOutput) {
      const read = readTools.find((tool) => tool.name === toolCall?.toolName);
      if (read === undefined) return false;
      const { toolCallId } = toolCall;
      void (async () => {
        try {
          const { text, isError } = await read.run(toolCall.input);
          await addToolOutput(
            isError
              ? { tool: read.name, toolCallId, state: 'output-error', errorText: text }
              : { tool: read.name, toolCallId, output: text },
          );
        } catch (error) {
          console.warn(`offloadChat: answering ${read.name} failed`, error);
        }
      })();
      return true;
    },
  };
}
