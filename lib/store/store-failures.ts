import type { StoreFailure } from './offload-store.js';

/** Checks a reported failure and keeps only its fields, so the inspector never shows a malformed one. */
export function failureRecord(failure: StoreFailure): StoreFailure {
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
  const { threadId, key, path, toolName, bytes, at, error } = failure;
  return { threadId, key, path, toolName, bytes, at, error };
}

/** Failures of one thread (or all), oldest first, as copies. */
export function failuresOf(failures: Iterable<StoreFailure>, threadId?: string): StoreFailure[] {
  return [...failures]
    .filter((failure) => threadId === undefined || failure.threadId === threadId)
    .map((failure) => ({ ...failure }))
    .sort((a, b) => a.at - b.at);
}
