import { checkOptionNames, isRecord, quoteForMessage } from '../shared/checks.js';
import { RunAborted, untilAborted } from './failure.js';
import type { ToolCall } from './messages.js';
import type { Model, ModelOutput, ModelReply, ModelRequest, ModelStreamPart, ModelUsage } from './model.js';

/** The shape a model's reply must have, as error messages name it. */
export const replyShape = '{ content: string | ContentPart[], toolCalls?: ToolCall[] }';
const partShape =
  "{ type: 'text-delta', text: string }, { type: 'tool-call', id: string, name: string, args } or { type: 'usage', inputTokens?, cachedInputTokens?, outputTokens? }";

const usageCounts = ['inputTokens', 'cachedInputTokens', 'outputTokens'] as const;

/**
 * The counts of a provider's usage that are finite numbers ≥ 0; undefined when none is. What a
 * provider reports is input: a count of the wrong kind is dropped, never a failed run.
 */
export function checkedUsage(usage: unknown): ModelUsage | undefined {
  if (!isRecord(usage)) return undefined;
  const kept: ModelUsage = {};
  for (const name of usageCounts) {
    const count = usage[name];
    if (typeof count === 'number' && Number.isFinite(count) && count >= 0) kept[name] = count;
  }
  return Object.keys(kept).length > 0 ? kept : undefined;
}

/** A part of a streamed reply as the app is told of it (createAgent's `onStream`). */
export interface StreamEvent {
  threadId: string;
  turnId: string;
  /** The model step of the turn, from 1; a middleware that calls the model again in a step repeats it. */
  step: number;
  part: ModelStreamPart;
}

/** Told of each part of a streamed reply as it arrives (createAgent's `onStream`). */
export type StreamListener = (event: StreamEvent) => void;

export function isModelStream(value: unknown): value is AsyncIterable<ModelStreamPart> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function'
  );
}

/**
 * Calls `model` and gives its reply, whether it answered whole or streamed: a stream is read to
 * its end, its text deltas joined, its tool calls kept in order, and each part passed to `onPart`
 * as it arrives. When `signal` aborts, the stream is closed (its `return()`) and this rejects with
 * RunAborted, even if the model ignores the signal. A whole reply is returned as it came (unchecked).
 */
export async function modelReply(
  model: Model,
  request: ModelRequest,
  options: { signal: AbortSignal; onPart?: (part: ModelStreamPart) => void },
): Promise<ModelReply> {
  checkOptionNames('modelReply', options, ['signal', 'onPart']);
  const { signal, onPart } = options;
  const output: ModelOutput = await untilAborted(
    Promise.resolve().then(() => model(request, { signal })),
    signal,
  );
  return isModelStream(output) ? assemble(output, signal, onPart) : output;
}

async function assemble(
  stream: AsyncIterable<ModelStreamPart>,
  signal: AbortSignal,
  onPart: ((part: ModelStreamPart) => void) | undefined,
): Promise<ModelReply> {
  const iterator = stream[Symbol.asyncIterator]();
  let text = '';
  const toolCalls: ToolCall[] = [];
  let usage: ModelUsage | undefined;
  let done = false;
  try {
    for (let index = 0; ; index++) {
      // Asked for no part after an abort: its rejection would go unheard (untilAborted rejects at once).
      if (signal.aborted) throw new RunAborted();
      const next = await untilAborted(Promise.resolve(iterator.next()), signal);
      if (next.done) {
        done = true;
        break;
      }
      const part = checkedPart(next.value, index);
      if (part.type === 'text-delta') text += part.text;
      else if (part.type === 'usage') usage = checkedUsage(part) ?? usage;
      else toolCalls.push({ id: part.id, name: part.name, args: part.args });
      if (onPart) tell(onPart, part);
    }
  } finally {
    // An abort or a bad part stops reading: the stream is told, so a fetch under it can end too.
    if (!done) Promise.resolve(iterator.return?.()).catch(() => undefined);
  }
  if (signal.aborted) throw new RunAborted();
  return {
    content: text,
    ...(toolCalls.length > 0 ? { toolCalls } : {}),
    ...(usage === undefined ? {} : { usage }),
  };
}

function checkedPart(part: unknown, index: number): ModelStreamPart {
  if (isRecord(part)) {
    if (part.type === 'text-delta' && typeof part.text === 'string') return { type: 'text-delta', text: part.text };
    if (part.type === 'tool-call' && typeof part.id === 'string' && typeof part.name === 'string') {
      return { type: 'tool-call', id: part.id, name: part.name, args: part.args };
    }
    if (part.type === 'usage') return { type: 'usage', ...checkedUsage(part) };
  }
  throw new Error(`stream part ${index}: expected ${partShape}, got ${quoteForMessage(part)}`);
}

function tell(listener: (part: ModelStreamPart) => void, part: ModelStreamPart): void {
  try {
    listener(part);
  } catch (error) {
    console.warn(`createAgent: the onStream listener threw on a "${part.type}" part; ignored`, error);
  }
}
