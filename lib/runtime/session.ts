import type { ContentPart } from '../shared/content.js';
import { errorMessage } from '../shared/errors.js';
import { randomId } from '../shared/ids.js';
import type { Checkpointer } from './checkpoint.js';
import { type RunEventListener, RunEvents } from './events.js';
import { RunAborted, RunFailure, untilAborted } from './failure.js';
import type { AssistantMessage, Message, ToolCall, ToolMessage } from './messages.js';
import type { HookContext, Middleware, TurnEnd } from './middleware.js';
import type { Model, ToolSpec } from './model.js';
import type { StreamListener } from './model-stream.js';
import type { StateUpdate } from './outcome.js';
import { CommittedState, type StateKeys } from './state.js';
import {
  checkpointVersion,
  emptyCheckpoint,
  parseCheckpoint,
  type ThreadCheckpoint,
  type TurnRecord,
} from './thread-checkpoint.js';
import type { Tool } from './tool.js';

/** What an agent was built with, checked and resolved to defaults. */
export interface AgentSetup {
  model: Model;
  tools: ReadonlyMap<string, Tool>;
  specs: readonly ToolSpec[];
  middleware: readonly Middleware[];
  systemPrompt: string;
  checkpointer: Checkpointer;
  keys: StateKeys;
  maxPromptSectionTokens: number;
  maxSteps: number;
  toolTimeoutMs: number;
  onEvent?: RunEventListener;
  onStream?: StreamListener;
}

/**
 * One run, resume or recover of a thread: the thread loaded from its checkpoint, its committed
 * state, the turn in progress, and serialized checkpoint saves.
 */
export class Session {
  /** Model calls made by this run; maxSteps bounds it. */
  modelSteps = 0;
  /** This call's events; they go to its RunResult, never to the checkpoint. */
  readonly events: RunEvents;
  #saves: Promise<void> = Promise.resolve();
  #closed = false;
  /** Tool calls' updates being applied: an abort waits for them, so the checkpoint names every update a key's `apply` began. */
  readonly #commits = new Set<Promise<void>>();

  private constructor(
    readonly setup: AgentSetup,
    readonly threadId: string,
    readonly signal: AbortSignal,
    public messages: Message[],
    readonly state: CommittedState,
    public turn: TurnRecord | null,
  ) {
    this.events = new RunEvents(threadId, () => this.turn?.turnId, setup.onEvent);
  }

  static async load(setup: AgentSetup, threadId: string, signal: AbortSignal): Promise<Session> {
    const saved =
      parseCheckpoint(threadId, await setup.checkpointer.load(threadId)) ?? emptyCheckpoint(setup.keys.withInitial());
    const state = new CommittedState(setup.keys, setup.keys.withInitial(saved.state));
    return new Session(setup, threadId, signal, saved.messages, state, saved.turn);
  }

  /**
   * The view of a hook of `middleware` (or of a state key it owns): the committed state and the
   * whole history, including the turn so far (`messages`, when given, is that history already copied).
   */
  hookContext(
    middleware: string,
    messages: readonly Message[] = [...this.messages],
    turn: TurnRecord | null = this.turn,
  ): HookContext {
    const state = this.state;
    return {
      threadId: this.threadId,
      turnId: turn?.turnId ?? '',
      step: turn?.step ?? 0,
      signal: this.signal,
      get state() {
        return state.values;
      },
      messages,
      emit: this.events.emitter({ middleware }),
    };
  }

  /** Applies a state update through the state's queue (R8), then reports the keys it changed. */
  async applyState(update: StateUpdate): Promise<void> {
    await untilAborted(
      this.state.apply(update, (owner) => this.hookContext(owner)),
      this.signal,
    );
    const keys = Object.keys(update);
    if (keys.length > 0) this.events.runtime({ type: 'state-applied', keys });
  }

  /**
   * Applies a tool call's update, then `done` (which records the call as done), as one piece: once
   * started it is seen through even if the run aborts meanwhile, and `commitsSettled` waits for it.
   * None starts after an abort, so whatever a key's `apply` kept for a call is named by a done call.
   */
  async commitCall(update: StateUpdate, done: () => void): Promise<void> {
    if (this.signal.aborted) throw new RunAborted();
    const committing = this.state
      .apply(update, (owner) => this.hookContext(owner))
      .then(() => {
        const keys = Object.keys(update);
        if (keys.length > 0) this.events.runtime({ type: 'state-applied', keys });
        done();
      });
    this.#commits.add(committing);
    try {
      await committing;
    } finally {
      this.#commits.delete(committing);
    }
  }

  /** Waits for every tool call's update still being applied (`commitCall`), whatever they end with. */
  async commitsSettled(): Promise<void> {
    while (this.#commits.size > 0) await Promise.allSettled([...this.#commits]);
  }

  /**
   * Tells the state keys that `turn` ended (StateKey.endTurn), after every update queued so far.
   * Never throws: a key that fails is reported as an 'end-turn-failed' event. True when a value changed.
   */
  async endTurn(turn: TurnRecord, ending: TurnEnd): Promise<boolean> {
    const before = this.state.values;
    const messages = [...this.messages];
    const failed = await this.state.endTurn(ending, (owner) => this.hookContext(owner, messages, turn));
    for (const { key, error } of failed) {
      this.events.runtime({ type: 'end-turn-failed', key, status: ending.status, reason: errorMessage(error) });
    }
    return this.state.values !== before;
  }

  /**
   * Saves the thread as it is now. Saves run one at a time in call order; none after the run ended.
   * The checkpointer gets a snapshot taken now: new arrays and call records, shared message objects.
   * The session never changes what it handed over, and the checkpointer copies it (structured
   * clone, as MemoryCheckpointer and IndexedDB do), so no deep copy is made here: on a thread of
   * 2 MiB it was half the time of a save, and a save follows every tool call.
   */
  save(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    const turn = this.turn && { ...this.turn, calls: this.turn.calls.map((record) => ({ ...record })) };
    const checkpoint: ThreadCheckpoint = {
      version: checkpointVersion,
      messages: [...this.messages],
      state: { ...this.state.values },
      turn,
    };
    const saved = this.#saves.then(() => this.setup.checkpointer.save(this.threadId, checkpoint));
    this.#saves = saved.catch(() => undefined);
    return saved.catch((e) => {
      if ((e as { name?: unknown } | null)?.name === 'DataCloneError') {
        throw new RunFailure(`the thread's checkpoint is not structured-clone data: ${errorMessage(e)}`);
      }
      throw new RunFailure(`saving the checkpoint of thread "${this.threadId}" failed: ${errorMessage(e)}`);
    });
  }

  /** Ends the session: anything still running from this run (a tool past an abort) saves nothing more. */
  close(): void {
    this.#closed = true;
    this.events.close();
  }

  lastAssistant(): AssistantMessage | undefined {
    for (let i = this.messages.length - 1; i >= 0; i--) {
      const m = this.messages[i]!;
      if (m.role === 'assistant') return m;
    }
    return undefined;
  }
}

export function toolMessage(call: ToolCall, content: ContentPart[], isError: boolean): ToolMessage {
  return { role: 'tool', id: randomId(), toolCallId: call.id, toolName: call.name, content, isError };
}
