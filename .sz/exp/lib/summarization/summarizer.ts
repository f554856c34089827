import type { Message } from '../runtime/messages.js';
import type { Model, ModelRequest } from '../runtime/model.js';
import { modelReply } from '../runtime/model-stream.js';
import { type ContentPart, joinText } from '../shared/content.js';
import { cutLine, cutToChars } from '../shared/text.js';
import { charsPerTokenMeasure } from '../tokens/token-measure.js';

const summarizerSystemPrompt = [
  'You summarize the earlier part of a conversation between a user, an AI assistant and the tools the assistant called,',
  'so that the assistant can carry on from your summary alone, without the messages it replaces.',
  '- Be faithful: keep the user’s requests and constraints, facts found, decisions made, errors met, and what is left to do. Invent nothing.',
  '- Keep file paths (such as /large_tool_results/<key>), URLs, names, identifiers and numbers verbatim: the assistant may need to read them again.',
  '- When a previous summary is given, merge it with the new messages into one summary that replaces it; drop nothing from it that still matters.',
  '- Reply with the summary only, as plain text.',
].join('\n');

function partText(part: ContentPart): string {
  if (part.type === 'text') return String(part.text);
  return `[${part.type}: ${part.mimeType}${part.name ? ` ${part.name}` : ''}]`;
}

/** One message as transcript lines; a text longer than `maxChars` is cut with a note saying so. */
function renderMessage(message: Message, cut: (text: string) => string): string {
  const body = cut(message.content.map(partText).join('\n'));
  if (message.role === 'user') return `[user]\n${body}`;
  if (message.role === 'tool') {
    return `[result of tool ${message.toolName}${message.isError ? ' (error)' : ''}]\n${body}`;
  }
  const calls = message.toolCalls.map((c) => `[assistant called tool ${c.name}] ${JSON.stringify(c.args) ?? ''}`);
  return [body === '' ? undefined : `[assistant]\n${body}`, ...calls].filter((s) => s !== undefined).join('\n');
}

/** The request for the summarizer model: the instructions, the previous summary and the messages as text, no tools. */
export function summarizerRequest(
  previous: string,
  messages: readonly Message[],
  maxMessageTokens: number,
  measure = charsPerTokenMeasure,
): ModelRequest {
  // Each message's text within maxMessageTokens, with a marker where it was cut.
  const cut = (text: string) => {
    if (measure.within(text, maxMessageTokens)) return text;
    const kept = measure.fit(maxMessageTokens, (chars) => cutToChars(text, chars));
    return cutLine(text, kept.length);
  };
  const transcript = messages.map((m) => renderMessage(m, cut)).join('\n\n');
  const text =
    previous === ''
      ? `Summarize these messages:\n\n${transcript}`
      : `Previous summary:\n${previous}\n\nMerge it with these later messages into one summary:\n\n${transcript}`;
  return {
    systemPrompt: summarizerSystemPrompt,
    messages: [{ role: 'user', id: 'summarization-request', content: [{ type: 'text', text }] }],
    tools: [],
  };
}

/**
 * Asks `model` for a summary; rejects when the model throws, returns no text, or `signal` aborts
 * (even if the model ignores the signal).
 */
export async function requestSummary(model: Model, request: ModelRequest, signal: AbortSignal): Promise<string> {
  const reply = await modelReply(model, request, { signal });
  const content = reply?.content;
  const summary = (typeof content === 'string' ? content : Array.isArray(content) ? joinText(content) : '').trim();
  if (summary === '') throw new Error('the summarizer returned no text');
  return summary;
}
