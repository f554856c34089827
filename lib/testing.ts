import { RunAborted } from './runtime/failure.js';
import type { Model, ModelOutput, ModelReply, ModelRequest, ModelStreamPart } from './runtime/model.js';
import { isModelStream, replyShape } from './runtime/model-stream.js';
import { checkOptionNames, isRecord } from './shared/checks.js';

export { type StoreContractOptions, storeContract } from './testing/store-contract.js';

/** A reply (with the `usage` a provider would report, if any), a stream of parts, or a function of the request giving either. */
export type ScriptedStep =
  | ModelReply
  | AsyncIterable<ModelStreamPart>
  | ((request: ModelRequest) => ModelOutput | Promise<ModelOutput>);

/** The options of `scriptedModel(steps, options)`. */
export interface ScriptedModelOptions {
  /**
   * Stream every reply: its text in deltas of `chunkChars` characters (8 unless given), then its
   * tool calls one part each, `delayMs` (0 unless given) apart. `true` takes those.
   * @default false
   */
  stream?: boolean | { chunkChars?: number; delayMs?: number };
}

/**
 * A model for tests: replays `steps` in order (a step may be a function of the request, or a
 * stream of parts) and records a structured copy of every request it got in `.requests`. Called
 * more times than it has steps, it throws, so a test never silently runs an extra model step.
 * With `{ stream }` it streams each reply in parts, as a streaming provider would.
 */
export function scriptedModel(
  steps: ScriptedStep[],
  options: ScriptedModelOptions = {},
): Model & { requests: ModelRequest[] } {
  checkOptionNames('scriptedModel', options, ['stream']);
  const requests: ModelRequest[] = [];
  const stream = streamOptions(options.stream);
  const model = async (request: ModelRequest, { signal }: { signal: AbortSignal }): Promise<ModelOutput> => {
    requests.push(structuredClone(request));
    const step = steps[requests.length - 1];
    if (step === undefined) {
      throw new Error(
        `scriptedModel was called ${requests.length} times but has only ${steps.length} step${steps.length === 1 ? '' : 's'}`,
      );
    }
    const output =
      typeof step === 'function' ? await step(request) : isModelStream(step) ? step : structuredClone(step);
    return stream && !isModelStream(output) ? streamReply(output, stream, signal) : output;
  };
  return Object.assign(model, { requests });
}

function streamOptions(stream: ScriptedModelOptions['stream']): { chunkChars: number; delayMs: number } | undefined {
  if (!stream) return undefined;
  if (stream !== true) checkOptionNames('scriptedModel: stream', stream, ['chunkChars', 'delayMs']);
  const { chunkChars = 8, delayMs = 0 } = stream === true ? {} : stream;
  if (!Number.isInteger(chunkChars) || chunkChars < 1) {
    throw new RangeError(`scriptedModel: stream.chunkChars must be an integer of at least 1, got ${chunkChars}`);
  }
  if (!Number.isFinite(delayMs) || delayMs < 0) {
    throw new RangeError(`scriptedModel: stream.delayMs must be a finite number of at least 0, got ${delayMs}`);
  }
  return { chunkChars, delayMs };
}

/** A whole reply as stream parts: text deltas, then one part per tool call. */
export async function* streamReply(
  reply: ModelReply,
  { chunkChars = 8, delayMs = 0 }: { chunkChars?: number; delayMs?: number },
  signal?: AbortSignal,
): AsyncGenerator<ModelStreamPart> {
  if (!isRecord(reply) || !('content' in reply)) {
    throw new TypeError(`scriptedModel: a step to stream must be ${replyShape}`);
  }
  const text =
    typeof reply.content === 'string'
      ? reply.content
      : reply.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
  const characters = [...text]; // never split a surrogate pair
  for (let i = 0; i < characters.length; i += chunkChars) {
    await pause(delayMs, signal);
    yield { type: 'text-delta', text: characters.slice(i, i + chunkChars).join('') };
  }
  for (const call of reply.toolCalls ?? []) {
    await pause(delayMs, signal);
    yield { type: 'tool-call', id: call.id, name: call.name, args: call.args };
  }
  // As a provider streams it: what the call cost, last.
  if (reply.usage !== undefined) yield { type: 'usage', ...reply.usage };
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) return Promise.reject(new RunAborted());
  if (ms === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(new RunAborted());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
