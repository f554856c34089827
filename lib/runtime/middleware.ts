import type { ContentPart } from '../shared/content.js';
import type { EmittedEvent, TurnEndStatus } from './events.js';
import type { AssistantMessage, Message, ToolCall } from './messages.js';
import type { ModelReply, ModelRequest } from './model.js';
import type { StateUpdate, ToolOutcome } from './outcome.js';
import type { Tool, ToolContext } from './tool.js';

/**
 * What a hook returns to stop the run: from beforeAgent or systemPrompt the run ends `blocked`
 * before any model call; from afterAgent (an output Block) it ends `blocked` and every 'restore'
 * state key is put back as it was before the turn (R10).
 */
export interface Block {
  type: 'block';
  /** Why, as RunResult's `reason`. */
  reason: string;
}

/** A Block with this reason. */
export function block(reason: string): Block {
  return { type: 'block', reason };
}

export function isBlock(value: unknown): value is Block {
  return typeof value === 'object' && value !== null && (value as Block).type === 'block';
}

/** What a middleware hook is told of the run it is in. */
export interface HookContext {
  threadId: string;
  /** The turn in progress: one run, with its resumes and recovers. */
  turnId: string;
  /** The model step of the turn, from 1 (0 before the first). */
  step: number;
  /** Aborted when the run is: a hook passes it to what it awaits. */
  signal: AbortSignal;
  /** The committed state. */
  state: Readonly<Record<string, unknown>>;
  /** The thread's whole history. */
  messages: readonly Message[];
  /** Reports a small event of this run (RunEvent), attributed to the middleware; never message text. */
  emit(event: EmittedEvent): void;
}

/**
 * How a turn's run ended, as `StateKey.endTurn` is told:
 * - 'completed' / 'max-steps': the turn is over and its messages kept; nothing can block it any more.
 * - 'blocked': an output Block ended it, after every 'restore' key was restored (R10).
 * - 'failed': the run failed or was aborted. The turn stays in the checkpoint and `recover` may
 *   continue it (and a Block may still end it), but what it needed only to be undone may go.
 * - 'abandoned': a new run closed it unfinished (its calls that had not finished say "Interrupted").
 */
export interface TurnEnd {
  status: TurnEndStatus;
}

/**
 * A state key a middleware writes (its `writes`): its value lives in the thread's checkpoint, and
 * updates to it are applied one at a time, in the order committed (R8).
 */
export interface StateKey<V = unknown> {
  /** The value of a thread that has none yet. */
  initial: V;
  /**
   * How an update is applied; default: replace. May be async and transactional: updates are applied
   * one at a time, in the order they were committed, also from parallel tool calls (R8).
   */
  apply?(current: V, update: unknown, context: HookContext): V | Promise<V>;
  /** What an output Block does to this key: 'restore' puts back its value before the turn (R10); default 'keep'. */
  onBlock?: 'keep' | 'restore';
  /** How 'restore' is done; default: take `before`. */
  restore?(current: V, before: V, context: HookContext): V | Promise<V>;
  /**
   * Told that the turn `context.turnId` ended, once per run that ends it, so a key backed by a
   * store can drop what it kept only to undo that turn. Runs through the state queue, after every
   * update of the run was applied: an abort waits for an update being applied (never for a tool),
   * and a tool that finishes after the run ended has its signal aborted and its update ignored.
   * The returned value is the key's new value, in the checkpoint saved next. An exception here
   * never changes the run's result: it is reported as an 'end-turn-failed' event.
   */
  endTurn?(current: V, ending: TurnEnd, context: HookContext): V | Promise<V>;
}

/** One tool call as wrapToolCall gets it. */
export interface ToolCallRequest {
  /** The call as the model asked for it, its arguments checked against the tool's schema (R5). */
  call: ToolCall;
  /** The runtime's identity of this call, the same when `recover` runs it again (R9). */
  idempotencyKey: string;
  /** The tool the call names. */
  tool: Tool;
}

type MaybePromise<T> = T | Promise<T>;

// `void` rather than `undefined`, so a hook without a return statement type-checks.
// biome-ignore lint/suspicious/noConfusingVoidType: see above
type BeforeAgentResult = void | Block | { input?: ContentPart[]; update?: StateUpdate };
// biome-ignore lint/suspicious/noConfusingVoidType: as for BeforeAgentResult
type AfterAgentResult = void | Block | { update?: StateUpdate };

/**
 * A layer around the agent loop: every hook is optional. The first middleware in the list is the
 * outermost (R1); a hook may write only the state keys in its `writes` (R7). A ToolOutputOffload
 * is one (through `createAgent`).
 */
export interface Middleware {
  /** Its name in run events (`middleware`) and error messages. */
  readonly name: string;
  /** The only keys its hooks may write; a write to any other key fails the run (R7). */
  readonly writes?: Readonly<Record<string, StateKey>>;
  beforeAgent?(input: ContentPart[], context: HookContext): MaybePromise<BeforeAgentResult>;
  systemPrompt?(context: HookContext): MaybePromise<undefined | string | Block>;
  wrapModelCall?(
    request: ModelRequest,
    next: (request: ModelRequest) => Promise<ModelReply>,
    context: HookContext,
  ): Promise<ModelReply & { update?: StateUpdate }>;
  wrapToolCall?(
    request: ToolCallRequest,
    next: (request: ToolCallRequest) => Promise<ToolOutcome>,
    context: ToolContext,
  ): Promise<ToolOutcome>;
  afterAgent?(output: AssistantMessage, context: HookContext): MaybePromise<AfterAgentResult>;
}
