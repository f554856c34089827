import type { Message } from '../runtime/messages.js';
import type { ContentPart } from '../shared/content.js';
import { charsPerTokenMeasure, type TokenMeasure } from '../tokens/token-measure.js';

/** The state key Summarization keeps its summary under (`Summarization.key`). */
export const summarizationKey = 'summarization' as const;

/** What Summarization keeps under its state key: the summary so far and every message id it covers. */
export interface SummarizationState {
  summary: string;
  coveredMessageIds: string[];
}

export function emptySummarization(): SummarizationState {
  return { summary: '', coveredMessageIds: [] };
}

/** The marker the summary message starts with, so the model (and a reader) knows what it is. */
const summaryMarker = '[Summary of earlier conversation]';

/** The id of the synthesized summary message; it never enters the thread's history. */
const summaryMessageId = 'summarization-summary';

/**
 * A media part counts as this many tokens. Providers bill images and audio by size, not by the
 * length of their base64, so a fixed, modest count keeps one screenshot from forcing a summary.
 */
export const mediaPartTokens = 256;

/** The key's value as a usable state: anything malformed (an old or hand-edited checkpoint) reads as empty. */
export function readSummarization(value: unknown): SummarizationState {
  if (typeof value !== 'object' || value === null) return emptySummarization();
  const { summary, coveredMessageIds } = value as Partial<SummarizationState>;
  if (typeof summary !== 'string' || !Array.isArray(coveredMessageIds)) return emptySummarization();
  return { summary, coveredMessageIds: coveredMessageIds.filter((id) => typeof id === 'string') };
}

export function summaryMessage(summary: string): Message {
  return { role: 'user', id: summaryMessageId, content: [{ type: 'text', text: `${summaryMarker}\n${summary}` }] };
}

function contentTokens(content: readonly ContentPart[], measure: TokenMeasure): number {
  let tokens = 0;
  for (const part of content) {
    tokens += part.type === 'text' ? measure.tokens(String(part.text)) : mediaPartTokens;
  }
  return tokens;
}

/** Estimated tokens of messages as sent: their text, the tool calls' names and arguments, media modestly. */
export function messagesTokens(messages: readonly Message[], measure = charsPerTokenMeasure): number {
  let tokens = 0;
  for (const message of messages) {
    tokens += contentTokens(message.content, measure);
    if (message.role === 'assistant') {
      for (const call of message.toolCalls) tokens += measure.tokens(call.name + (JSON.stringify(call.args) ?? ''));
    }
  }
  return tokens;
}

/** What the model would be sent now: the summary so far in place of the messages it covers. */
interface Outgoing {
  /** The history's messages the summary does not cover, in order. */
  uncovered: Message[];
  /** The messages to send: the summary message (when there is a summary) and `uncovered`. */
  messages: readonly Message[];
}

export function outgoing(messages: readonly Message[], state: SummarizationState): Outgoing {
  if (state.summary === '') return { uncovered: [...messages], messages };
  const covered = new Set(state.coveredMessageIds);
  const uncovered = messages.filter((m) => !covered.has(m.id));
  return { uncovered, messages: [summaryMessage(state.summary), ...uncovered] };
}

/**
 * Where the kept messages start: the last `keepMessages` are kept, and the boundary moves earlier
 * while it falls on a tool message, so an assistant message with tool calls stays with its results
 * (a result belongs to the assistant message before it). 0 means there is nothing to summarize.
 */
export function keepBoundary(messages: readonly Message[], keepMessages: number): number {
  let boundary = Math.max(0, messages.length - keepMessages);
  while (boundary > 0 && messages[boundary]!.role === 'tool') boundary--;
  return boundary;
}
