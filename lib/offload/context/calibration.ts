import type { RequestRecord } from '../../store/offload-store.js';
import type { ResolvedContextBudget } from '../options.js';
import type { ContextEvent } from './request.js';

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

/** The thread's newest request as the provider counted it: its estimate and the input tokens reported. */
export interface ReportedRequest {
  tokens: number;
  inputTokens: number;
}

/** The newest ledger record, when the provider reported it and it is large enough to tell (C9). */
export function newestReported(records: readonly RequestRecord[]): ReportedRequest | undefined {
  const newest = newestRecord(records);
  if (newest?.reported === undefined || newest.tokens < minCalibrationTokens) return undefined;
  return { tokens: newest.tokens, inputTokens: newest.reported.inputTokens };
}

/**
 * The most the newest request's own ratio may differ from the factor (either way) to be trusted as
 * the base of the next: past it, it is one odd reply, and the factor alone holds.
 */
const maxNewestDeviation = 1.5;

/**
 * The budget a request is fitted to in estimated tokens, so its expected reported size stays
 * within `maxRequestTokens`: both sizes divided by the factor (clearing still frees the same share).
 * With the thread's newest request as the provider counted it, the expected size is that count plus
 * the factor times what the estimate grew by since: a request repeats most of the one before, so
 * only what is new is a guess. That is the budget when it is the smaller one (a newest request the
 * provider counted higher than the factor says, say for a record in another script); never larger
 * than `maxRequestTokens` / factor, and the factor alone when the newest ratio is an odd one.
 */
export function calibratedBudget(
  budget: ResolvedContextBudget,
  factor: number,
  newest?: ReportedRequest,
): ResolvedContextBudget {
  const byFactor = Math.floor(budget.maxRequestTokens / factor);
  let maxRequestTokens = byFactor;
  if (newest !== undefined) {
    const ratio = newest.inputTokens / newest.tokens / factor;
    if (ratio <= maxNewestDeviation && ratio >= 1 / maxNewestDeviation) {
      const fromNewest = newest.tokens + Math.floor((budget.maxRequestTokens - newest.inputTokens) / factor);
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
