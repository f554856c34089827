import { cutPage, printPage } from '../backends/file-tool-page.js';
import type { FilePage } from '../shared/content.js';
import { cutToChars } from '../shared/text.js';
import { charsPerTokenMeasure, type TokenMeasure } from '../tokens/token-measure.js';
import { type CutReason, cutNote } from './words.js';

/** Whether a text is over the threshold, in estimated tokens (O1). */
function isOverThreshold(text: string, thresholdTokens: number, measure = charsPerTokenMeasure): boolean {
  return !measure.within(text, thresholdTokens);
}

/** A text as `cutWithNote` gives it back: with the original's estimated tokens when it was cut. */
interface CutText {
  text: string;
  /** Absent when the text was within the threshold (unchanged). */
  originalTokens?: number;
}

/**
 * A text cut to within the threshold, followed by a note that says it was cut and why. The whole
 * result is within `thresholdTokens` estimated tokens; a text already within it comes back unchanged.
 */
export function cutWithNote(
  text: string,
  thresholdTokens: number,
  reason: CutReason,
  measure: TokenMeasure = charsPerTokenMeasure,
): CutText {
  const over = measure.tokensOver(text, thresholdTokens);
  if (over === undefined) return { text };
  const tokens = Math.ceil(over);
  const cut = measure.fit(thresholdTokens, (maxChars) => {
    // The note's length depends on how much is shown; measure it with the longest number it can hold.
    const room = maxChars - cutNote(reason, text.length, tokens, text.length, thresholdTokens).length - 1;
    const head = cutToChars(text, Math.max(0, room));
    return `${head}\n${cutNote(reason, text.length, tokens, head.length, thresholdTokens)}`;
  });
  return { text: cut, originalTokens: tokens };
}

/**
 * A file tool's page as the model reads it, within the threshold and never stored (O11): the page
 * as printed when it is within it, else cut by its lines (`cutPage`) to the most that fits.
 * `printed` is the page's printed text, when the caller has it already.
 */
export function capFilePage(
  page: FilePage,
  thresholdTokens: number,
  measure = charsPerTokenMeasure,
  printed = printPage(page),
): string {
  if (!isOverThreshold(printed, thresholdTokens, measure)) return printed;
  return measure.fit(thresholdTokens, (maxChars) => printPage(cutPage(page, maxChars, thresholdTokens)));
}
