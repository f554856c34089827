import type { JSONValue, Tool } from 'ai';
import type { ContentPart, ToolOutputOffload } from '../../lib/index.js';

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
 * Offloads one text (or content parts) the model would be sent; `keep` gives back the output to
 * send when it is within the threshold (as the SDK would send it), `replace` the output carrying
 * the new text and the parts the offload passed on (those that carry no text, O5, O15).
 */
async function offloadText(
  offload: ToolOutputOffload,
  result: ResultToShow,
  content: string | ContentPart[],
  keep: ModelOutput,
  replace: (text: string, passedOn: readonly ContentPart[]) => ModelOutput,
): Promise<ShownOutput> {
  const shown = await offload.offloadResult({
    threadId: result.threadId,
    callId: result.toolCallId,
    toolName: result.toolName,
    content,
  });
  const output = shown.kind === 'kept' ? keep : replace(shown.text, shown.content.slice(1));
  if (shown.kind === 'stored' && shown.stored) return { output, storedAt: shown.path };
  if (shown.kind === 'failed') return { output, failed: shown.why };
  return { output };
}

/** Keeps the output's providerOptions, if it had any, on what replaces it. */
export function withOptionsOf(output: ModelOutput, replacement: ModelOutput): ModelOutput {
  return 'providerOptions' in output && output.providerOptions !== undefined
    ? ({ ...replacement, providerOptions: output.providerOptions } as ModelOutput)
    : replacement;
}

/**
 * A `json` output: measured as the provider is sent it (`JSON.stringify(value)`, what every AI SDK
 * provider sends for a json tool result) and, within the threshold, sent unchanged; over it,
 * offloaded as that text, which the offload stores laid out one record a line (O14), and replaced
 * by the header and preview as a text.
 */
async function offloadJson(
  offload: ToolOutputOffload,
  result: ResultToShow,
  output: Extract<ModelOutput, { type: 'json' }>,
): Promise<ShownOutput> {
  const compact = JSON.stringify(output.value) ?? 'null';
  return offloadText(offload, result, compact, output, (text) => withOptionsOf(output, { type: 'text', value: text }));
}

/**
 * A `content` part that carries text in a file (O15), as the offload reads it: a `text/*` file of
 * inline text, or of base64 data. Undefined for every other part (images, binary files, URLs).
 */
function documentPart(part: ContentParts[number]): ContentPart | undefined {
  if (part.type === 'file-data') {
    return /^text\//i.test(part.mediaType) ? { type: 'file', mimeType: part.mediaType, data: part.data } : undefined;
  }
  if (part.type !== 'file' || !/^text\//i.test(part.mediaType)) return undefined;
  if (part.data.type === 'text') return { type: 'text', text: part.data.text };
  if (part.data.type === 'data' && typeof part.data.data === 'string') {
    return { type: 'file', mimeType: part.mediaType, data: part.data.data };
  }
  return undefined;
}

/**
 * A `content` output: its text parts and text files offloaded together (O15), the parts that carry
 * no text kept after the replacing text, in order.
 */
function offloadContent(
  offload: ToolOutputOffload,
  result: ResultToShow,
  output: Extract<ModelOutput, { type: 'content' }>,
): Promise<ShownOutput> | ShownOutput {
  const partOf = new Map<ContentParts[number], ContentPart>();
  for (const part of output.value) {
    const read = part.type === 'text' ? ({ type: 'text', text: part.text } as const) : documentPart(part);
    if (read !== undefined) partOf.set(part, read);
  }
  if (partOf.size === 0) return { output };
  return offloadText(offload, result, [...partOf.values()], output, (text, passedOn) => {
    const kept = new Set(passedOn);
    const rest = output.value.filter((part) => {
      const read = partOf.get(part);
      return read === undefined || kept.has(read);
    });
    return withOptionsOf(output, { type: 'content', value: [{ type: 'text', text }, ...rest] });
  });
}

/**
 * What the model is sent for one tool result: a text over the threshold becomes the header and
 * preview naming where it is stored; a JSON value is measured as the provider is sent it and, over
 * the threshold, stored laid out one record a line (O14); a `content` output has its text (text
 * parts and text files, O15) offloaded and its other parts kept after it; an error over the
 * threshold is stored too and stays an error (`error-text`, O16). Anything else, and anything
 * within the threshold, is sent as it came.
 */
export async function offloadModelOutput(
  offload: ToolOutputOffload,
  result: ResultToShow,
  output: ModelOutput,
): Promise<ShownOutput> {
  const asError = (text: string) => withOptionsOf(output, { type: 'error-text', value: text });
  switch (output.type) {
    case 'text':
      return offloadText(offload, result, output.value, output, (text) =>
        withOptionsOf(output, { type: 'text', value: text }),
      );
    case 'json':
      return offloadJson(offload, result, output);
    case 'content':
      return offloadContent(offload, result, output);
    case 'error-text':
      return offloadText(offload, result, output.value, output, asError);
    case 'error-json':
      // As the provider is sent it (compact): stored laid out like any JSON.
      return offloadText(offload, result, JSON.stringify(output.value) ?? 'null', output, asError);
    default:
      return { output };
  }
}
