import { coerceMessageLikeToMessage, ToolMessage } from '@langchain/core/messages';
import type { OffloadEvent, ToolOutputOffload } from '../../lib/index.js';

/** Where a tool's result is offloaded: its thread and the tool's name (for a message without one). */
interface ResultOrigin {
  offload: ToolOutputOffload;
  threadId: string;
  toolName: string;
  /** Told what happened to each result stored or that could not be stored. */
  emit: (event: OffloadEvent) => void;
}

type Block = { type?: unknown; text?: unknown };
const isTextBlock = (block: unknown): block is { type: 'text'; text: string } =>
  typeof block === 'object' &&
  block !== null &&
  (block as Block).type === 'text' &&
  typeof (block as Block).text === 'string';

/** A ToolMessage's texts, as the offload takes them (joined with newlines): the string, or its text blocks. */
export function toolTextsOf(message: ToolMessage): string[] {
  const { content } = message;
  return typeof content === 'string' ? [content] : content.filter(isTextBlock).map((block) => block.text);
}

/**
 * A copy of `message` (same tool_call_id, name, status, artifact…) whose text is `text`: a string
 * stays a string; blocks become one text block, then the non-text blocks unless `dropMedia`.
 */
export function withToolText(message: ToolMessage, text: string, { dropMedia = false } = {}): ToolMessage {
  const { content } = message;
  const others = typeof content === 'string' || dropMedia ? [] : content.filter((block) => !isTextBlock(block));
  return new ToolMessage({
    content: typeof content === 'string' ? text : [{ type: 'text', text }, ...others],
    tool_call_id: message.tool_call_id,
    name: message.name,
    id: message.id,
    status: message.status,
    artifact: message.artifact,
    metadata: message.metadata,
    additional_kwargs: message.additional_kwargs,
    response_metadata: message.response_metadata,
  });
}

/**
 * The ToolMessage the model should see: the same message when its text is within the threshold,
 * else one with the same tool_call_id (and name, status, artifact) whose text is the offload's
 * header and first lines; non-text blocks are kept after it. An error result (status "error") is
 * the app's to handle and passes through unchanged.
 */
export async function offloadToolMessage(message: ToolMessage, origin: ResultOrigin): Promise<ToolMessage> {
  if (message.status === 'error') return message;
  const texts = toolTextsOf(message);
  if (texts.length === 0) return message;
  const original = texts.join('\n');
  const toolName = message.name || origin.toolName;
  const { threadId } = origin;
  const toolCallId = message.tool_call_id;
  const result = await origin.offload.offloadResult({ threadId, callId: toolCallId, toolName, content: original });
  if (result.kind === 'stored' && result.stored) {
    origin.emit({ type: 'offloaded', threadId, toolName, toolCallId, path: result.path });
  } else if (result.kind === 'failed') {
    origin.emit({ type: 'offload-failed', threadId, toolName, toolCallId, why: result.why });
  }
  return result.text === original ? message : withToolText(message, result.text);
}

/** The subset of LangGraph's Command this needs; the class itself is LangGraph's, not a peer of this package. */
interface CommandLike {
  lg_name: 'Command';
  update?: unknown;
}

export function isCommand(value: unknown): value is CommandLike {
  return (
    typeof value === 'object' &&
    value !== null &&
    Object.getPrototypeOf(value) !== Object.prototype &&
    (value as { lg_name?: unknown }).lg_name === 'Command'
  );
}

/** A plain object LangChain coerces to a ToolMessage: `{ role | type: 'tool', content, tool_call_id }`, or a serialized ToolMessage. */
function isToolMessageLike(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const fields = value as { role?: unknown; type?: unknown; id?: unknown; kwargs?: unknown; lc?: unknown };
  // coerceMessageLikeToMessage takes `role` first, then `type`; a tool message needs its tool_call_id.
  if (typeof fields.role === 'string') return fields.role === 'tool' && 'tool_call_id' in value;
  if (fields.type === 'tool') return 'tool_call_id' in value;
  // The serialized form (`{ lc: 1, type: 'constructor', id: [..., 'ToolMessage'], kwargs }`).
  return (
    fields.type === 'constructor' &&
    Array.isArray(fields.id) &&
    (fields.id.at(-1) === 'ToolMessage' || fields.id.at(-1) === 'ToolMessageChunk') &&
    typeof fields.kwargs === 'object' &&
    fields.kwargs !== null &&
    'tool_call_id' in fields.kwargs
  );
}

/** The ToolMessage a Command's message stands for, as LangGraph's messages reducer will coerce it; else undefined. */
function asToolMessage(message: unknown): ToolMessage | undefined {
  if (ToolMessage.isInstance(message)) return message;
  if (!isToolMessageLike(message)) return undefined;
  try {
    const coerced = coerceMessageLikeToMessage(message as never);
    return ToolMessage.isInstance(coerced) ? coerced : undefined;
  } catch {
    return undefined; // the reducer will refuse it too, with its own error: not ours to word
  }
}

/** One message of a Command's update: a ToolMessage (or a message-like one) offloaded, anything else as it is. */
async function offloadMessage(message: unknown, origin: ResultOrigin): Promise<unknown> {
  const tool = asToolMessage(message);
  if (!tool) return message;
  const shown = await offloadToolMessage(tool, origin);
  return shown === tool ? message : shown;
}

/**
 * A Command's `messages`, in every shape LangGraph's messages reducer takes (an array, or one
 * message or message-like object): its ToolMessages offloaded, the shape kept; the same value
 * when nothing changed.
 */
async function offloadMessages(messages: unknown, origin: ResultOrigin): Promise<unknown> {
  if (!Array.isArray(messages)) return offloadMessage(messages, origin);
  const replaced = await Promise.all(messages.map((message) => offloadMessage(message, origin)));
  return replaced.every((message, i) => message === messages[i]) ? messages : replaced;
}

/**
 * A Command whose update's `messages` have their ToolMessages offloaded as a plain result is; the
 * rest of the update (and goto, graph, resume) is kept. The same Command when nothing changed.
 */
export async function offloadCommand<C extends CommandLike>(command: C, origin: ResultOrigin): Promise<C> {
  const { update } = command;
  let changed: unknown = update;
  if (Array.isArray(update)) {
    // The [channel, value] tuple form of an update.
    const tuples = await Promise.all(
      update.map(async (entry: unknown) =>
        Array.isArray(entry) && entry.length === 2 && entry[0] === 'messages'
          ? ['messages', await offloadMessages(entry[1], origin)]
          : entry,
      ),
    );
    if (tuples.some((entry, i) => Array.isArray(entry) && entry[1] !== (update[i] as unknown[])[1])) changed = tuples;
  } else if (typeof update === 'object' && update !== null && 'messages' in update) {
    const messages = await offloadMessages(update.messages, origin);
    if (messages !== update.messages) changed = { ...update, messages };
  }
  if (changed === update) return command;
  // A copy of the app's Command (same class, fields) with the new update: LangGraph's constructor is not ours to call.
  return Object.assign(Object.create(Object.getPrototypeOf(command)) as C, command, { update: changed });
}
