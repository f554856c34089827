/**
 * The stagings of one middleware still being written, by thread and turn, so a turn's end waits
 * for them before it deletes what the turn staged and never committed.
 */
export class Stagings {
  readonly #inFlight = new Map<string, Set<Promise<unknown>>>();

  /** Tracks a staging of the turn until it settles (whatever it ends with). */
  track<T>(threadId: string, turnId: string, staging: Promise<T>): Promise<T> {
    const id = JSON.stringify([threadId, turnId]);
    const inFlight = this.#inFlight.get(id) ?? new Set();
    this.#inFlight.set(id, inFlight);
    inFlight.add(staging);
    const forget = () => {
      inFlight.delete(staging);
      if (inFlight.size === 0 && this.#inFlight.get(id) === inFlight) this.#inFlight.delete(id);
    };
    staging.then(forget, forget);
    return staging;
  }

  /** Waits until no staging of the turn is being written. */
  async done(threadId: string, turnId: string): Promise<void> {
    const id = JSON.stringify([threadId, turnId]);
    for (let inFlight = this.#inFlight.get(id); inFlight?.size; inFlight = this.#inFlight.get(id)) {
      await Promise.allSettled([...inFlight]);
    }
  }
}
