import { type ContentPart, carriesText } from '../shared/content.js';
import type { StoreFailure } from '../store/offload-store.js';
import { cutWithNote } from './cut.js';
import type { ShownTexts } from './shown-texts.js';
import type { AppliedLimits } from './store-result.js';
import type { CutReason } from './words.js';

// What a way in gets back for one tool result: an outcome with a kind, so no caller has to guess
// what happened from the text. `offloadResult` (offload-result.ts) makes it in one call, the built-in
// agent in two steps (lib/agent/offload-staging.ts); both store through `storeResult`.

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

/** Replaces all text parts (and `text/*` files, O15) by one text, keeping every other part, in order, after it (O5). */
export function withText(content: readonly ContentPart[], text: string): ContentPart[] {
  return [{ type: 'text', text }, ...content.filter((part) => !carriesText(part))];
}

/** A result cut with a note (O9, O11, S3), remembered with its original's tokens for the context ledger (when `shown` is kept). */
export function cutAndRemember(
  text: string,
  limits: Pick<AppliedLimits, 'thresholdTokens' | 'measure'>,
  reason: CutReason,
  shown: ShownTexts | undefined,
): string {
  const cut = cutWithNote(text, limits.thresholdTokens, reason, limits.measure);
  if (cut.originalTokens !== undefined) shown?.cut(cut.text, cut.originalTokens);
  return cut.text;
}

/** What the model is shown for a result the store failed to take (S3): a cut with a note saying why, naming no path. */
export function failedOutcome(
  result: { content: readonly ContentPart[]; text: string },
  limits: Pick<AppliedLimits, 'thresholdTokens' | 'measure'>,
  failed: { failure: StoreFailure; why: string },
  shown: ShownTexts | undefined,
): OffloadedResult & { failure: StoreFailure } {
  const { why, failure } = failed;
  const text = cutAndRemember(result.text, limits, { kind: 'not-stored', why }, shown);
  return { kind: 'failed', stored: false, why, content: withText(result.content, text), text, failure };
}
