import { AIMessage, type BaseMessage, type SystemMessage, ToolMessage } from '@langchain/core/messages';
import { toJsonSchema } from '@langchain/core/utils/json_schema';
import type { ContextMessage, ContextRequest, FittedContext } from '../../lib/index.js';
import { toolTextsOf, withToolText } from './tool-messages.js';

type ContextToolSpec = ContextRequest['tools'][number];

/** A tool as LangChain's wrapModelCall hands it: a LangChain tool (its schema zod or JSON Schema), or a provider's own tool object. */
type RequestTool = { name?: unknown; description?: unknown; schema?: unknown } | Record<string, unknown>;

/**
 * A tool as the model is offered it (C1): its name, description and the JSON Schema of its
 * arguments, converted as LangChain converts them for a provider; a provider's own tool (no
 * schema) counts as its whole object.
 */
function toolSpecOf(tool: RequestTool): ContextToolSpec {
  const { name, description } = tool as { name?: unknown; description?: unknown };
  const spec = { name: typeof name === 'string' ? name : String(name ?? '') };
  const described = typeof description === 'string' ? { ...spec, description } : spec;
  const { schema } = tool as { schema?: unknown };
  if (schema === undefined) return { ...described, parameters: tool };
  return { ...described, parameters: toJsonSchema(schema as Parameters<typeof toJsonSchema>[0]) };
}

/** Each tool call id with the name of the tool it called, from the AI messages, for a ToolMessage without a name. */
function toolNamesById(messages: readonly BaseMessage[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const message of messages) {
    if (!AIMessage.isInstance(message)) continue;
    for (const call of message.tool_calls ?? []) if (call.id) names.set(call.id, call.name);
  }
  return names;
}

function contextMessageOf(message: BaseMessage, names: ReadonlyMap<string, string>): ContextMessage {
  if (ToolMessage.isInstance(message)) {
    const { content } = message;
    const texts = toolTextsOf(message);
    const mediaParts = typeof content === 'string' ? 0 : content.length - texts.length;
    const toolCallId = message.tool_call_id;
    const toolName = message.name || names.get(toolCallId) || '';
    const text = texts.join('\n');
    return { role: 'tool', toolCallId, toolName, text, ...(mediaParts > 0 ? { mediaParts } : {}) };
  }
  if (AIMessage.isInstance(message)) {
    const toolCalls = (message.tool_calls ?? []).map((call) => ({
      id: call.id ?? '',
      name: call.name,
      args: call.args,
    }));
    return { role: 'assistant', text: message.text, ...(toolCalls.length > 0 ? { toolCalls } : {}) };
  }
  const type = message.getType();
  return { role: type === 'system' || type === 'developer' ? 'system' : 'user', text: message.text };
}

/** LangChain's model request in the offload's words, for `fitContext`: the system message as it is sent (the offload's lines in it). */
export function contextRequestOf(
  threadId: string,
  systemMessage: SystemMessage,
  tools: readonly RequestTool[],
  messages: readonly BaseMessage[],
): ContextRequest {
  const names = toolNamesById(messages);
  return {
    threadId,
    system: systemMessage.text,
    tools: tools.map(toolSpecOf),
    messages: messages.map((message) => contextMessageOf(message, names)),
  };
}

/**
 * The messages to send: each replaced ToolMessage as a copy with the same tool_call_id whose text
 * is the pointer (C2; its media dropped when it says so) or the cut preview (C6). The agent's state
 * keeps the messages given. The same array when nothing is replaced.
 */
export function withReplacements(messages: BaseMessage[], replacements: FittedContext['replacements']): BaseMessage[] {
  if (replacements.size === 0) return messages;
  return messages.map((message, i) => {
    const replacement = replacements.get(i);
    if (!replacement || !ToolMessage.isInstance(message)) return message;
    return withToolText(message, replacement.text, { dropMedia: replacement.dropMedia });
  });
}
