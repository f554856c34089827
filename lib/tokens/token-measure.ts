import { quoteForMessage } from '../shared/checks.js';
import { estimateTokens, utf8Bytes } from '../shared/text.js';

/** A synchronous token count of a text: chars/4 by default, estimateTokensByScript, or an exact tokenizer. */
export type EstimateTokens = (text: string) => number;

/**
 * Counts tokens with an estimator and fits texts within a number of them. A text whose UTF-8 bytes
 * are within the limit is within it without asking the estimator: a byte-level BPE never makes more
 * tokens than bytes, so an exact tokenizer costs nothing on small texts. Counts that must be exact
 * sums (the context budget and its ledger) ask it for every text, '' too.
 */
export class TokenMeasure {
  /** Whether the estimator's first fault was warned about: once per measure, so once per offload. */
  #warned = false;

  constructor(
    readonly estimate: EstimateTokens,
    readonly owner: string,
  ) {}

  /**
   * The estimator's count, checked. A fault of the estimator (it throws, or returns anything but a
   * finite number ≥ 0) never fails a run (S3): that text counts at four characters a token, and
   * the first fault is warned about, naming it.
   */
  tokens(text: string): number {
    let count: unknown;
    try {
      count = this.estimate(text);
      if (typeof count === 'number' && Number.isFinite(count) && count >= 0) return count;
      this.#fault(`returned ${quoteForMessage(count)}`, text);
    } catch (error) {
      this.#fault(`threw ${error instanceof Error ? `${error.name}: ${error.message}` : quoteForMessage(error)}`, text);
    }
    return estimateTokens(text);
  }

  #fault(what: string, text: string): void {
    if (this.#warned) return;
    this.#warned = true;
    console.warn(
      `tool-output-offload: ${this.owner}: estimateTokens ${what} for a text of ${text.length} characters ` +
        '(a count must be a finite number ≥ 0); such texts are counted at four characters a token',
    );
  }

  /** Whether `text` is within `maxTokens`; the estimator runs only when its UTF-8 bytes are over it. */
  within(text: string, maxTokens: number): boolean {
    return this.tokensOver(text, maxTokens) === undefined;
  }

  /**
   * The tokens of `text` when it is over `maxTokens`, else undefined: what `within` decides, with
   * the count it made, so a caller that needs both runs the estimator once.
   */
  tokensOver(text: string, maxTokens: number): number | undefined {
    // UTF-8 takes at least one byte per UTF-16 unit and at most three.
    if (text.length * 3 <= maxTokens) return undefined;
    if (text.length <= maxTokens && utf8Bytes(text) <= maxTokens) return undefined;
    const tokens = this.tokens(text);
    return tokens <= maxTokens ? undefined : tokens;
  }

  /**
   * `build(chars)` with the largest character budget whose result is within `maxTokens`, starting
   * from four characters a token and shrinking by the estimate's ratio. The builders keep their
   * output within the budget they are given, so the default estimate takes one round.
   */
  fit(maxTokens: number, build: (chars: number) => string): string {
    let chars = maxTokens * 4;
    for (let round = 0; round < 12 && chars > 0; round++) {
      const text = build(chars);
      if (this.within(text, maxTokens)) return text;
      const tokens = this.tokens(text);
      // From what was built, which may be shorter than asked (whole lines): from `chars`, a page
      // whose next line is long would shrink by 3% a round without changing, and end cut mid-note.
      const built = Math.min(chars, text.length);
      chars = Math.min(built - 1, Math.floor((built * maxTokens * 0.97) / tokens));
    }
    return this.prefixWithin(build(Math.max(chars, 0)), maxTokens);
  }

  /** The longest prefix of `text` within `maxTokens` (a binary search over its length; '' at worst). */
  prefixWithin(text: string, maxTokens: number): string {
    if (this.within(text, maxTokens)) return text;
    let low = 0;
    let high = text.length;
    while (low + 1 < high) {
      const mid = (low + high) >>> 1;
      if (this.within(text.slice(0, mid), maxTokens)) low = mid;
      else high = mid;
    }
    // Never end on the high half of a surrogate pair.
    const code = text.charCodeAt(low - 1);
    return text.slice(0, code >= 0xd800 && code <= 0xdbff ? low - 1 : low);
  }
}

/** The default: four characters a token (estimateTokens). */
export const charsPerTokenMeasure = new TokenMeasure(estimateTokens, 'estimateTokens');

/** The measure of an `estimateTokens` option: chars/4 when absent, else the function (checked). */
export function measureOf(owner: string, estimate: unknown): TokenMeasure {
  if (estimate === undefined) return charsPerTokenMeasure;
  if (typeof estimate !== 'function') {
    throw new TypeError(`${owner}: estimateTokens must be a function (text) => number, got ${typeof estimate}`);
  }
  return new TokenMeasure(estimate as EstimateTokens, owner);
}
