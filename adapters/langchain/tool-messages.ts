import { ToolMessage } from '@langchain/core/messages';
import type { ToolOutputOffload } from '../../lib/index.js';

/** Where a tool's result is offloaded: its thread and the tool's name (for a message without one). */
interface ResultOrigin {
  offload: ToolOutputOffload;
  threadId: string;
  toolName: string;
}

type Block = { type?: unknown; text?: unknown };
const isTextBlock = (block: unknown): block is { type: 'text'; text: string } =>
  typeof block === 'object' &&
  block !== null &&
  (block as Block).type === 'text' &&
  typeof (block as Block).text === 'string';

/**
 * The ToolMessage the model should see: the same message when its text is within the threshold,
 * else one with the same tool_call_id (and name, status, artifact) whose text is the offload's
 * header and first lines; non-text blocks are kept after it. An error result (status "error") is
 * the app's to handle and passes through unchanged.
 */
export async function offloadToolMessage(message: ToolMessage, origin: ResultOrigin): Promise<ToolMessage> {
  if (message.status === 'error') return message;
  const { content } = message;
  const texts = typeof content === 'string' ? [content] : content.filter(isTextBlock).map((block) => block.text);
  if (texts.length === 0) return message;
  const original = texts.join('\n');
  const result = await origin.offload.offloadResult({
    threadId: origin.threadId,
    callId: message.tool_call_id,
    toolName: message.name || origin.toolName,
    content: original,
  });
  if (result.text === original) return message;
  return new ToolMessage({
    content:
      typeof content === 'string'
        ? result.text
        : [{ type: 'text', text: result.text }, ...content.filter((block) => !isTextBlock(block))],
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

async function offloadMessages(messages: unknown, origin: ResultOrigin): Promise<unknown> {
  if (!Array.isArray(messages)) return messages;
  const replaced = await Promise.all(
    messages.map((message) => (ToolMessage.isInstance(message) ? offloadToolMessage(message, origin) : message)),
  );
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
