import { quoteForMessage } from '../shared/checks.js';
import { errorMessage } from '../shared/errors.js';
import type { ToolOutcome } from './outcome.js';

/** How a run, resume or recover call ended (RunResult.status). */
export type RunStatus = 'completed' | 'blocked' | 'failed' | 'awaiting-approval' | 'max-steps';

/** How a turn's run ended, as a state key's `endTurn` is told (TurnEnd.status). */
export type TurnEndStatus = 'completed' | 'max-steps' | 'blocked' | 'failed' | 'abandoned';

/** What a middleware or a tool passes to `context.emit`: a type and its own small details. */
export interface EmittedEvent {
  type: string;
  [detail: string]: unknown;
}

/** The runtime's own events, each with its details. */
type RuntimeEvent =
  /** A run, resume (with the decision) or recover call started. */
  | { type: 'run-started'; call: 'run' | 'resume' | 'recover'; approved?: boolean }
  /** A model call returned: its step, how many messages it was sent and tool calls it asked for, whether it streamed. */
  | { type: 'model-call'; step: number; messages: number; toolCalls: number; streamed: boolean; ms: number }
  /** A tool call finished, with its outcome's type (`success`, `error`, `needs-approval`, `fatal`). */
  | {
      type: 'tool-call';
      toolName: string;
      callId: string;
      idempotencyKey: string;
      approved: boolean;
      outcome: ToolOutcome['type'];
    }
  /** Updates to these state keys were applied. */
  | { type: 'state-applied'; keys: string[] }
  /** A state key's `endTurn` threw; the run's result is unchanged. */
  | { type: 'end-turn-failed'; key: string; status: TurnEndStatus; reason: string }
  /** The call ended. */
  | { type: 'run-ended'; status: RunStatus; reason?: string };

/** What the runtime puts on every event it records; an emitter cannot set these. */
export type EventEnvelope = {
  /** The middleware that emitted it; absent for the runtime's own events. */
  middleware?: string;
  /** The tool whose `execute` emitted it. */
  tool?: string;
  threadId: string;
  /** The turn in progress, if any. */
  turnId?: string;
  /** Date.now() when it was emitted. */
  at: number;
};

/**
 * Something that happened during a run, for debugging and for an app's own display: one of the
 * runtime's own events (`RuntimeEvent`) or one its middleware and tools emitted (`Emitted`), with
 * the envelope. Events are small, structured-clone data (they never carry message or tool output
 * text) and are not checkpointed. The built-in agent's entry names what its middleware emit.
 */
export type LoopEvent<Emitted extends { type: string } = EmittedEvent> = EventEnvelope & (RuntimeEvent | Emitted);

/** Told of every event of a run as it happens (createAgent's `onEvent`). */
export type RunEventListener<Emitted extends { type: string } = EmittedEvent> = (event: LoopEvent<Emitted>) => void;

/** Who emitted an event through a context; the runtime fills it in, the emitter cannot. */
export type EventSource = { middleware: string } | { tool: string };

const envelopeKeys = ['middleware', 'tool', 'threadId', 'turnId', 'at'] as const;

/**
 * The events of one run, resume or recover call: kept for its RunResult and passed to the
 * agent's `onEvent` listener as they happen. After the call ended, emits are ignored.
 */
export class RunEvents {
  readonly #list: LoopEvent[] = [];
  #closed = false;

  constructor(
    private readonly threadId: string,
    private readonly turnId: () => string | undefined,
    private readonly listener: RunEventListener | undefined,
  ) {}

  /** The events so far, oldest first. */
  list(): LoopEvent[] {
    return [...this.#list];
  }

  /** Records one of the runtime's own events. */
  runtime(event: RuntimeEvent): void {
    this.#record(event, undefined);
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
    const full = {
      ...event,
      ...source,
      threadId: this.threadId,
      ...(turnId ? { turnId } : {}),
      at: Date.now(),
    } as LoopEvent;
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
