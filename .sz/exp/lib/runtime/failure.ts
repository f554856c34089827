import { errorMessage } from '../shared/errors.js';

/**
 * Ends the run with status 'failed' and this reason (an exception in a hook, a write outside the
 * middleware's `writes`, a fatal outcome, a bad reply …).
 */
export class RunFailure extends Error {
  override readonly name = 'RunFailure';
}

/** A wrong call of the agent's API (resume with nothing to resume): the call rejects, no run is ended. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Thrown inside the loop when the run's signal aborts; the run resolves with reason 'aborted'. */
export class RunAborted extends Error {
  override readonly name = 'RunAborted';
  constructor() {
    super('aborted');
  }
}

/** Settles like `promise`, or rejects with RunAborted as soon as `signal` aborts. */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new RunAborted());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new RunAborted());
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** Runs a middleware hook; an exception in it fails the run with a reason naming the hook (R3). */
export async function callHook<T>(where: string, hook: () => T | Promise<T>, signal: AbortSignal): Promise<T> {
  try {
    return await untilAborted(Promise.resolve().then(hook), signal);
  } catch (e) {
    throw asFailure(e, where);
  }
}

/** Keeps RunFailure and RunAborted as they are; any other exception becomes a RunFailure naming `where`. */
export function asFailure(error: unknown, where: string): Error {
  if (error instanceof RunFailure || error instanceof RunAborted) return error;
  return new RunFailure(`${where} threw: ${errorMessage(error)}`);
}
