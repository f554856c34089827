/**
 * Saves a thread between steps. A checkpoint is plain structured-clone data (no functions, no
 * class instances), so IndexedDB can hold it as it is. The runtime never changes a checkpoint it
 * handed to `save`, but it shares objects (messages) with the running thread: a checkpointer that
 * keeps it in memory keeps a structured clone. A DataCloneError from `save` fails the run saying the
 * thread is not structured-clone data.
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
