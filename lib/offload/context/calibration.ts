import type { RequestRecord, RequestResult } from '../../store/offload-store.js';
import type { ContextEvent, ResolvedContextBudget } from './request.js';

// C9: the budget in the provider's tokens. Pure functions of a thread's newest ledger records (its
// estimate and what the provider reported for the same requests), so a reload or another tab
// calibrates alike: the factor, the budget it makes in estimated tokens, and when to say so.

/** The thread's newest ledger records the factor is taken from: recent enough to follow a change of model. */
export const calibrationRecords = 12;

/**
 * A request under this many estimated tokens tells too little: a provider adds a few tokens per
 * message and some for the tool specs' framing, which at 500 tokens moves the ratio by a few
 * percent at most (well under the 10% a change must reach to be told), and far more below.
 */
export const minCalibrationTokens = 500;

/** Ratios needed before calibrating: with three, one odd reply is never the median. */
const minRatios = 3;

/**
 * The most the budget shrinks: no tokenizer counts the same text at ten times another's, so a
 * ratio past it is a count of something else (a provider's running total, say).
 */
const maxFactor = 10;

/** A change of the effective budget past this share is told (`context-calibrated`). */
const toldChange = 0.1;

/**
 * How many of the provider's tokens one estimated token is, for the thread: the median of
 * reported input tokens over the estimate, across its newest requests of at least
 * `minCalibrationTokens` with reported usage. At least 1: a provider that reports fewer tokens
 * than estimated (some leave the cache reads out of the input count) never enlarges the budget
 * past `maxRequestTokens` estimated. Undefined with fewer than three such requests: the estimate
 * alone holds.
 */
export function calibrationFactor(records: readonly RequestRecord[]): number | undefined {
  const newest = [...records].sort((a, b) => a.step - b.step).slice(-calibrationRecords);
  const ratios = newest.flatMap((record) =>
    record.reported !== undefined && record.tokens >= minCalibrationTokens
      ? [record.reported.inputTokens / record.tokens]
      : [],
  );
  if (ratios.length < minRatios) return undefined;
  ratios.sort((a, b) => a - b);
  const mid = ratios.length >> 1;
  const median = ratios.length % 2 === 1 ? ratios[mid]! : (ratios[mid - 1]! + ratios[mid]!) / 2;
  return Math.min(maxFactor, Math.max(1, Math.round(median * 1000) / 1000));
}

/** The thread's newest ledger record (the highest step). */
function newestRecord(records: readonly RequestRecord[]): RequestRecord | undefined {
  let newest: RequestRecord | undefined;
  for (const record of records) if (newest === undefined || record.step > newest.step) newest = record;
  return newest;
}

/** The factor the thread's newest request was fitted with (1: none, the estimate alone). */
export function previousFactor(records: readonly RequestRecord[]): number {
  return newestRecord(records)?.calibration ?? 1;
}

/** A request as C9 compares it with the one before: its fixed parts and each result as shown, in estimated tokens. */
export interface MeasuredRequest {
  system: number;
  messages: number;
  results: ReadonlyArray<Pick<RequestResult, 'toolCallId' | 'shownAs' | 'tokens'>>;
}

/** The thread's newest request as the provider counted it: what it held, its estimate and the input tokens reported. */
export interface ReportedRequest extends MeasuredRequest {
  tokens: number;
  inputTokens: number;
  /**
   * The most and the least the provider counted for each estimated token by which one of the
   * thread's requests grew from the one before; undefined when no pair tells.
   */
  growth?: { most: number; least: number };
}

/**
 * The provider's tokens per estimated token of what requests added to the one before them, across
 * the newest records: consecutive steps both reported, the later larger by at least
 * `minCalibrationTokens`. A text in another script (CJK at 1.6 where prose is 1.3) shows here when
 * the median over whole requests hides it.
 */
function growthRange(records: readonly RequestRecord[]): { most: number; least: number } | undefined {
  const newest = [...records].sort((a, b) => a.step - b.step).slice(-calibrationRecords);
  let range: { most: number; least: number } | undefined;
  for (let i = 1; i < newest.length; i++) {
    const [before, after] = [newest[i - 1]!, newest[i]!];
    if (after.step !== before.step + 1 || before.reported === undefined || after.reported === undefined) continue;
    const grew = after.tokens - before.tokens;
    if (grew < minCalibrationTokens) continue;
    const ratio = (after.reported.inputTokens - before.reported.inputTokens) / grew;
    range =
      range === undefined
        ? { most: ratio, least: ratio }
        : {
            most: Math.max(range.most, ratio),
            least: Math.min(range.least, ratio),
          };
  }
  return range;
}

/** The newest ledger record, when the provider reported it and it is large enough to tell (C9), with the thread's growth. */
export function newestReported(records: readonly RequestRecord[]): ReportedRequest | undefined {
  const newest = newestRecord(records);
  if (newest?.reported === undefined || newest.tokens < minCalibrationTokens) return undefined;
  const growth = growthRange(records);
  return {
    tokens: newest.tokens,
    inputTokens: newest.reported.inputTokens,
    system: newest.parts.system,
    messages: newest.parts.messages,
    results: newest.results,
    ...(growth === undefined ? {} : { growth }),
  };
}

/**
 * What `request` holds that `before` did not, and the reverse, in estimated tokens: a result is the
 * same when its tool call id, how it is shown and its tokens are; the fixed parts by how they moved.
 */
export function changeSince(before: MeasuredRequest, request: MeasuredRequest): { added: number; dropped: number } {
  const nameOf = (result: MeasuredRequest['results'][number]) =>
    `${result.toolCallId}\n${result.shownAs}\n${result.tokens}`;
  const earlier = new Map<string, number>();
  for (const result of before.results) earlier.set(nameOf(result), (earlier.get(nameOf(result)) ?? 0) + 1);
  let added = 0;
  let dropped = 0;
  for (const result of request.results) {
    const left = earlier.get(nameOf(result)) ?? 0;
    if (left > 0) earlier.set(nameOf(result), left - 1);
    else added += result.tokens;
  }
  for (const result of before.results) {
    const left = earlier.get(nameOf(result)) ?? 0;
    if (left > 0) {
      earlier.set(nameOf(result), left - 1);
      dropped += result.tokens;
    }
  }
  for (const part of ['system', 'messages'] as const) {
    const moved = request[part] - before[part];
    if (moved > 0) added += moved;
    else dropped -= moved;
  }
  return { added, dropped };
}

/**
 * The most the newest request's own ratio, or the thread's growth, may differ from the factor
 * (either way) to be trusted: past it, it is one odd reply, and the factor alone holds.
 */
const maxNewestDeviation = 1.5;

/**
 * The budget a request is fitted to in estimated tokens, so its expected reported size stays
 * within `maxRequestTokens`: both sizes divided by the factor (clearing still frees the same share).
 * With the thread's newest request as the provider counted it, and the request to fit, the expected
 * size is that count, plus what the request adds priced at the most the thread's growth has cost,
 * less what it drops priced at the least (a request repeats most of the one before, so only what
 * changed is a guess, and it is guessed high); the budget is the request's size moved by what that
 * leaves, at those prices. That is the budget when it is the smaller one; never larger than
 * `maxRequestTokens` / factor, and the factor alone when the newest ratio is an odd one.
 */
export function calibratedBudget(
  budget: ResolvedContextBudget,
  factor: number,
  newest?: ReportedRequest,
  request?: MeasuredRequest,
): ResolvedContextBudget {
  const byFactor = Math.floor(budget.maxRequestTokens / factor);
  let maxRequestTokens = byFactor;
  if (newest !== undefined && request !== undefined) {
    const ratio = newest.inputTokens / newest.tokens / factor;
    if (ratio <= maxNewestDeviation && ratio >= 1 / maxNewestDeviation) {
      const bounded = (value: number) =>
        Math.min(maxNewestDeviation * factor, Math.max(factor / maxNewestDeviation, value));
      const most = bounded(Math.max(factor, newest.growth?.most ?? factor));
      const least = bounded(Math.min(factor, newest.growth?.least ?? factor));
      const { added, dropped } = changeSince(newest, request);
      const size = newest.tokens + added - dropped;
      const expected = newest.inputTokens + most * added - least * dropped;
      const fromNewest =
        expected <= budget.maxRequestTokens
          ? size + Math.floor((budget.maxRequestTokens - expected) / most)
          : size - Math.ceil((expected - budget.maxRequestTokens) / least);
      maxRequestTokens = Math.max(0, Math.min(byFactor, fromNewest));
    }
  }
  if (factor === 1 && maxRequestTokens === budget.maxRequestTokens) return budget;
  return Object.freeze({
    ...budget,
    maxRequestTokens,
    clearAtLeastTokens: Math.floor(budget.clearAtLeastTokens / factor),
  });
}

/** `context-calibrated` when the effective budget moved by more than 10% from the previous request's. */
export function calibrationEvent(
  threadId: string,
  budget: ResolvedContextBudget,
  previous: number,
  factor: number,
): ContextEvent | undefined {
  const before = calibratedBudget(budget, previous).maxRequestTokens;
  const after = calibratedBudget(budget, factor).maxRequestTokens;
  if (Math.abs(after - before) <= toldChange * before) return undefined;
  return { type: 'context-calibrated', threadId, factor, effectiveBudget: after };
}
