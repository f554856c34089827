import { errorMessage } from '../shared/errors.js';
import { idempotencyKeyProblem } from '../shared/ids.js';
import { countLines, cutToBytes, utf8Bytes } from '../shared/text.js';
import type { AppliedChange, SeenDetails, StoreFailure, WritableOffloadStore } from '../store/offload-store.js';
import type { TokenMeasure } from '../tokens/token-measure.js';
import { layoutJson } from './json-layout.js';
import type { OffloadLimits } from './options.js';
import { type OffloadPreview, offloadReplacement } from './preview.js';
import { shownTextDigest } from './result-identity.js';
import { resultPath } from './result-path.js';

// The one way a text is stored for a thread. Every writer calls `storeResult`: the built-in agent
// stages now and commits when its update is applied (`commitStaged`), an adapter's `offloadResult`
// and the context budget (a result it clears, C3) commit at once. What it stored comes back as
// data — the path, the sizes, the exact text the model is shown and its header-only form — and the
// store keeps the same facts with the entry, so nothing is ever read back from the model's text.
// Its failures are recorded one way (`reportStoreFailure`, S3).

/** The limits and measure one result is held to (its tool's threshold). */
export type AppliedLimits = OffloadLimits & {
  measure: TokenMeasure;
  /** The read tools the model has (read_file, grep…); the header names only these. Default: all. */
  readTools?: readonly string[];
};

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

/** One text to store, as `storeResult` takes it. */
interface TextToStore {
  threadId: string;
  /** The stored result's file name under the mount: the call's idempotency key (O2), `offloadResult`'s key (A1) or the budget's (C3). */
  key: string;
  /** The framework's id of the call whose result this is: what a later request names the result by (C4). */
  toolCallId?: string;
  toolName: string;
  text: string;
  /** The text's estimated tokens when the caller counted them already (an exact tokenizer may be slow). */
  tokens?: number;
  /** Tags what is staged, so the turn's end (or a failed commit) deletes what was never made live. */
  turnId: string;
  /**
   * The text the model is shown instead, when the caller made it (the budget's pointer, stored
   * whole); otherwise the offload's preview is made for it.
   */
  shown?: string;
}

/** What `storeResult` stored: the facts a later request needs about the result it replaced, as data. */
export interface StoredText {
  key: string;
  path: string;
  /** UTF-8 bytes stored (after the cut to maxResultBytes), and of the tool's text. */
  bytes: number;
  originalBytes: number;
  /** The tool's text's lines and estimated tokens. */
  lines: number;
  originalTokens: number;
  /** Whether the stored copy was cut to maxResultBytes. */
  truncated: boolean;
  /** Exactly the text the model is shown instead of the result. */
  preview: string;
  /** The preview cut to its header, reading from line 0 (C6); absent for a text shown as the caller made it. */
  headerOnly?: string;
  /** What makes it live, for a caller that commits later. */
  commit: OffloadCommit;
}

/** The outcome of `storeResult`: what it stored (with the commit's change when it committed), or the failure it recorded (S3). */
type StoreOutcome =
  | { stored: StoredText; applied?: AppliedChange; failure?: undefined; why?: undefined }
  | { stored?: undefined; failure: StoreFailure; why: string };

/**
 * When `storeResult` commits: later (the caller applies `commit`), or now, as one call; `optional`:
 * a copy stored only if the thread fits it without evicting anything (the budget's, C3).
 */
type CommitWhen = 'later' | { now: { turnId?: string; seen?: SeenDetails; optional?: true } };

/** A commit's age limit (`expireBefore`) for `maxAgeMs` as of now; nothing when there is no limit. */
export function expiryOf(maxAgeMs: number | undefined): { expireBefore?: number } {
  return maxAgeMs === undefined ? {} : { expireBefore: Date.now() - maxAgeMs };
}

/** A tag for what one call stages, so a failed commit deletes its own staged copy and nothing else. */
export function stagingTag(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(9));
  return `offload-${Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}

/** A text's stored copy (cut to `maxResultBytes`) and the preview the model sees for it (O1), made as `storeResult` makes them. */
export function replacementFor(
  text: string,
  toolName: string,
  key: string,
  limits: Pick<AppliedLimits, 'thresholdTokens' | 'previewLines' | 'maxResultBytes' | 'measure' | 'readTools'> &
    Partial<Pick<AppliedLimits, 'previewTailLines'>>,
  tokens?: number,
): {
  path: string;
  stored: string;
  storedBytes: number;
  originalBytes: number;
  originalTokens: number;
  truncated: boolean;
  preview: OffloadPreview;
} {
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

function describeError(error: unknown): string {
  if (typeof error === 'string') return error;
  if (error instanceof Error && error.name && error.name !== 'Error') return `${error.name}: ${error.message}`;
  return errorMessage(error);
}

/**
 * Records a result that could not be stored (S3) and returns it with why, in words. A store that
 * cannot even record it is only logged: it is failing already, and the run goes on.
 */
export async function reportStoreFailure(
  store: WritableOffloadStore,
  result: { threadId: string; key: string; toolName: string; bytes: number },
  error: unknown,
  during?: string,
): Promise<{ failure: StoreFailure; why: string }> {
  const why = `${describeError(error)}${during === undefined ? '' : ` (${during})`}`;
  const failure: StoreFailure = {
    threadId: result.threadId,
    key: String(result.key).slice(0, 200),
    path: idempotencyKeyProblem(result.key) ? '' : resultPath(result.key),
    toolName: result.toolName,
    bytes: result.bytes,
    at: Date.now(),
    error: why,
  };
  try {
    await store.reportFailure(failure);
  } catch (reportError) {
    console.warn('ToolOutputOffload: could not record a storage failure', reportError);
  }
  return { failure, why };
}

/**
 * Stores one text for a thread: cut to `maxResultBytes`, its preview made (unless the caller shows
 * its own text), staged where no reader sees it and, with `when: { now }`, committed within the
 * thread's bound (its oldest evicted, O3). Never throws for a store failure (S3): the failure is
 * recorded and returned, and a commit that failed deletes its own staged copy.
 */
export async function storeResult(
  store: WritableOffloadStore,
  limits: AppliedLimits,
  input: TextToStore,
  when: CommitWhen,
): Promise<StoreOutcome> {
  const { threadId, key, toolName, text } = input;
  const keyProblem = idempotencyKeyProblem(key);
  if (keyProblem) return reportStoreFailure(store, { threadId, key, toolName, bytes: utf8Bytes(text) }, keyProblem);
  const made =
    input.shown === undefined
      ? replacementFor(text, toolName, key, limits, input.tokens)
      : {
          path: resultPath(key),
          stored: text,
          storedBytes: utf8Bytes(text),
          originalBytes: utf8Bytes(text),
          originalTokens: Math.ceil(input.tokens ?? limits.measure.tokens(text)),
          truncated: false,
          preview: { text: input.shown, headerOnly: undefined, lines: countLines(text) },
        };
  const { path, storedBytes, preview } = made;
  const stored: StoredText = {
    key,
    path,
    bytes: storedBytes,
    originalBytes: made.originalBytes,
    lines: preview.lines,
    originalTokens: made.originalTokens,
    truncated: made.truncated,
    preview: preview.text,
    ...(preview.headerOnly === undefined ? {} : { headerOnly: preview.headerOnly }),
    commit: {
      type: 'commit',
      threadId,
      key,
      turnId: input.turnId,
      maxTotalBytes: limits.maxTotalBytes,
      ...expiryOf(limits.maxAgeMs),
      toolName,
      bytes: storedBytes,
      truncated: made.truncated,
    },
  };
  const failed = { threadId, key, toolName, bytes: utf8Bytes(text) };
  try {
    // Kept for the eviction record: the preview, known by its tool call once its entry is gone (C4).
    const previewDigest = input.toolCallId === undefined ? undefined : await shownTextDigest(preview.text);
    await store.stage({
      threadId,
      key,
      path,
      toolName,
      bytes: storedBytes,
      originalBytes: made.originalBytes,
      estimatedTokens: made.originalTokens,
      truncated: made.truncated,
      createdAt: Date.now(),
      preview: preview.text,
      ...(stored.headerOnly === undefined ? {} : { headerOnly: stored.headerOnly }),
      ...(input.toolCallId === undefined ? {} : { toolCallId: input.toolCallId, previewDigest }),
      text: made.stored,
      turnId: input.turnId,
    });
  } catch (error) {
    return reportStoreFailure(store, failed, error);
  }
  if (when === 'later') return { stored };
  const { turnId, seen, optional } = when.now;
  try {
    const applied = await store.apply({
      type: 'commit',
      threadId,
      key,
      maxTotalBytes: limits.maxTotalBytes,
      ...(turnId === undefined ? {} : { turnId }),
      ...(seen === undefined ? {} : { seen }),
      ...(optional ? { evict: false } : {}),
      ...expiryOf(limits.maxAgeMs),
    });
    return { stored, applied };
  } catch (error) {
    // S3: nothing names the path, so the staged copy goes (a full quota leaves it otherwise); a
    // turn's staging goes at the turn's end. A store that throws here is failing already.
    if (turnId === undefined) {
      try {
        await store.settle(threadId, [input.turnId]);
      } catch {}
    }
    return reportStoreFailure(store, failed, error);
  }
}
