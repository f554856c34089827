import type { StoreFailure } from './offload-store.js';

/** Checks a reported failure, so the inspector never shows a malformed one. */
export function checkFailure(failure: StoreFailure): void {
  for (const field of ['threadId', 'key', 'path', 'toolName', 'error'] as const) {
    if (typeof failure?.[field] !== 'string') {
      throw new TypeError(`reportFailure: ${field} must be a string, got ${JSON.stringify(failure?.[field])}`);
    }
  }
  for (const field of ['bytes', 'at'] as const) {
    if (!Number.isFinite(failure[field])) {
      throw new TypeError(`reportFailure: ${field} must be a finite number, got ${failure[field]}`);
    }
  }
}
