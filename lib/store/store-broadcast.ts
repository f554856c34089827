import type { StoreEvent } from './offload-store.js';
import { reportedCounts, usageProblem } from './record-checks.js';

const SOURCE = 'tool-output-offload/store-events';

interface Notice {
  source: typeof SOURCE;
  events: StoreEvent[];
}

/** The longest thread id or key an event from another instance may name (keys are at most 64 characters). */
const EVENT_FIELD_CHARS = 1024;
/** Events one notice from another instance may carry; a commit tells a few, a clear one a key. */
const MAX_NOTICE_EVENTS = 100_000;

type Fields = Record<string, unknown>;
const isName = (value: unknown): value is string => typeof value === 'string' && value.length <= EVENT_FIELD_CHARS;
const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0;
const isStep = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) > 0;
const entryTypes: ReadonlySet<unknown> = new Set(['stored', 'evicted', 'restored', 'failed']);

/**
 * One event of another instance as it must be, only its own fields; undefined for anything else. Any
 * script of the origin can post on the channel, so what arrives is checked like a record read back (S2).
 */
function parseEvent(data: unknown): StoreEvent | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const { type, threadId, key, totalBytes, bound, error, step, tokens, reported } = data as Fields;
  if (!isName(threadId)) return undefined;
  if (type === 'thread-cleared') return { type, threadId };
  if (type === 'request') {
    if (!isStep(step) || !isCount(tokens)) return undefined;
    // A usage added to the step (recordUsage) is told with it; one malformed drops the event.
    if (reported === undefined) return { type, threadId, step, tokens };
    if (usageProblem(reported, 'reported') !== undefined) return undefined;
    return { type, threadId, step, tokens, reported: reportedCounts(reported as never) };
  }
  if (!entryTypes.has(type) || !isName(key) || !isCount(totalBytes)) return undefined;
  if (bound !== undefined && !isStep(bound)) return undefined;
  const told = bound === undefined ? {} : { bound };
  if (type === 'failed')
    return typeof error === 'string' ? { type, threadId, key, totalBytes, error, ...told } : undefined;
  return { type: type as 'stored' | 'evicted' | 'restored', threadId, key, totalBytes, ...told };
}

/** The well-formed events of a notice from another instance (the others are dropped); undefined when it is none. */
function parseNotice(data: unknown): StoreEvent[] | undefined {
  if (typeof data !== 'object' || data === null || (data as Fields).source !== SOURCE) return undefined;
  const { events } = data as Fields;
  if (!Array.isArray(events) || events.length > MAX_NOTICE_EVENTS) return undefined;
  return events.flatMap((event) => parseEvent(event) ?? []);
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
      const events = parseNotice(message.data);
      if (events && events.length > 0) this.receive(events);
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
