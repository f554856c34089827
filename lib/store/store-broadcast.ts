import type { StoreEvent } from './offload-store.js';

const SOURCE = 'tool-output-offload/store-events';

interface Notice {
  source: typeof SOURCE;
  events: StoreEvent[];
}

function isNotice(data: unknown): data is Notice {
  return (
    typeof data === 'object' &&
    data !== null &&
    (data as Notice).source === SOURCE &&
    Array.isArray((data as Notice).events)
  );
}

/**
 * Tells other store instances on the same database (other tabs, workers, or this page) what
 * changed, and hands what they changed to `receive`. A no-op where BroadcastChannel is missing.
 */
export class StoreBroadcast {
  #channel: BroadcastChannel | undefined;

  constructor(
    readonly channelName: string,
    readonly receive: (events: StoreEvent[]) => void,
  ) {}

  /** Starts listening (the channel is opened lazily, so an unused store holds nothing open). */
  open(): void {
    if (this.#channel || typeof BroadcastChannel === 'undefined') return;
    this.#channel = new BroadcastChannel(this.channelName);
    this.#channel.onmessage = (message: MessageEvent) => {
      if (isNotice(message.data)) this.receive(message.data.events);
    };
  }

  post(events: StoreEvent[]): void {
    if (events.length === 0) return;
    this.open();
    this.#channel?.postMessage({ source: SOURCE, events } satisfies Notice);
  }

  /** Stops listening; a later post or `open` starts again. */
  close(): void {
    this.#channel?.close();
    this.#channel = undefined;
  }
}
