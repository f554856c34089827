import { coerceMessageLikeToMessage, ToolMessage } from '@langchain/core/messages';
import type { ContentPart, OffloadEvent, ToolOutputOffload } from '../../lib/index.js';

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
    ...fieldsOf(message),
    content: typeof content === 'string' ? text : [{ type: 'text', text }, ...others],
  });
}

/** The fields a copy of a ToolMessage keeps (tool_call_id, name, status, artifact, …). */
function fieldsOf(message: ToolMessage) {
  return {
    tool_call_id: message.tool_call_id,
    name: message.name,
    id: message.id,
    status: message.status,
    artifact: message.artifact,
    metadata: message.metadata,
    additional_kwargs: message.additional_kwargs,
    response_metadata: message.response_metadata,
  };
}

/** A field of a block that is a non-empty string, by the first of its names that has one. */
function stringField(block: Record<string, unknown>, ...names: string[]): string | undefined {
  for (const name of names) if (typeof block[name] === 'string') return block[name] as string;
  return undefined;
}

/**
 * A block that may carry text in a non-text form (O15), as a content part the offload reads: a
 * `text/*` `file` or `text-plain` block (base64 `data`, or plain `text`), or a `document` block
 * whose `source` is base64 or text of a `text/*` type. Undefined for every other block.
 */
function documentPart(block: unknown): ContentPart | undefined {
  if (typeof block !== 'object' || block === null) return undefined;
  const fields = block as Record<string, unknown>;
  const source =
    fields.type === 'document' && typeof fields.source === 'object' && fields.source !== null
      ? (fields.source as Record<string, unknown>)
      : fields.type === 'file' || fields.type === 'text-plain'
        ? fields
        : undefined;
  if (source === undefined) return undefined;
  const mimeType =
    stringField(source, 'mimeType', 'mime_type', 'media_type') ?? stringField(fields, 'mimeType', 'mime_type');
  if (mimeType === undefined ? fields.type !== 'text-plain' : !/^text\//i.test(mimeType)) return undefined;
  const plain = source.type === 'text' || source.source_type === 'text' || typeof source.text === 'string';
  const text = stringField(source, 'text') ?? (plain ? stringField(source, 'data') : undefined);
  if (text !== undefined) return { type: 'text', text };
  const data = stringField(source, 'data', 'base64');
  return data === undefined ? undefined : { type: 'file', mimeType: mimeType ?? 'text/plain', data };
}

/**
 * The ToolMessage the model should see: the same message when its text is within the threshold,
 * else one with the same tool_call_id (and name, status, artifact) whose text is the offload's
 * header and first lines; blocks that carry no text are kept after it. Text in `text/*` file and
 * document blocks counts and is offloaded with it (O15); an error result (status "error") is
 * offloaded the same way and stays an error (O16).
 */
export async function offloadToolMessage(message: ToolMessage, origin: ResultOrigin): Promise<ToolMessage> {
  const { content } = message;
  const blocks: readonly unknown[] = typeof content === 'string' ? [{ type: 'text', text: content }] : content;
  // Each block that carries text as a content part; the offload passes on a part it cannot read as text.
  const partOf = new Map<unknown, ContentPart>();
  for (const block of blocks) {
    const part = isTextBlock(block) ? ({ type: 'text', text: block.text } as const) : documentPart(block);
    if (part !== undefined) partOf.set(block, part);
  }
  const parts = [...partOf.values()];
  if (parts.length === 0) return message;
  const toolName = message.name || origin.toolName;
  const { threadId } = origin;
  const toolCallId = message.tool_call_id;
  const result = await origin.offload.offloadResult({ threadId, callId: toolCallId, toolName, content: parts });
  if (result.kind === 'stored' && result.stored) {
    origin.emit({ type: 'offloaded', threadId, toolName, toolCallId, path: result.path });
  } else if (result.kind === 'failed') {
    origin.emit({ type: 'offload-failed', threadId, toolName, toolCallId, why: result.why });
  }
  if (result.kind === 'kept') return message;
  // Every block that carries no text stays, and any the offload passed on (a document that is not UTF-8 text).
  const passedOn = new Set(result.content.slice(1));
  const rest = blocks.filter((block) => {
    const part = partOf.get(block);
    return part === undefined || passedOn.has(part);
  });
  return withToolText(typeof content === 'string' ? message : replaceBlocks(message, rest), result.text);
}

/** A copy of the message whose blocks are `blocks` (before its text is replaced). */
function replaceBlocks(message: ToolMessage, blocks: readonly unknown[]): ToolMessage {
  return new ToolMessage({ ...fieldsOf(message), content: blocks as ToolMessage['content'] & unknown[] });
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
