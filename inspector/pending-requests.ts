/**
 * Requests sent on one link and not answered yet, each with a deadline: the one place where the
 * inspector's channel, the DevTools panel's port and the extension's content script keep what
 * they asked and give up on what nobody answers.
 */
export class PendingRequests<T> {
  readonly #open = new Map<string, { request: T; timer: ReturnType<typeof setTimeout> }>();
  readonly #timeoutMs: number;
  readonly #onTimeout: (id: string, request: T) => void;

  /**
   * @param timeoutMs how long a request may wait.
   * @param onTimeout called with a request that waited `timeoutMs` in vain (it is no longer pending).
   */
  constructor(timeoutMs: number, onTimeout: (id: string, request: T) => void) {
    this.#timeoutMs = timeoutMs;
    this.#onTimeout = onTimeout;
  }

  get size(): number {
    return this.#open.size;
  }

  /** The request pending under `id`, or undefined. */
  get(id: string): T | undefined {
    return this.#open.get(id)?.request;
  }

  /** Adds a request, or gives one already pending under `id` its whole time again. */
  add(id: string, request: T): void {
    clearTimeout(this.#open.get(id)?.timer);
    const timer = setTimeout(() => {
      this.#open.delete(id);
      this.#onTimeout(id, request);
    }, this.#timeoutMs);
    this.#open.set(id, { request, timer });
  }

  /** Removes the request `id` (answered, or given up), returning it; undefined when it was not pending. */
  take(id: string): T | undefined {
    const open = this.#open.get(id);
    if (!open) return undefined;
    clearTimeout(open.timer);
    this.#open.delete(id);
    return open.request;
  }

  /** Removes every pending request (the other side went away), returning them with their ids. */
  takeAll(): Array<[id: string, request: T]> {
    const all = [...this.#open].map(([id, { request, timer }]): [string, T] => {
      clearTimeout(timer);
      return [id, request];
    });
    this.#open.clear();
    return all;
  }

  /** The pending requests, in the order they were added. */
  values(): T[] {
    return [...this.#open.values()].map(({ request }) => request);
  }
}
