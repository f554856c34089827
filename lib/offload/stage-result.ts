import { type ContentPart, carriesText } from '../shared/content.js';
import { errorMessage } from '../shared/errors.js';
import { idempotencyKeyProblem } from '../shared/ids.js';
import { cutToBytes, utf8Bytes } from '../shared/text.js';
import type { StoreFailure, WritableOffloadStore } from '../store/offload-store.js';
import type { TokenMeasure } from '../tokens/token-measure.js';
import { cutWithNote } from './cut.js';
import { layoutJson } from './json-layout.js';
import type { OffloadLimits } from './options.js';
import { offloadReplacement } from './preview.js';
import { readsFromMount, resultPath } from './result-path.js';

// The offload's one pipeline: decide → cut → preview → stage. Every way in (the built-in agent, the
// AI SDK and LangChain adapters) goes through `stageResult`; what it gives back is an outcome with a
// kind, so no caller has to guess what happened from the text.

/** What the model is shown for one tool result, and why. */
export type OffloadedResult =
  /** Within the threshold: sent as it is. */
  | ({ kind: 'kept'; stored: false; path?: undefined; why?: undefined } & Shown)
  /**
   * Stored under `path`; the model sees a header naming it and the first lines. `stored` says
   * whether this call stored it (false when the same result was offered again, A1).
   */
  | ({ kind: 'stored'; stored: boolean; path: string; why?: undefined } & Shown)
  /** Over the threshold and not stored by design (it was read from a stored result, O11): cut with a note. */
  | ({ kind: 'cut'; stored: false; path?: undefined; why: string } & Shown)
  /** Over the threshold, but the store failed (S3): cut with a note saying so; `why` is the store's error. */
  | ({ kind: 'failed'; stored: false; path?: undefined; why: string } & Shown);

interface Shown {
  /** The text (one text part) followed by the result's non-text parts, in order (O5). */
  content: ContentPart[];
  /** The model-facing text: the result's own, its replacement, or its cut with a note. */
  text: string;
}

/** A staged result's commit: what the runtime applies (one store transaction) to make it live. */
export interface OffloadCommit {
  type: 'commit';
  threadId: string;
  key: string;
  turnId: string;
  maxTotalBytes: number;
  /** The age limit (maxAgeMs) as of the staging: entries created before it are evicted first. */
  expireBefore?: number;
  /** For the failure record, should the commit fail (S3), and the run's events. */
  toolName: string;
  bytes: number;
  truncated: boolean;
}

/** A result's stage: its outcome and, when it was staged, the commit that makes it live; when it failed, the failure recorded. */
export type StagedOutcome = OffloadedResult & { commit?: OffloadCommit; failure?: StoreFailure };

/** The limits and measure one result is held to (its tool's threshold). */
export type AppliedLimits = OffloadLimits & {
  measure: TokenMeasure;
  /** The read tools the model has (read_file, grep…); the header names only these. Default: all. */
  readTools?: readonly string[];
};

/** One tool result to stage, as `stageResult` takes it. */
interface ResultToStage {
  threadId: string;
  /** Tags what is staged, so the turn's end (or a failed commit) deletes what was never made live. */
  turnId: string;
  /** The stored result's file name under the mount: the call's idempotency key (O2) or `offloadResult`'s key (A1). */
  key: string;
  toolName: string;
  /** The result's content, checked, and its text parts joined. */
  content: readonly ContentPart[];
  text: string;
  /** The text's tokens when the caller counted them already (an exact tokenizer may be slow). */
  tokens?: number;
  /** The call's arguments: a call that reads from the mount is cut, never stored again (O11). */
  args?: unknown;
}

/** Replaces all text parts (and `text/*` files, O15) by one text, keeping every other part, in order, after it (O5). */
export function withText(content: readonly ContentPart[], text: string): ContentPart[] {
  return [{ type: 'text', text }, ...content.filter((part) => !carriesText(part))];
}

/** A commit's age limit (`expireBefore`) for `maxAgeMs` as of now; nothing when there is no limit. */
export function expiryOf(maxAgeMs: number | undefined): { expireBefore?: number } {
  return maxAgeMs === undefined ? {} : { expireBefore: Date.now() - maxAgeMs };
}

/** A text's stored copy (cut to `maxResultBytes`) and the replacement the model sees for it (O1). */
export function replacementFor(
  text: string,
  toolName: string,
  key: string,
  limits: Pick<AppliedLimits, 'thresholdTokens' | 'previewLines' | 'maxResultBytes' | 'measure' | 'readTools'> &
    Partial<Pick<AppliedLimits, 'previewTailLines'>>,
  tokens?: number,
) {
  const originalBytes = utf8Bytes(text);
  // JSON is stored laid out to be read (O14); any other text as it is.
  const json = layoutJson(text, limits.maxResultBytes);
  const laid = json?.text ?? text;
  const laidBytes = json === undefined ? originalBytes : utf8Bytes(laid);
  // A text within maxResultBytes is stored whole: no need to scan it for where to cut.
  const stored = laidBytes <= limits.maxResultBytes ? laid : cutToBytes(laid, limits.maxResultBytes);
  const storedBytes = stored.length === laid.length ? laidBytes : utf8Bytes(stored);
  const path = resultPath(key);
  const originalTokens = Math.ceil(tokens ?? limits.measure.tokens(text));
  const truncated = stored.length < laid.length;
  const shown = { path, toolName, original: text, originalBytes, stored, storedBytes, originalTokens, truncated };
  const preview = offloadReplacement(json ? { ...shown, json } : shown, limits);
  return { path, stored, storedBytes, originalBytes, originalTokens, truncated, preview };
}

/**
 * The outcome of a result over the threshold that could not be stored (S3): a cut with a note,
 * naming no path. The failure is recorded in the store (a store that cannot even record it is
 * only logged: it is failing already, and the run goes on).
 */
export async function failedOutcome(
  store: WritableOffloadStore,
  result: Pick<ResultToStage, 'threadId' | 'key' | 'toolName' | 'content' | 'text'>,
  limits: Pick<AppliedLimits, 'thresholdTokens' | 'measure'>,
  error: unknown,
): Promise<StagedOutcome> {
  const why = typeof error === 'string' ? error : describeError(error);
  const failure: StoreFailure = {
    threadId: result.threadId,
    key: String(result.key).slice(0, 200),
    path: idempotencyKeyProblem(result.key) ? '' : resultPath(result.key),
    toolName: result.toolName,
    bytes: utf8Bytes(result.text),
    at: Date.now(),
    error: why,
  };
  await recordFailure(store, failure);
  const text = cutWithNote(result.text, limits.thresholdTokens, { kind: 'not-stored', why }, limits.measure);
  return { kind: 'failed', stored: false, why, content: withText(result.content, text), text, failure };
}

/** Records a result that could not be stored; a report that fails too is only logged (the store is failing already). */
export async function recordFailure(store: WritableOffloadStore, failure: StoreFailure): Promise<void> {
  try {
    await store.reportFailure(failure);
  } catch (error) {
    console.warn('ToolOutputOffload: could not record a storage failure', error);
  }
}

function describeError(error: unknown): string {
  if (error instanceof Error && error.name && error.name !== 'Error') return `${error.name}: ${error.message}`;
  return errorMessage(error);
}

/**
 * Decides what the model is shown for one tool result and, when it is over the threshold, stages
 * its text in the store (where no reader sees it until the commit is applied). Never throws for a
 * storage failure (S3): the outcome is 'failed', cut with a note, and no path is named for a text
 * that was not written.
 */
export async function stageResult(
  store: WritableOffloadStore,
  limits: AppliedLimits,
  result: ResultToStage,
): Promise<StagedOutcome> {
  const { content, text } = result;
  const tokens = result.tokens ?? limits.measure.tokensOver(text, limits.thresholdTokens);
  if (tokens === undefined) return { kind: 'kept', stored: false, content: [...content], text };

  if (readsFromMount(result.args)) {
    const cut = cutWithNote(text, limits.thresholdTokens, { kind: 'read-from-mount' }, limits.measure);
    return { kind: 'cut', stored: false, why: 'read from a stored result', content: withText(content, cut), text: cut };
  }

  const keyProblem = idempotencyKeyProblem(result.key);
  if (keyProblem) return failedOutcome(store, result, limits, keyProblem);

  const replacement = replacementFor(text, result.toolName, result.key, limits, tokens);
  const { path, stored, storedBytes, preview } = replacement;
  try {
    await store.stage({
      threadId: result.threadId,
      key: result.key,
      path,
      toolName: result.toolName,
      bytes: storedBytes,
      originalBytes: replacement.originalBytes,
      estimatedTokens: replacement.originalTokens,
      truncated: replacement.truncated,
      createdAt: Date.now(),
      preview,
      text: stored,
      turnId: result.turnId,
    });
  } catch (error) {
    return failedOutcome(store, result, limits, error);
  }
  const commit: OffloadCommit = {
    type: 'commit',
    threadId: result.threadId,
    key: result.key,
    turnId: result.turnId,
    maxTotalBytes: limits.maxTotalBytes,
    ...expiryOf(limits.maxAgeMs),
    toolName: result.toolName,
    bytes: storedBytes,
    truncated: replacement.truncated,
  };
  return { kind: 'stored', stored: true, path, content: withText(content, preview), text: preview, commit };
}
