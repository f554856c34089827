import { checkOptionNames, quoteForMessage } from '../../shared/checks.js';
import type { ContextLedgerStore, RecordedRequest, ReportedUsage } from '../../store/offload-store.js';

// What a way in does when the reply to a request it fitted arrives: hands over what the provider
// reported that request cost, and the request's ledger record gains it (one store write, after the
// record's own).

/** The counts `reportUsage` takes; a provider's other fields are the way in's to leave out. */
const usageNames = ['inputTokens', 'cachedInputTokens', 'outputTokens'] as const;

const isCount = (value: unknown) => typeof value === 'number' && Number.isFinite(value) && value >= 0;

/** The usage a way in reports, checked: a TypeError names what is wrong, unknown names too. */
function checkUsage(usage: unknown): ReportedUsage {
  checkOptionNames('reportUsage', usage, usageNames);
  for (const name of usageNames) {
    const value = (usage as Record<string, unknown>)[name];
    if (value === undefined && name !== 'inputTokens') continue;
    if (!isCount(value)) {
      throw new TypeError(
        `reportUsage: usage.${name} must be a number of tokens (finite, ≥ 0), got ${quoteForMessage(value)}`,
      );
    }
  }
  const { inputTokens, cachedInputTokens, outputTokens } = usage as ReportedUsage;
  return {
    inputTokens,
    ...(cachedInputTokens === undefined ? {} : { cachedInputTokens }),
    ...(outputTokens === undefined ? {} : { outputTokens }),
  };
}

/**
 * `FittedContext.reportUsage` for one fitted request: waits for the request's ledger record (it may
 * still be queued behind the model call), then adds the usage to it. True once recorded; false
 * when there is no record to add it to (its write failed) or the
 * store fails now, which never fails the run (S3). A malformed usage rejects with a TypeError naming it.
 */
export function usageReporter(
  ledger: ContextLedgerStore,
  threadId: string,
  recorded: Promise<RecordedRequest | undefined>,
): (usage: ReportedUsage) => Promise<boolean> {
  return async (usage) => {
    const reported = checkUsage(usage);
    const record = await recorded;
    if (record === undefined) return false;
    try {
      return await ledger.recordUsage({ threadId, step: record.step, reported });
    } catch (error) {
      console.warn('ToolOutputOffload: could not add the reported usage to the context ledger', error);
      return false;
    }
  };
}
