/**
 * Saves a thread between steps. A checkpoint is plain structured-clone data (no functions, no
 * class instances), so IndexedDB can hold it as it is.
 */
export interface Checkpointer {
  load(threadId: string): Promise<unknown>;
  save(threadId: string, checkpoint: unknown): Promise<void>;
}

/** Keeps checkpoints in memory, cloned so a caller can never change a saved one. */
export class MemoryCheckpointer implements Checkpointer {
  readonly #threads = new Map<string, unknown>();

  async load(threadId: string): Promise<unknown> {
    const saved = this.#threads.get(threadId);
    return saved === undefined ? undefined : structuredClone(saved);
  }

  async save(threadId: string, checkpoint: unknown): Promise<void> {
    this.#threads.set(threadId, structuredClone(checkpoint));
  }
}
