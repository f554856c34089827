import type { ModelStreamPart, ModelUsage } from '../runtime/model.js';
import { isRecord } from '../shared/checks.js';
import { serverSentEvents } from './server-sent-events.js';

/** A tool call as its deltas arrived so far, by its index in the reply. */
interface PartialCall {
  id?: string;
  name?: string;
  arguments: string;
}

/**
 * A streamed Chat Completions reply as ModelStreamParts: text deltas as they arrive, then the
 * tool calls, each assembled from its deltas by index, when the stream ends. An error event, a
 * chunk that is not JSON, a tool call without id or name, or a stream cut before its end throws
 * an Error naming it (`who` and `url` start each message).
 */
export async function* openAIStreamParts(
  body: ReadableStream<Uint8Array>,
  who: string,
  excerpt: (text: string) => string,
): AsyncGenerator<ModelStreamPart> {
  const calls = new Map<number, PartialCall>();
  let ended = false;
  for await (const data of serverSentEvents(body)) {
    if (data.trim() === '[DONE]') {
      ended = true;
      break;
    }
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch {
      throw new Error(`${who}: a stream event is not JSON: ${excerpt(data)}`);
    }
    if (!isRecord(chunk)) throw new Error(`${who}: a stream event is not an object: ${excerpt(data)}`);
    if (chunk.error !== undefined) {
      const message = isRecord(chunk.error) && typeof chunk.error.message === 'string' ? chunk.error.message : data;
      throw new Error(`${who}: the server reported an error in mid-stream: ${excerpt(message)}`);
    }
    // The last chunk with stream_options.include_usage has no choices, only usage.
    const usage = usageOf(chunk.usage);
    if (usage !== undefined) yield { type: 'usage', ...usage };
    const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
    if (!isRecord(choice)) continue;
    const delta = isRecord(choice.delta) ? choice.delta : {};
    const text =
      typeof delta.content === 'string' ? delta.content : typeof delta.refusal === 'string' ? delta.refusal : '';
    if (text !== '') yield { type: 'text-delta', text };
    if (Array.isArray(delta.tool_calls)) for (const part of delta.tool_calls) addCallDelta(calls, part, who, excerpt);
    if (typeof choice.finish_reason === 'string') ended = true;
  }
  if (!ended) throw new Error(`${who}: the stream ended before the reply was complete (no finish_reason, no [DONE])`);
  for (const [index, call] of [...calls].sort(([a], [b]) => a - b)) {
    if (!call.id) throw new Error(`${who}: the streamed tool call at index ${index} came without an id`);
    if (!call.name) throw new Error(`${who}: the streamed tool call at index ${index} came without a function name`);
    yield { type: 'tool-call', id: call.id, name: call.name, args: parseArgs(call.arguments) };
  }
}

function addCallDelta(
  calls: Map<number, PartialCall>,
  part: unknown,
  who: string,
  excerpt: (text: string) => string,
): void {
  const index = isRecord(part) ? part.index : undefined;
  if (!isRecord(part) || typeof index !== 'number' || !Number.isInteger(index) || index < 0) {
    throw new Error(`${who}: a streamed tool call delta has no index: ${excerpt(JSON.stringify(part) ?? '')}`);
  }
  const call = calls.get(index) ?? { arguments: '' };
  calls.set(index, call);
  if (typeof part.id === 'string' && part.id !== '') call.id = part.id;
  const fn = isRecord(part.function) ? part.function : {};
  // A name comes whole in one delta; some servers repeat it in later ones.
  if (typeof fn.name === 'string' && fn.name !== '' && fn.name !== call.name) call.name = (call.name ?? '') + fn.name;
  if (typeof fn.arguments === 'string') call.arguments += fn.arguments;
}

/** As for a whole reply: arguments that are not JSON stay the raw string, for the schema check to answer. */
export function parseArgs(args: unknown): unknown {
  if (args === undefined || args === null || args === '') return {};
  if (typeof args !== 'string') return args; // a server that already parsed them
  try {
    return JSON.parse(args);
  } catch {
    return args;
  }
}

/**
 * A Chat Completions `usage` in the runtime's words: `prompt_tokens`, its
 * `prompt_tokens_details.cached_tokens` and `completion_tokens`, each kept only when it is a count.
 */
export function usageOf(usage: unknown): ModelUsage | undefined {
  if (!isRecord(usage)) return undefined;
  const details = isRecord(usage.prompt_tokens_details) ? usage.prompt_tokens_details : {};
  const counts: ModelUsage = {};
  const keep = (name: keyof ModelUsage, value: unknown) => {
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0) counts[name] = value;
  };
  keep('inputTokens', usage.prompt_tokens);
  keep('cachedInputTokens', details.cached_tokens);
  keep('outputTokens', usage.completion_tokens);
  return Object.keys(counts).length > 0 ? counts : undefined;
}
