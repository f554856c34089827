/** Why a file operation was refused (BackendError's `code`). */
export type BackendErrorCode = 'not-found' | 'evicted' | 'read-only' | 'invalid-path' | 'invalid-argument';

/** A file operation refused; `code` says why, the message says it in words the model can act on. */
export class BackendError extends Error {
  override readonly name = 'BackendError';
  constructor(
    readonly code: BackendErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** A write refused because the origin's storage is full. */
export function isQuotaError(error: unknown): error is Error {
  return (error as { name?: unknown } | null)?.name === 'QuotaExceededError';
}

/** The message of anything thrown. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
