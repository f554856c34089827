import { idempotencyKeyProblem } from '../runtime/ids.js';
import type { ContentPart } from '../runtime/messages.js';
import { isTextPart, joinText, toContent } from '../runtime/messages.js';
import { cutToBytes, utf8Bytes } from '../shared/text.js';
import type { StoreChange, StoreFailure, WritableOffloadStore } from '../store/offload-store.js';
import { charsPerTokenMeasure, type TokenMeasure } from '../tokens/token-measure.js';
import { cutWithNote } from './cut.js';
import type { OffloadLimits } from './options.js';
import { offloadReplacement } from './preview.js';
import { readsFromMount, resultPath } from './result-path.js';

/**
 * The offload's core as plain functions over an OffloadStore (decide, cut, preview, store), so an
 * adapter for another agent framework can reuse it without this package's agent loop.
 */

/** One successful tool call's result, as the offload sees it. */
interface ToolResultToOffload {
  threadId: string;
  turnId: string;
  /**
   * The call's idempotency key: the stored result's identity and file name, never the provider's
   * call id, so a rerun of the call replaces its own entry (O2).
   */
  key: string;
  toolName: string;
  /** The call's arguments; a call that reads from the mount is never offloaded (O11). */
  args: unknown;
  content: readonly ContentPart[];
}

export type OffloadDecision =
  /** Within the threshold: show the result as it is. */
  | { kind: 'kept'; content: ContentPart[] }
  /** Over the threshold but not stored: cut to within it, with a note saying why. */
  | { kind: 'cut'; content: ContentPart[]; failure?: StoreFailure }
  /** Stored (staged): the model sees the preview; `change` makes it live when applied. */
  | {
      kind: 'stored';
      content: ContentPart[];
      change: StoreChange;
      preview: string;
      path: string;
      /** UTF-8 bytes stored; fewer than the result's when it was over maxResultBytes (`truncated`). */
      bytes: number;
      truncated: boolean;
    };

function describeError(error: unknown): string {
  if (error instanceof Error)
    return error.name && error.name !== 'Error' ? `${error.name}: ${error.message}` : error.message;
  return String(error);
}

/** Replaces all text parts by one text, keeping every non-text part, in order, after it (O5). */
export function withText(content: readonly ContentPart[], text: string): ContentPart[] {
  return [{ type: 'text', text }, ...content.filter((part) => !isTextPart(part))];
}

/**
 * A text's stored copy (cut to `maxResultBytes`) and the replacement the model sees for it: a header
 * naming its path and saying how to read the rest, then its first lines (O1). Made the same way
 * each time.
 */
interface Replacement {
  path: string;
  /** The text as stored: cut to maxResultBytes. */
  stored: string;
  storedBytes: number;
  originalBytes: number;
  /** The text's estimated tokens, by the offload's measure. */
  originalTokens: number;
  truncated: boolean;
  /** The header and first lines: the text the model is shown instead. */
  preview: string;
}

/** The stored copy and the preview of a text over the threshold, to be stored under `key`. */
/** The limits as the offload applies them to one result: its tool's threshold, and how tokens are counted. */
export type AppliedLimits = OffloadLimits & { measure?: TokenMeasure; readTools?: readonly string[] };

/** A commit's age limit (`expireBefore`) for `maxAgeMs` as of now; nothing when there is no limit. */
export function expiryOf(maxAgeMs: number | undefined): { expireBefore?: number } {
  return maxAgeMs === undefined ? {} : { expireBefore: Date.now() - maxAgeMs };
}

export function replacementFor(
  text: string,
  toolName: string,
  key: string,
  limits: Pick<AppliedLimits, 'thresholdTokens' | 'previewLines' | 'maxResultBytes' | 'measure' | 'readTools'> &
    Partial<Pick<AppliedLimits, 'previewTailLines'>>,
  /** The text's tokens by `limits.measure`, when already counted (an exact tokenizer may take long). */
  tokens?: number,
): Replacement {
  const originalBytes = utf8Bytes(text);
  // A text within maxResultBytes is stored whole: no need to scan it for where to cut.
  const stored = originalBytes <= limits.maxResultBytes ? text : cutToBytes(text, limits.maxResultBytes);
  const storedBytes = stored.length === text.length ? originalBytes : utf8Bytes(stored);
  const path = resultPath(key);
  const originalTokens = Math.ceil(tokens ?? (limits.measure ?? charsPerTokenMeasure).tokens(text));
  const preview = offloadReplacement(
    { path, toolName, original: text, originalBytes, stored, storedBytes, originalTokens },
    limits,
  );
  return { path, stored, storedBytes, originalBytes, originalTokens, truncated: stored.length < text.length, preview };
}

/** What is shown when a result over the threshold could not be stored (S3): a cut with a note, naming no path. */
export function notStoredDecision(
  result: Pick<ToolResultToOffload, 'threadId' | 'key' | 'toolName'>,
  content: readonly ContentPart[],
  text: string,
  limits: Pick<AppliedLimits, 'thresholdTokens' | 'measure'>,
  error: unknown,
): Extract<OffloadDecision, { kind: 'cut' }> {
  const why = describeError(error);
  const failure: StoreFailure = {
    threadId: result.threadId,
    key: String(result.key).slice(0, 200),
    path: idempotencyKeyProblem(result.key) ? '' : resultPath(result.key),
    toolName: result.toolName,
    bytes: utf8Bytes(text),
    at: Date.now(),
    error: why,
  };
  const cut = cutWithNote(text, limits.thresholdTokens, { kind: 'not-stored', why }, limits.measure);
  return { kind: 'cut', content: withText(content, cut), failure };
}

/**
 * Decides what the model is shown for one tool result and, when it is over the threshold, stages
 * its text in the store. Never throws for a storage failure (S3): the result is cut instead, and no
 * path is named for a text that was not written. Throws a TypeError for malformed content.
 */
export async function offloadToolResult(
  store: WritableOffloadStore,
  limits: AppliedLimits,
  result: ToolResultToOffload,
  /** The text's tokens, when the caller found it over the threshold already. */
  overThreshold?: number,
): Promise<OffloadDecision> {
  const content = toContent(result.content, `result of tool "${result.toolName}"`);
  const text = joinText(content);
  // Counted once, for the threshold and the header.
  const tokens = overThreshold ?? (limits.measure ?? charsPerTokenMeasure).tokensOver(text, limits.thresholdTokens);
  if (tokens === undefined) return { kind: 'kept', content };

  if (readsFromMount(result.args)) {
    return {
      kind: 'cut',
      content: withText(
        content,
        cutWithNote(text, limits.thresholdTokens, { kind: 'read-from-mount' }, limits.measure),
      ),
    };
  }

  const keyProblem = idempotencyKeyProblem(result.key);
  if (keyProblem) return notStoredDecision(result, content, text, limits, keyProblem);

  const { path, stored, storedBytes, originalBytes, originalTokens, truncated, preview } = replacementFor(
    text,
    result.toolName,
    result.key,
    limits,
    tokens,
  );
  try {
    await store.stage({
      threadId: result.threadId,
      key: result.key,
      path,
      toolName: result.toolName,
      bytes: storedBytes,
      originalBytes,
      estimatedTokens: originalTokens,
      truncated,
      createdAt: Date.now(),
      preview,
      text: stored,
      turnId: result.turnId,
    });
  } catch (error) {
    return notStoredDecision(result, content, text, limits, error);
  }
  const change: StoreChange = {
    type: 'commit',
    threadId: result.threadId,
    key: result.key,
    turnId: result.turnId,
    maxTotalBytes: limits.maxTotalBytes,
    ...expiryOf(limits.maxAgeMs),
  };
  return { kind: 'stored', content: withText(content, preview), change, preview, path, bytes: storedBytes, truncated };
}
