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

  /** Tells the other instances; when this one is not listening, through a channel closed right after. */
  post(events: StoreEvent[]): void {
    if (events.length === 0 || typeof BroadcastChannel === 'undefined') return;
    const notice = { source: SOURCE, events } satisfies Notice;
    if (this.#channel) {
      this.#channel.postMessage(notice);
      return;
    }
    // A message posted before close() is still delivered (HTML: postMessage queues it at once).
    const channel = new BroadcastChannel(this.channelName);
    channel.postMessage(notice);
    channel.close();
  }

  /** Whether it is listening. */
  get listening(): boolean {
    return this.#channel !== undefined;
  }

  /** Stops listening; a later `open` starts again. */
  close(): void {
    this.#channel?.close();
    this.#channel = undefined;
  }
}
