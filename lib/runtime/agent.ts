import { checkInteger, checkOptionNames, checkThreadId, isRecord } from '../shared/checks.js';
import { type ContentPart, toContent } from '../shared/content.js';
import { errorMessage } from '../shared/errors.js';
import { type Checkpointer, MemoryCheckpointer } from './checkpoint.js';
import type { EmittedEvent, RunEventListener } from './events.js';
import { RunAborted, UsageError } from './failure.js';
import { approvalReason, continueTurn, decideApproval, endFailedRun, result, startTurn } from './loop.js';
import type { Message } from './messages.js';
import type { Middleware } from './middleware.js';
import type { Model } from './model.js';
import type { StreamListener } from './model-stream.js';
import { minPromptSectionTokens } from './prompt.js';
import type { LoopResult } from './run-result.js';
import { type AgentSetup, Session } from './session.js';
import { StateKeys } from './state.js';
import { awaitingCalls } from './thread-checkpoint.js';
import type { Tool } from './tool.js';
import { validatorFor } from './validate.js';

/** The loop's options; `Emitted`: the events its middleware and tools emit, for `onEvent`'s type. */
export interface AgentLoopOptions<Emitted extends { type: string } = EmittedEvent> {
  /** The model each step calls. */
  model: Model;
  /** The tools the model may call, by their unique names. */
  tools?: readonly Tool[];
  /**
   * First in the list = outermost: it wraps the others' wrapModelCall and wrapToolCall, and runs
   * beforeAgent, systemPrompt and afterAgent before them (R1).
   */
  middleware?: readonly Middleware[];
  /** The agent's own system prompt, before the middleware sections. @default '' */
  systemPrompt?: string;
  /**
   * Where each thread is saved between steps.
   * @default new MemoryCheckpointer()
   */
  checkpointer?: Checkpointer;
  /**
   * Estimated tokens of all middleware system prompt sections together, with their separators and
   * any cut marker; at least minPromptSectionTokens (8), room for the marker.
   * @default 8000
   */
  maxPromptSectionTokens?: number;
  /**
   * Model calls per run, resume or recover call; at least 1.
   * @default 25
   */
  maxSteps?: number;
  /**
   * How long a tool call may run, in milliseconds; at most 2^31 - 1 (what setTimeout can wait).
   * @default 120_000
   */
  toolTimeoutMs?: number;
  /** Told of every RunEvent as it happens, synchronously; a listener that throws is ignored (with a warning). */
  onEvent?: RunEventListener<Emitted>;
  /**
   * Told of each part of a streaming model's reply as it arrives (text deltas, tool calls),
   * synchronously, with the thread, turn and step; a listener that throws is ignored (with a warning).
   * A model that answers whole streams nothing. RunEvents never carry the text; this does.
   */
  onStream?: StreamListener;
}

/** An agent: runs turns of a thread, saved by its checkpointer. `Emitted`: the events its middleware and tools emit. */
export interface AgentLoop<Emitted extends { type: string } = EmittedEvent> {
  /** Runs one turn of the thread with this input, to its end, an approval it waits for, or `maxSteps`. */
  run(input: string | ContentPart[], options: { threadId: string; signal?: AbortSignal }): Promise<LoopResult<Emitted>>;
  /** Continues a turn waiting for approval, with the decision. */
  resume(threadId: string, options: { approved: boolean; signal?: AbortSignal }): Promise<LoopResult<Emitted>>;
  /** Continues a turn a crash or a failure left unfinished, rerunning unfinished calls under their idempotency keys (R9). */
  recover(threadId: string, options?: { signal?: AbortSignal }): Promise<LoopResult<Emitted>>;
  /** The thread's messages, as saved. */
  messages(threadId: string): Promise<Message[]>;
  /** The thread's state keys' values, as saved. */
  state(threadId: string): Promise<Record<string, unknown>>;
}

/**
 * The agent loop: beforeAgent → model steps with their tool calls → afterAgent. Middleware run in
 * stack order, the first outermost (R1), and may write only their own `writes` (R7); their updates
 * are applied one at a time in the order committed (R8). A tool call whose arguments fail its
 * schema is an error result that never reaches wrapToolCall (R5); `needsApproval` pauses the run
 * until `resume` (R6). Each call's idempotency key is saved before it runs, so `recover` reruns an
 * unfinished call under the same key (R9); an output Block ends the run `blocked` and puts back
 * every 'restore' key (R10). Each rule id is defined in docs/RULES.md.
 */
export function createAgentLoop<Emitted extends { type: string } = EmittedEvent>(
  options: AgentLoopOptions<Emitted>,
): AgentLoop<Emitted> {
  const setup = resolveOptions(options as AgentLoopOptions);
  const running = new Set<string>();

  /** Loads the thread, runs `body`, and turns a failure or an abort into a 'failed' result. */
  async function session(threadId: string, signal: AbortSignal | undefined, body: (s: Session) => Promise<LoopResult>) {
    checkThreadId(threadId);
    if (running.has(threadId)) {
      throw new Error(`thread "${threadId}" already has a run in progress in this agent; wait for it to end first`);
    }
    running.add(threadId);
    try {
      const s = await Session.load(setup, threadId, signal ?? new AbortController().signal);
      try {
        return await body(s);
      } catch (e) {
        if (e instanceof UsageError) throw e;
        // Once a run started it resolves, whatever a model, hook or checkpointer threw; an abort says so.
        const reason = s.signal.aborted || e instanceof RunAborted ? 'aborted' : errorMessage(e);
        // The turn stays in the checkpoint, so recover can continue it; state stays as it was when it
        // failed, with the updates that were being applied (an abort waits for them, never for a tool).
        await endFailedRun(s);
        await s.save().catch(() => undefined);
        return result(s, 'failed', { reason });
      } finally {
        s.close();
      }
    } finally {
      running.delete(threadId);
    }
  }

  const agent: AgentLoop = {
    async run(input, options = {} as { threadId: string }) {
      checkOptionNames('run', options, ['threadId', 'signal']);
      const { threadId, signal } = options;
      const content = toContent(input, 'run input');
      return session(threadId, signal, (s) => startTurn(s, content));
    },
    async resume(threadId, options = {} as { approved: boolean }) {
      checkOptionNames('resume', options, ['approved', 'signal']);
      const { approved, signal } = options;
      if (typeof approved !== 'boolean') throw new TypeError('resume needs options.approved, true or false');
      return session(threadId, signal, (s) => {
        decideApproval(s, approved);
        s.events.runtime({ type: 'run-started', call: 'resume', approved });
        return continueTurn(s);
      });
    },
    async recover(threadId, options = {}) {
      checkOptionNames('recover', options, ['signal']);
      const { signal } = options;
      return session(threadId, signal, async (s) => {
        s.events.runtime({ type: 'run-started', call: 'recover' });
        if (!s.turn) return result(s, 'completed', { output: s.lastAssistant() });
        const waiting = awaitingCalls(s.turn);
        if (waiting.length > 0) return result(s, 'awaiting-approval', { reason: approvalReason(waiting) });
        return continueTurn(s);
      });
    },
    async messages(threadId) {
      checkThreadId(threadId);
      return (await Session.load(setup, threadId, new AbortController().signal)).messages;
    },
    async state(threadId) {
      checkThreadId(threadId);
      return { ...(await Session.load(setup, threadId, new AbortController().signal)).state.values };
    },
  };
  // Its events are typed as the caller says its middleware and tools emit: the runtime checks only
  // that each is a small object with a type.
  return agent as unknown as AgentLoop<Emitted>;
}

/** The names createAgent takes: any other is refused (a misspelling would silently take a default). */
const agentOptionNames = [
  'model',
  'tools',
  'middleware',
  'systemPrompt',
  'checkpointer',
  'maxPromptSectionTokens',
  'maxSteps',
  'toolTimeoutMs',
  'onEvent',
  'onStream',
] as const satisfies readonly (keyof AgentLoopOptions)[];

function resolveOptions(options: AgentLoopOptions): AgentSetup {
  if (isRecord(options)) checkOptionNames('createAgent', options, agentOptionNames);
  if (typeof options?.model !== 'function') throw new TypeError('createAgent needs options.model, a function');
  const tools = new Map<string, Tool>();
  for (const [i, tool] of (options.tools ?? []).entries()) {
    if (typeof tool?.name !== 'string' || typeof tool.execute !== 'function') {
      throw new TypeError(`options.tools[${i}] is not a tool (it needs a name and an execute function)`);
    }
    if (tools.has(tool.name)) throw new Error(`two tools are named "${tool.name}"`);
    validatorFor(tool);
    tools.set(tool.name, tool);
  }
  const middleware = [...(options.middleware ?? [])];
  middleware.forEach((m, i) => {
    if (typeof m?.name !== 'string') throw new TypeError(`options.middleware[${i}] has no name`);
  });
  if (options.onEvent !== undefined && typeof options.onEvent !== 'function') {
    throw new TypeError('createAgent: options.onEvent must be a function');
  }
  if (options.onStream !== undefined && typeof options.onStream !== 'function') {
    throw new TypeError('createAgent: options.onStream must be a function');
  }
  return {
    onStream: options.onStream,
    model: options.model,
    tools,
    specs: [...tools.values()].map(({ name, description, parameters }) => ({ name, description, parameters })),
    middleware,
    systemPrompt: options.systemPrompt ?? '',
    checkpointer: options.checkpointer ?? new MemoryCheckpointer(),
    keys: new StateKeys(middleware),
    maxPromptSectionTokens: option(
      'maxPromptSectionTokens',
      options.maxPromptSectionTokens,
      8000,
      minPromptSectionTokens,
    ),
    maxSteps: option('maxSteps', options.maxSteps, 25, 1),
    // setTimeout fires at once for any delay over 2^31 - 1 ms.
    toolTimeoutMs: option('toolTimeoutMs', options.toolTimeoutMs, 120_000, 1, 2 ** 31 - 1),
    onEvent: options.onEvent,
  };
}

/** An integer option of createAgent, `fallback` when not given. */
function option(name: string, value: unknown, fallback: number, min: number, max?: number): number {
  return value === undefined ? fallback : checkInteger(`createAgent: options.${name}`, value, min, max);
}
