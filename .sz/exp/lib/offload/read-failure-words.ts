import { BackendError } from '../shared/errors.js';
import type { EvictionReason } from '../store/offload-store.js';
import { StoreReadError } from '../store/store-read-error.js';

/** Why a result was evicted, as the model reads it (O4). */
const reasonInWords: Record<EvictionReason, string> = {
  bound: "to keep the thread's stored results within maxTotalBytes (the oldest results go first)",
  summarized: 'because a summary now covers the conversation that produced it',
  blocked: 'because the turn that stored it was blocked by an output check',
  replaced: 'because a rerun of the same call replaced it',
  expired: 'because it expired: it was older than the age limit (maxAgeMs)',
  cleared: "because the thread's stored results were cleared (clearThread)",
};

/** A logged time as ISO 8601; as the number when it is past what a Date holds (a record is input too). */
function timeInWords(at: number): string {
  const date = new Date(at);
  return Number.isNaN(date.getTime()) ? `${at} ms` : date.toISOString();
}

/**
 * The error the model reads when the stored result at `path` (the full path it asked for) cannot be
 * read: the store's reasons (StoreReadError) in words it can act on. `storedBefore` says the offload
 * stored it earlier, so a store that no longer knows it at all was cleared or deleted. Any other
 * error is returned as it is (a custom store's 'evicted' keeps its own words).
 */
export function readFailureInWords(error: unknown, path: string, storedBefore: () => boolean): unknown {
  if (!(error instanceof BackendError)) return error;
  const eviction = error instanceof StoreReadError ? error.eviction : undefined;
  if (error.code === 'evicted' && eviction) {
    const when = eviction.reason === 'expired' ? ` It was evicted at ${timeInWords(eviction.at)}.` : '';
    return new BackendError('evicted', `${path} was evicted ${reasonInWords[eviction.reason]}.${when}`);
  }
  if (error.code !== 'not-found') return error;
  const damage = error instanceof StoreReadError ? error.damage : undefined;
  if (damage !== undefined) {
    return new BackendError(
      'not-found',
      `${path} is unreadable: ${damage}. The store skips it; other stored results are not affected. Run the tool again if you need it.`,
    );
  }
  if (storedBefore()) {
    return new BackendError(
      'evicted',
      `${path} was cleared: it was stored earlier, but the store no longer has it (its thread was cleared or its database deleted). Run the tool again if you need it.`,
    );
  }
  return new BackendError('not-found', `${path} not found: no tool result was stored under this path.`);
}
