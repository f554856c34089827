import type { ContextMessage, ContextRequest, FittedContext } from '../offload/context/request.js';
import { withText } from '../offload/offloaded-result.js';
import type { Message } from '../runtime/messages.js';
import type { ModelRequest } from '../runtime/model.js';
import { isTextPart, textContent } from '../shared/content.js';
import { textOf } from './request-bound.js';

/** One message as the offload measures it (C1): its text parts joined as the offload joins them, its media counted. */
function contextMessageOf(message: Message): ContextMessage {
  const text = textOf(message.content);
  switch (message.role) {
    case 'user':
      return { role: 'user', text };
    case 'assistant':
      return {
        role: 'assistant',
        text,
        toolCalls: message.toolCalls.map(({ id, name, args }) => ({ id, name, args })),
      };
    case 'tool': {
      const mediaParts = message.content.filter((part) => !isTextPart(part)).length;
      const { toolCallId, toolName } = message;
      return { role: 'tool', toolCallId, toolName, text, ...(mediaParts > 0 ? { mediaParts } : {}) };
    }
  }
}

/** The runtime's model request in the offload's words, for `fitContext` (threadId and turnId are the caller's). */
export function contextRequestOf(
  request: ModelRequest,
  where: Pick<ContextRequest, 'threadId' | 'turnId' | 'readTools'>,
): ContextRequest {
  return {
    ...where,
    system: request.systemPrompt,
    tools: request.tools.map(({ name, description, parameters }) => ({ name, description, parameters })),
    messages: request.messages.map(contextMessageOf),
  };
}

/**
 * The messages to send: a copy with each replaced tool result's text swapped (a pointer with its
 * media dropped when it says so, C2; a preview cut to its header, C6); the messages given, which
 * are the thread's history, are not changed. The same array when nothing is replaced.
 */
export function withReplacements(
  messages: readonly Message[],
  replacements: FittedContext['replacements'],
): readonly Message[] {
  if (replacements.size === 0) return messages;
  return messages.map((message, i) => {
    const replacement = replacements.get(i);
    if (!replacement || message.role !== 'tool') return message;
    const { text, dropMedia } = replacement;
    return { ...message, content: dropMedia ? textContent(text) : withText(message.content, text) };
  });
}
