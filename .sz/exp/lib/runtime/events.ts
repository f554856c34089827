import { quoteForMessage } from '../shared/checks.js';
import { errorMessage } from '../shared/errors.js';

/**
 * Something that happened during a run, for debugging and for an app's own display. The runtime
 * defines only this envelope: `type` and the details are the emitter's. Events are small,
 * structured-clone data (they never carry message or tool output text) and are not checkpointed.
 *
 * The runtime's own types: 'run-started' { call }, 'model-call' { step, messages, toolCalls, ms },
 * 'tool-call' { toolName, callId, idempotencyKey, approved, outcome }, 'state-applied' { keys },
 * 'end-turn-failed' { key, status, reason } (a state key's endTurn threw), 'run-ended' { status, reason? }.
 */
export interface RunEvent {
  type: string;
  /** The middleware that emitted it; absent for the runtime's own events. */
  middleware?: string;
  /** The tool whose `execute` emitted it. */
  tool?: string;
  threadId: string;
  /** The turn in progress, if any. */
  turnId?: string;
  /** Date.now() when it was emitted. */
  at: number;
  [detail: string]: unknown;
}

/** What a middleware or a tool passes to `context.emit`: a type and its own small details. */
export interface EmittedEvent {
  type: string;
  [detail: string]: unknown;
}

export type RunEventListener = (event: RunEvent) => void;

/** Who emitted an event through a context; the runtime fills it in, the emitter cannot. */
export type EventSource = { middleware: string } | { tool: string };

const envelopeKeys = ['middleware', 'tool', 'threadId', 'turnId', 'at'] as const;

/**
 * The events of one run, resume or recover call: kept for its RunResult and passed to the
 * agent's `onEvent` listener as they happen. After the call ended, emits are ignored.
 */
export class RunEvents {
  readonly #list: RunEvent[] = [];
  #closed = false;

  constructor(
    private readonly threadId: string,
    private readonly turnId: () => string | undefined,
    private readonly listener: RunEventListener | undefined,
  ) {}

  /** The events so far, oldest first. */
  list(): RunEvent[] {
    return [...this.#list];
  }

  /** Records one of the runtime's own events. */
  runtime(type: string, details: Record<string, unknown> = {}): void {
    this.#record({ type, ...details }, undefined);
  }

  /** The `emit` of a hook or tool context: checks the event and records it under its source. */
  emitter(source: EventSource): (event: EmittedEvent) => void {
    return (event) => this.#record(checked(event, source), source);
  }

  close(): void {
    this.#closed = true;
  }

  #record(event: EmittedEvent, source: EventSource | undefined): void {
    if (this.#closed) return;
    const turnId = this.turnId();
    const full: RunEvent = {
      ...event,
      ...source,
      threadId: this.threadId,
      ...(turnId ? { turnId } : {}),
      at: Date.now(),
    };
    this.#list.push(full);
    if (!this.listener) return;
    try {
      this.listener(full);
    } catch (error) {
      console.warn(`createAgent: the onEvent listener threw on a "${full.type}" event; ignored`, error);
    }
  }
}

/**
 * A copy of an emitted event, so a later change by its emitter cannot alter what was recorded.
 * A bad event is a bug in its emitter: the error names what was wrong and who emitted it.
 */
function checked(event: EmittedEvent, source: EventSource): EmittedEvent {
  const who = 'middleware' in source ? `middleware "${source.middleware}"` : `tool "${source.tool}"`;
  if (typeof event !== 'object' || event === null || Array.isArray(event)) {
    throw new TypeError(`context.emit by ${who}: expected an event object, got ${quoteForMessage(event)}`);
  }
  if (typeof event.type !== 'string' || event.type === '') {
    throw new TypeError(`context.emit by ${who}: the event needs a non-empty string type`);
  }
  const reserved = envelopeKeys.find((key) => Object.hasOwn(event, key));
  if (reserved) {
    throw new TypeError(`context.emit by ${who}: "${reserved}" is set by the runtime; leave it out of "${event.type}"`);
  }
  try {
    return structuredClone(event);
  } catch (error) {
    throw new TypeError(`context.emit by ${who}: "${event.type}" is not structured-clone data: ${errorMessage(error)}`);
  }
}
