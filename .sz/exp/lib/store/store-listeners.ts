import type { StoreEvent } from './offload-store.js';

type Listener = (event: StoreEvent) => void;

/** A store's subscribers. A listener that throws is reported and skipped; the others still hear. */
export class StoreListeners {
  readonly #listeners = new Set<{ listener: Listener }>();

  get size(): number {
    return this.#listeners.size;
  }

  subscribe(listener: Listener): () => void {
    if (typeof listener !== 'function') throw new TypeError('subscribe: listener must be a function');
    const subscription = { listener };
    this.#listeners.add(subscription);
    return () => {
      this.#listeners.delete(subscription);
    };
  }

  emit(events: Iterable<StoreEvent>): void {
    for (const event of events) {
      for (const { listener } of [...this.#listeners]) {
        try {
          listener(event);
        } catch (error) {
          console.error('tool-output-offload: a store listener threw', error);
        }
      }
    }
  }
}
