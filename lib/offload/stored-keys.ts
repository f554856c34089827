/**
 * The keys an offload stored in this session, per thread (the newest `perThread` of each): when the
 * store no longer knows one at all — its database was deleted, or wiped with the site's data — a
 * read of its path can still say it was cleared rather than never stored.
 */
export class StoredKeys {
  readonly #threads = new Map<string, Set<string>>();

  constructor(readonly perThread = 10_000) {}

  add(threadId: string, key: string): void {
    let keys = this.#threads.get(threadId);
    if (!keys) {
      keys = new Set();
      this.#threads.set(threadId, keys);
    }
    keys.delete(key);
    keys.add(key);
    // A Set iterates in insertion order: the first is the oldest.
    if (keys.size > this.perThread) keys.delete(keys.values().next().value as string);
  }

  has(threadId: string, key: string): boolean {
    return this.#threads.get(threadId)?.has(key) ?? false;
  }
}
