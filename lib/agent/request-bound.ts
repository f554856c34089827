import { withText } from '../offload/offloaded-result.js';
import type { ToolOutputOffload } from '../offload/tool-output-offload.js';
import type { Message } from '../runtime/messages.js';
import { type ContentPart, isTextPart } from '../shared/content.js';

/** Text parts joined as the offload measures them; a non-string text (bad input) is shown, not thrown on. */
export function textOf(content: readonly ContentPart[]): string {
  return content
    .filter(isTextPart)
    .map((part) => (typeof part.text === 'string' ? part.text : String(part.text)))
    .join('\n');
}

/**
 * The messages as they may be sent (O9): every tool message whose text is over its tool's threshold
 * is cut to within it, with a note saying so; media parts, toolCallId and toolName are kept (B4).
 * The messages given are not changed. Returns the same array when nothing needed cutting.
 */
export function boundToolMessages(messages: readonly Message[], offload: ToolOutputOffload): readonly Message[] {
  let changed = false;
  const bounded = messages.map((message) => {
    if (message.role !== 'tool') return message;
    const text = textOf(message.content);
    // A text within the threshold comes back as it is (counted once either way).
    const cut = offload.cutToThreshold(text, message.toolName);
    if (cut === text) return message;
    changed = true;
    return { ...message, content: withText(message.content, cut) };
  });
  return changed ? bounded : messages;
}
