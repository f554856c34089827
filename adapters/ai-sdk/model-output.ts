import type { JSONValue, Tool } from 'ai';
import type { ToolOutputOffload } from '../../lib/index.js';

/** What a tool's `toModelOutput` returns: what the model is sent for one tool result. */
type ModelOutput = Awaited<ReturnType<NonNullable<Tool['toModelOutput']>>>;

/** One result as `toModelOutput` gets it, and the thread it belongs to. */
interface ResultToShow {
  threadId: string;
  toolName: string;
  toolCallId: string;
}

/** What the model is sent, and whether the result was stored now or could not be stored (S3). */
interface ShownOutput {
  output: ModelOutput;
  /** Where this call stored the result; absent when it stored nothing. */
  storedAt?: string;
  /** Over the threshold, but the store failed: the model got a cut with a note. */
  failed?: boolean;
}

/**
 * What the SDK sends for a tool without `toModelOutput` (ai's create-tool-model-output.ts): a string
 * as text, anything else as JSON through a round trip (so `undefined` becomes null, Dates strings).
 */
export function defaultModelOutput(output: unknown): ModelOutput {
  if (typeof output === 'string') return { type: 'text', value: output };
  const serialized = JSON.stringify(output);
  return { type: 'json', value: serialized === undefined ? null : (JSON.parse(serialized) as JSONValue) };
}

/** A `content` output's parts. */
type ContentParts = Extract<ModelOutput, { type: 'content' }>['value'];

/**
 * Offloads one text the model would be sent; `keep` gives back the output to send when the text is
 * within the threshold (as the SDK would send it), `replace` the output carrying the new text.
 */
async function offloadText(
  offload: ToolOutputOffload,
  result: ResultToShow,
  text: string,
  keep: ModelOutput,
  replace: (text: string) => ModelOutput,
): Promise<ShownOutput> {
  const shown = await offload.offloadResult({
    threadId: result.threadId,
    callId: result.toolCallId,
    toolName: result.toolName,
    content: text,
  });
  switch (shown.kind) {
    case 'kept':
      return { output: keep };
    case 'stored':
      return shown.stored ? { output: replace(shown.text), storedAt: shown.path } : { output: replace(shown.text) };
    case 'failed':
      return { output: replace(shown.text), failed: true };
    case 'cut':
      return { output: replace(shown.text) };
  }
}

/** Keeps the output's providerOptions, if it had any, on what replaces it. */
function withOptionsOf(output: ModelOutput, replacement: ModelOutput): ModelOutput {
  return 'providerOptions' in output && output.providerOptions !== undefined
    ? ({ ...replacement, providerOptions: output.providerOptions } as ModelOutput)
    : replacement;
}

/**
 * What the model is sent for one tool result: a text over the threshold becomes the header and
 * preview naming where it is stored; a JSON value over it is pretty-printed (so reads by line
 * work) and offloaded the same way; a `content` output has its text offloaded and its other parts
 * kept after it; an error is cut to the threshold (never stored). Anything else, and anything
 * within the threshold, is sent as it came.
 */
export async function offloadModelOutput(
  offload: ToolOutputOffload,
  result: ResultToShow,
  output: ModelOutput,
): Promise<ShownOutput> {
  const unchanged: ShownOutput = { output };
  switch (output.type) {
    case 'text':
      return offloadText(offload, result, output.value, output, (text) =>
        withOptionsOf(output, { type: 'text', value: text }),
      );
    case 'json': {
      const pretty = JSON.stringify(output.value, null, 2) ?? 'null';
      return offloadText(offload, result, pretty, output, (text) =>
        withOptionsOf(output, { type: 'text', value: text }),
      );
    }
    case 'content': {
      const isText = (part: ContentParts[number]) => part.type === 'text';
      const texts = output.value.filter(isText) as Array<Extract<ContentParts[number], { type: 'text' }>>;
      if (texts.length === 0) return unchanged;
      const others = output.value.filter((part) => !isText(part));
      const joined = texts.map((part) => part.text).join('\n');
      return offloadText(offload, result, joined, output, (text) =>
        withOptionsOf(output, { type: 'content', value: [{ type: 'text', text }, ...others] }),
      );
    }
    case 'error-text': {
      const value = offload.cutToThreshold(output.value);
      return { output: value === output.value ? output : { ...output, value } };
    }
    case 'error-json': {
      const pretty = JSON.stringify(output.value, null, 2) ?? 'null';
      const value = offload.cutToThreshold(pretty);
      if (value === pretty) return unchanged;
      return { output: withOptionsOf(output, { type: 'error-text', value }) };
    }
    default:
      return unchanged;
  }
}
