import type { JSONValue, Tool } from 'ai';
import type { ToolOutputOffload } from '../../lib/index.js';

/** What a tool's `toModelOutput` returns: what the model is sent for one tool result. */
export type ModelOutput = Awaited<ReturnType<NonNullable<Tool['toModelOutput']>>>;

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
  /** Over the threshold, but the store failed (this is its error): the model got a cut with a note. */
  failed?: string;
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
      return { output: replace(shown.text), failed: shown.why };
    case 'cut':
      return { output: replace(shown.text) };
  }
}

/** Keeps the output's providerOptions, if it had any, on what replaces it. */
export function withOptionsOf(output: ModelOutput, replacement: ModelOutput): ModelOutput {
  return 'providerOptions' in output && output.providerOptions !== undefined
    ? ({ ...replacement, providerOptions: output.providerOptions } as ModelOutput)
    : replacement;
}

/** UTF-8 bytes of a text, at most `max + 1` counted exactly: whether it fits is all that is asked. */
function fitsBytes(text: string, max: number): boolean {
  // UTF-8 takes one to three bytes per UTF-16 unit.
  if (text.length * 3 <= max) return true;
  if (text.length > max) return false;
  return new TextEncoder().encode(text).length <= max;
}

/**
 * The text a JSON value over the threshold is stored as: the most readable form that is stored
 * whole, so nothing the provider would have been sent is lost to formatting. Pretty-printed (two
 * spaces) when it fits `maxResultBytes`; else one value per line without the indentation (a line
 * of pretty JSON never starts inside a string: JSON.stringify escapes newlines); else compact,
 * which the offload cuts at `maxResultBytes` when even that is over, keeping the most of it.
 */
function jsonToStore(value: JSONValue, compact: string, maxResultBytes: number): string {
  if (!fitsBytes(compact, maxResultBytes)) return compact;
  const pretty = JSON.stringify(value, null, 2) ?? 'null';
  if (fitsBytes(pretty, maxResultBytes)) return pretty;
  const lines = pretty.replace(/\n +/g, '\n');
  return fitsBytes(lines, maxResultBytes) ? lines : compact;
}

/**
 * A `json` output: measured as the provider is sent it (`JSON.stringify(value)`, what every AI SDK
 * provider sends for a json tool result) and, within the threshold, sent unchanged; over it,
 * stored whole (`jsonToStore`) and replaced by the header and preview as a text.
 */
async function offloadJson(
  offload: ToolOutputOffload,
  result: ResultToShow,
  output: Extract<ModelOutput, { type: 'json' }>,
): Promise<ShownOutput> {
  const compact = JSON.stringify(output.value) ?? 'null';
  const asText = (text: string) => withOptionsOf(output, { type: 'text', value: text });
  if (offload.measure.tokensOver(compact, offload.thresholdFor(result.toolName)) === undefined) {
    // Still offered: every call is an update of the thread (its age limit applies).
    return offloadText(offload, result, compact, output, asText);
  }
  const stored = jsonToStore(output.value, compact, offload.limits.maxResultBytes);
  const shown = await offloadText(offload, result, stored, output, asText);
  // An estimator that finds the longer form within the threshold: the compact one is over it.
  if (shown.output === output && stored !== compact) return offloadText(offload, result, compact, output, asText);
  return shown;
}

/**
 * What the model is sent for one tool result: a text over the threshold becomes the header and
 * preview naming where it is stored; a JSON value is measured as the provider is sent it and, over
 * the threshold, stored whole in a form read_file pages by line (`jsonToStore`); a `content`
 * output has its text offloaded and its other parts kept after it; an error is cut to the
 * threshold (never stored). Anything else, and anything within the threshold, is sent as it came.
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
    case 'json':
      return offloadJson(offload, result, output);
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
      // Cut as the provider is sent it (compact), which keeps the most of it within the threshold.
      const sent = JSON.stringify(output.value) ?? 'null';
      const value = offload.cutToThreshold(sent);
      if (value === sent) return unchanged;
      return { output: withOptionsOf(output, { type: 'error-text', value }) };
    }
    default:
      return unchanged;
  }
}
