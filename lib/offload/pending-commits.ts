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
