import { BackendError } from '../shared/errors.js';
import { evictionInWords } from '../store/eviction-words.js';
import { StoreReadError } from '../store/store-read-error.js';

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
    return new BackendError('evicted', evictionInWords(path, eviction));
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
