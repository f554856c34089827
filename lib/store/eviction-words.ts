import type { EvictionReason, EvictionRecord } from './offload-store.js';

/**
 * Why a result was evicted, for each reason, in the words the model reads (O4): the one table of
 * the reasons, which the store's read errors, the offload's read tools and the record checks share.
 */
const evictedBecause: Record<EvictionReason, string> = {
  bound: "to keep the thread's stored results within maxTotalBytes (the oldest results go first)",
  quota:
    "to make room for a newer result when the browser's storage for this site was full (the oldest results go first)",
  summarized: 'because a summary now covers the conversation that produced it',
  blocked: 'because the turn that stored it was blocked by an output check',
  replaced: 'because a rerun of the same call replaced it',
  expired: 'because it expired: it was older than the age limit (maxAgeMs)',
  cleared: "because the thread's stored results were cleared (clearThread)",
};

/** Whether `value` is one of the eviction reasons (a record read back is input). */
export function isEvictionReason(value: unknown): value is EvictionReason {
  return typeof value === 'string' && Object.hasOwn(evictedBecause, value);
}

/** A logged time as ISO 8601; as the number when it is past what a Date holds (a record is input too). */
function timeInWords(at: number): string {
  const date = new Date(at);
  return Number.isNaN(date.getTime()) ? `${at} ms` : date.toISOString();
}

/** `<path> was evicted <why>.`, and when, for an expired result (O4, O13). */
export function evictionInWords(path: string, eviction: Pick<EvictionRecord, 'reason' | 'at'>): string {
  const when = eviction.reason === 'expired' ? ` It was evicted at ${timeInWords(eviction.at)}.` : '';
  return `${path} was evicted ${evictedBecause[eviction.reason]}.${when}`;
}
