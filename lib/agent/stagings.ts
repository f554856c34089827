/** What a failure report needs about a staged result that its commit does not carry. */
export interface StagedDetails {
  toolName: string;
  /** UTF-8 bytes staged. */
  bytes: number;
}

interface Pending extends StagedDetails {
  /** The turn that staged it. */
  turnId: string;
}

/**
 * The results this middleware staged whose commit it has not applied yet, per thread, so a commit
 * that fails (a full quota, S3) is reported with the tool's name and the bytes it held.
 */
export class PendingCommits {
  readonly #threads = new Map<string, Map<string, Pending>>();
  /** Stagings still being written, by thread and turn. */
  readonly #staging = new Map<string, Set<Promise<unknown>>>();

  /** Tracks a staging of the turn until it settles, so the turn's end can wait for it (`staged`). */
  staging<T>(threadId: string, turnId: string, staging: Promise<T>): Promise<T> {
    const id = JSON.stringify([threadId, turnId]);
    const inFlight = this.#staging.get(id) ?? new Set();
    this.#staging.set(id, inFlight);
    inFlight.add(staging);
    const forget = () => {
      inFlight.delete(staging);
      if (inFlight.size === 0 && this.#staging.get(id) === inFlight) this.#staging.delete(id);
    };
    staging.then(forget, forget);
    return staging;
  }

  /** Waits until no staging of the turn is being written (whatever each ends with). */
  async staged(threadId: string, turnId: string): Promise<void> {
    const id = JSON.stringify([threadId, turnId]);
    for (let inFlight = this.#staging.get(id); inFlight?.size; inFlight = this.#staging.get(id)) {
      await Promise.allSettled([...inFlight]);
    }
  }

  add(threadId: string, key: string, details: Pending): void {
    const staged = this.#threads.get(threadId) ?? new Map<string, Pending>();
    staged.set(key, details);
    this.#threads.set(threadId, staged);
  }

  /** The details staged under `key`, forgotten now that its commit is being applied. */
  take(threadId: string, key: string): StagedDetails | undefined {
    const staged = this.#threads.get(threadId);
    const details = staged?.get(key);
    staged?.delete(key);
    if (staged?.size === 0) this.#threads.delete(threadId);
    return details && { toolName: details.toolName, bytes: details.bytes };
  }

  /** These turns are settled: their commits were applied or will never be. Other turns' stay. */
  forget(threadId: string, turnIds: readonly string[]): void {
    const staged = this.#threads.get(threadId);
    if (!staged) return;
    for (const [key, { turnId }] of staged) if (turnIds.includes(turnId)) staged.delete(key);
    if (staged.size === 0) this.#threads.delete(threadId);
  }
}
