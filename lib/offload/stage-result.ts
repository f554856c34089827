import { type ContentPart, carriesText } from '../shared/content.js';
import type { StoreFailure, WritableOffloadStore } from '../store/offload-store.js';
import { cutWithNote } from './cut.js';
import { readsFromMount } from './result-path.js';
import type { ShownTexts } from './shown-texts.js';
import { type AppliedLimits, type OffloadCommit, type StoredText, storeResult } from './store-result.js';
import type { CutReason } from './words.js';

// The offload's one pipeline: decide → cut → store (store-result.ts). Every way in (the built-in agent, the
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

/** A staged result's stage: its outcome and, when it was staged, the commit that makes it live and what was stored; when it failed, the failure recorded. */
export type StagedOutcome = OffloadedResult & {
  commit?: OffloadCommit;
  storedText?: StoredText;
  failure?: StoreFailure;
};

/** One tool result to stage, as `stageResult` takes it. */
interface ResultToStage {
  threadId: string;
  /** Tags what is staged, so the turn's end (or a failed commit) deletes what was never made live. */
  turnId: string;
  /** The stored result's file name under the mount: the call's idempotency key (O2) or `offloadResult`'s key (A1). */
  key: string;
  /** The framework's id of the call (what a later request names the result by). */
  toolCallId?: string;
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

/** A result cut with a note (O9, O11, S3), remembered with its original's tokens for the context ledger. */
export function cutAndRemember(
  text: string,
  limits: Pick<AppliedLimits, 'thresholdTokens' | 'measure'>,
  reason: CutReason,
  shown: ShownTexts,
): string {
  const cut = cutWithNote(text, limits.thresholdTokens, reason, limits.measure);
  if (cut.originalTokens !== undefined) shown.cut(cut.text, cut.originalTokens);
  return cut.text;
}

/** What the model is shown for a result the store failed to take (S3): a cut with a note saying why, naming no path. */
export function failedOutcome(
  result: Pick<ResultToStage, 'content' | 'text'>,
  limits: Pick<AppliedLimits, 'thresholdTokens' | 'measure'>,
  failed: { failure: StoreFailure; why: string },
  shown: ShownTexts,
): StagedOutcome {
  const { why, failure } = failed;
  const text = cutAndRemember(result.text, limits, { kind: 'not-stored', why }, shown);
  return { kind: 'failed', stored: false, why, content: withText(result.content, text), text, failure };
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
  shown: ShownTexts,
): Promise<StagedOutcome> {
  const { content, text } = result;
  const tokens = result.tokens ?? limits.measure.tokensOver(text, limits.thresholdTokens);
  if (tokens === undefined) return { kind: 'kept', stored: false, content: [...content], text };

  if (readsFromMount(result.args)) {
    const cut = cutAndRemember(text, limits, { kind: 'read-from-mount' }, shown);
    return { kind: 'cut', stored: false, why: 'read from a stored result', content: withText(content, cut), text: cut };
  }

  const { threadId, key, toolCallId, toolName, turnId } = result;
  const outcome = await storeResult(
    store,
    limits,
    { threadId, key, ...(toolCallId === undefined ? {} : { toolCallId }), toolName, text, tokens, turnId },
    'later',
  );
  if (outcome.stored === undefined) return failedOutcome(result, limits, outcome, shown);
  const { stored } = outcome;
  if (toolCallId !== undefined) shown.replaced(threadId, toolCallId, stored);
  const replacement = { content: withText(content, stored.preview), text: stored.preview };
  return { kind: 'stored', stored: true, path: stored.path, ...replacement, commit: stored.commit, storedText: stored };
}
