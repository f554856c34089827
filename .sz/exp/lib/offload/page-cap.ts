import { cutPage, type FilePage, printPage } from '../backends/file-tool-page.js';
import { charsPerTokenMeasure } from '../tokens/token-measure.js';
import { isOverThreshold } from './cut.js';

/**
 * A file tool's page as the model reads it, within the threshold and never stored (O11): the page
 * as printed when it is within it, else cut by its lines (`cutPage`) to the most that fits.
 */
export function capFilePage(page: FilePage, thresholdTokens: number, measure = charsPerTokenMeasure): string {
  const text = printPage(page);
  if (!isOverThreshold(text, thresholdTokens, measure)) return text;
  return measure.fit(thresholdTokens, (maxChars) => printPage(cutPage(page, maxChars, thresholdTokens)));
}
