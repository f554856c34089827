import { BackendError } from '../shared/errors.js';

/** What read-side.ts gives once loaded. */
type ReadSide = typeof import('./read-side.js');

/**
 * Loads the offload's read side (its backend's reads, the read tools' runs, paging, grep and glob)
 * on the first read: a bundler splits it into its own chunk, so an app that only offloads does not
 * carry it (builds that cannot load chunks, such as an MV3 service worker, inline it). The module
 * system keeps it once loaded. A failure is a BackendError saying what could not load.
 */
export function loadReadSide(what: string): Promise<ReadSide> {
  return import('./read-side.js').catch((error: unknown) => {
    throw new BackendError(
      'not-found',
      `${what} could not be run: the offload's read code (loaded on the first read of a stored result) failed to load: ` +
        `${error instanceof Error ? error.message : String(error)}`,
    );
  });
}
