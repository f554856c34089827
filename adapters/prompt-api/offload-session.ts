import type { ContextMessage, ContextRequest, FittedContext, ToolOutputOffload } from '../../lib/index.js';
import {
  checkTools,
  type OffloadSessionEvent,
  offloadingTool,
  quoted,
  readTools,
  type SessionToolCall,
} from './session-tools.js';
import {
  defaultReserve,
  type LanguageModelFactory,
  type LanguageModelSession,
  type LanguageModelTextMessage,
  type LanguageModelTool,
  measureOf,
  overflowEvents,
  usageOf,
  windowOf,
} from './session-window.js';

export interface OffloadSessionOptions {
  /** The conversation (thread) its results are stored under and its ledger records kept for. */
  threadId: string;
  /** The app's tools in the Prompt API's shape; each `execute` is wrapped, and read_file, grep, ls and glob are added. */
  tools?: readonly LanguageModelTool[];
  /**
   * The app's own initial prompts (a system prompt first, then examples), text only: every session
   * starts with them, the offload's lines added to the system prompt. @default none
   */
  initialPrompts?: readonly LanguageModelTextMessage[];
  /** Where sessions come from. @default globalThis.LanguageModel */
  languageModel?: LanguageModelFactory;
  /** The other options of every `LanguageModel.create` call (temperature, expectedInputs, signal, …), passed as they are. @default {} */
  createOptions?: Readonly<Record<string, unknown>>;
  /**
   * Tokens of the window kept free for one prompt's tool results and reply: a prompt that would
   * leave less goes on in a new session. @default a quarter of the session's contextWindow
   */
  reserveTokens?: number;
  /** Told of each result stored or not, each clearing, and each session continued or overflowed. A listener that throws is logged, not rethrown. */
  onEvent?: (event: OffloadSessionEvent) => void;
}

/** A conversation with the built-in model through the offload: prompt it as a session. */
export interface OffloadSession {
  /**
   * Prompts the model as `session.prompt` does (a string, or text messages of the user and the
   * assistant), after fitting the conversation to the offload's budget and, when the session's
   * usage would come within `reserveTokens` of its window, continuing it in a new session. Each
   * prompt leaves one record in the thread's context ledger, with the session's usage after it as
   * `reported.inputTokens`. Prompts run one at a time, in the order made.
   */
  prompt(input: string | readonly LanguageModelTextMessage[], options?: { signal?: AbortSignal }): Promise<string>;
  /** The session the conversation is in now. */
  readonly session: LanguageModelSession;
  /** How many sessions the conversation has used (1 until it is first continued). */
  readonly sessions: number;
  /** Destroys the current session; later prompts reject. */
  destroy(): void;
}

const optionNames = [
  'threadId',
  'tools',
  'initialPrompts',
  'languageModel',
  'createOptions',
  'reserveTokens',
  'onEvent',
];

function checkOptions(offload: unknown, options: unknown): OffloadSessionOptions {
  if (typeof (offload as ToolOutputOffload | null)?.fitContext !== 'function') {
    throw new TypeError('offloadSession: the first argument must be a ToolOutputOffload');
  }
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new TypeError('offloadSession: options must be an object, { threadId, tools?, … }');
  }
  const unknown = Object.keys(options).filter((name) => !optionNames.includes(name));
  if (unknown.length > 0) {
    throw new TypeError(
      `offloadSession: unknown option ${unknown.map(quoted).join(', ')}; the options are ${optionNames.join(', ')}`,
    );
  }
  const { threadId, languageModel, createOptions, reserveTokens, onEvent } = options as Partial<OffloadSessionOptions>;
  if (typeof threadId !== 'string' || threadId === '') {
    throw new TypeError(`offloadSession: options.threadId must be a non-empty string, got ${JSON.stringify(threadId)}`);
  }
  if (languageModel !== undefined && typeof languageModel?.create !== 'function') {
    throw new TypeError('offloadSession: options.languageModel must have create() (LanguageModel)');
  }
  if (createOptions !== undefined) {
    if (typeof createOptions !== 'object' || createOptions === null || Array.isArray(createOptions)) {
      throw new TypeError('offloadSession: options.createOptions must be an object of LanguageModel.create options');
    }
    for (const name of ['tools', 'initialPrompts']) {
      if (Object.hasOwn(createOptions, name)) {
        throw new TypeError(`offloadSession: pass ${name} as options.${name}, not in options.createOptions`);
      }
    }
  }
  if (reserveTokens !== undefined && (!Number.isSafeInteger(reserveTokens) || reserveTokens < 0)) {
    throw new RangeError(`offloadSession: options.reserveTokens must be an integer ≥ 0, got ${String(reserveTokens)}`);
  }
  if (onEvent !== undefined && typeof onEvent !== 'function')
    throw new TypeError('offloadSession: options.onEvent must be a function');
  return options as OffloadSessionOptions;
}

/** The app's initial prompts, checked: text messages, a system prompt only first. */
function checkInitialPrompts(prompts: unknown): LanguageModelTextMessage[] {
  if (prompts === undefined) return [];
  if (!Array.isArray(prompts))
    throw new TypeError('offloadSession: options.initialPrompts must be an array of { role, content }');
  return prompts.map((prompt, i) => {
    const { role, content } = (prompt ?? {}) as Partial<LanguageModelTextMessage>;
    const at = `offloadSession: options.initialPrompts[${i}]`;
    if (role !== 'system' && role !== 'user' && role !== 'assistant') {
      throw new TypeError(`${at}.role must be "system", "user" or "assistant", got ${JSON.stringify(role)}`);
    }
    if (role === 'system' && i > 0) throw new TypeError(`${at}: a system prompt can only be the first`);
    if (typeof content !== 'string') throw new TypeError(`${at}.content must be a string (text only)`);
    return { role, content };
  });
}

/** A prompt's input, checked: a string (a user message), or text messages of the user and the assistant. */
function inputMessages(input: unknown): LanguageModelTextMessage[] {
  if (typeof input === 'string') return [{ role: 'user', content: input }];
  if (!Array.isArray(input)) {
    throw new TypeError(
      'offloadSession.prompt: input must be a string or an array of { role: "user" | "assistant", content: string }',
    );
  }
  return input.map((message, i) => {
    const { role, content } = (message ?? {}) as Partial<LanguageModelTextMessage>;
    if ((role !== 'user' && role !== 'assistant') || typeof content !== 'string') {
      throw new TypeError(
        `offloadSession.prompt: input[${i}] must be { role: "user" | "assistant", content: string } (text only)`,
      );
    }
    return { role, content };
  });
}

/** Arguments as JSON can carry them: what a model sent that JSON cannot write is kept as its text. */
function jsonSafe(args: unknown): unknown {
  try {
    const json = JSON.stringify(args);
    return json === undefined ? null : JSON.parse(json);
  } catch {
    return String(args);
  }
}

/**
 * The conversation as a new session's initial prompts: text messages, each tool call as the
 * assistant's line naming it, each result as a user message saying which tool gave it (the
 * explainer gives tool calls in history no text form), with the fitted replacements (pointers) in.
 */
function carried(
  system: string,
  messages: readonly ContextMessage[],
  replacements: FittedContext['replacements'],
): LanguageModelTextMessage[] {
  const prompts: LanguageModelTextMessage[] = [{ role: 'system', content: system }];
  for (const [index, message] of messages.entries()) {
    if (message.role === 'tool') {
      const text = replacements.get(index)?.text ?? message.text;
      prompts.push({ role: 'user', content: `Result of ${message.toolName}:\n${text}` });
    } else if (message.role === 'assistant' && message.toolCalls?.length) {
      const calls = message.toolCalls.map((call) => `${call.name} ${JSON.stringify(call.args)}`);
      prompts.push({ role: 'assistant', content: `Called ${calls.join('; ')}` });
    } else if (message.role === 'user' || message.role === 'assistant') {
      prompts.push({ role: message.role, content: message.text });
    }
  }
  return prompts;
}

class Conversation implements OffloadSession {
  readonly #offload: ToolOutputOffload;
  readonly #options: OffloadSessionOptions;
  readonly #factory: LanguageModelFactory;
  readonly #tools: LanguageModelTool[];
  readonly #system: string;
  /** Everything said, in order: the app's examples, prompts, tool calls with their results as sent, replies. */
  readonly #messages: ContextMessage[] = [];
  #session!: LanguageModelSession;
  #sessions = 0;
  #queue: Promise<unknown> = Promise.resolve();
  #destroyed = false;

  constructor(
    offload: ToolOutputOffload,
    options: OffloadSessionOptions,
    factory: LanguageModelFactory,
    tools: LanguageModelTool[],
  ) {
    this.#offload = offload;
    this.#options = options;
    this.#factory = factory;
    this.#tools = tools;
    const prompts = checkInitialPrompts(options.initialPrompts);
    const own = prompts[0]?.role === 'system' ? prompts.shift()!.content : '';
    this.#system = own === '' ? offload.systemPrompt() : `${own}\n\n${offload.systemPrompt()}`;
    for (const { role, content } of prompts) this.#messages.push({ role, text: content });
  }

  get session(): LanguageModelSession {
    return this.#session;
  }

  get sessions(): number {
    return this.#sessions;
  }

  emit(event: OffloadSessionEvent): void {
    try {
      this.#options.onEvent?.(event);
    } catch (error) {
      console.warn('offloadSession: onEvent threw', error);
    }
  }

  /** A tool call the browser made, kept with its result as the model was sent it. */
  called({ id, toolName, args, text }: SessionToolCall): void {
    this.#messages.push(
      { role: 'assistant', text: '', toolCalls: [{ id, name: toolName, args: jsonSafe(args) }] },
      { role: 'tool', toolCallId: id, toolName, text },
    );
  }

  /** Starts a session with the conversation so far as its initial prompts. */
  async start(replacements: FittedContext['replacements'] = new Map()): Promise<LanguageModelSession> {
    const session = await this.#factory.create({
      ...this.#options.createOptions,
      tools: this.#tools,
      initialPrompts: carried(this.#system, this.#messages, replacements),
    });
    for (const type of overflowEvents) {
      session.addEventListener(type, () => this.emit({ type: 'context-overflow', threadId: this.#options.threadId }));
    }
    return session;
  }

  /** Makes `session` the conversation's (the one it replaces is destroyed). */
  adopt(session: LanguageModelSession): void {
    const before = this.#sessions === 0 ? undefined : this.#session;
    this.#session = session;
    this.#sessions++;
    before?.destroy();
  }

  reserveOf(window: number): number {
    return this.#options.reserveTokens ?? defaultReserve(window);
  }

  async prompt(
    input: string | readonly LanguageModelTextMessage[],
    options: { signal?: AbortSignal } = {},
  ): Promise<string> {
    const messages = inputMessages(input);
    if (typeof options !== 'object' || options === null)
      throw new TypeError('offloadSession.prompt: options must be an object');
    const unknown = Object.keys(options).filter((name) => name !== 'signal');
    if (unknown.length > 0)
      throw new TypeError(
        `offloadSession.prompt: unknown option ${unknown.map(quoted).join(', ')}; the options are signal`,
      );
    const run = this.#queue.then(() => this.#prompt(messages, options.signal));
    this.#queue = run.catch(() => {});
    return run;
  }

  async #prompt(input: LanguageModelTextMessage[], signal: AbortSignal | undefined): Promise<string> {
    if (this.#destroyed) throw new Error('offloadSession: the session was destroyed');
    const { threadId } = this.#options;
    const asked = input.map(({ role, content }): ContextMessage => ({ role, text: content }));
    const fitted = await this.#offload.fitContext({
      threadId,
      system: this.#system,
      tools: this.#tools.map((tool): ContextRequest['tools'][number] => ({
        name: tool.name,
        description: tool.description,
        parameters: tool.inputSchema,
      })),
      messages: [...this.#messages, ...asked],
    });
    for (const event of fitted.events) this.emit(event);
    await this.#continueIfFull(
      fitted,
      input,
      fitted.events.some((event) => event.type === 'context-cleared'),
    );
    const at = this.#messages.push(...asked);
    const session = this.#session;
    let reply: string;
    try {
      reply = await session.prompt(input, signal ? { signal } : {});
    } catch (error) {
      // Refused before any tool ran (an input over the window, an abort): the conversation does not
      // keep it, so one oversized prompt is not carried into every later session.
      if (this.#messages.length === at) this.#messages.splice(at - asked.length, asked.length);
      throw error;
    }
    this.#messages.push({ role: 'assistant', text: typeof reply === 'string' ? reply : String(reply) });
    const usage = usageOf(session);
    if (usage !== undefined) await fitted.reportUsage({ inputTokens: usage });
    return reply;
  }

  /**
   * A new session carries the conversation, old results as pointers, when this prompt's fitting
   * cleared results (the session still holds them whole) or the session's usage would come within
   * the reserve of its window: so the session holds what the ledger says was sent, and never
   * reaches its window while the conversation fits the budget.
   */
  async #continueIfFull(fitted: FittedContext, input: LanguageModelTextMessage[], cleared: boolean): Promise<void> {
    const session = this.#session;
    const window = windowOf(session);
    const usage = usageOf(session);
    if (usage === undefined) return;
    if (!cleared) {
      const text = input.map((message) => message.content).join('\n');
      const measured = await measureOf(session, input).catch(() => undefined);
      const need = measured ?? Math.ceil(this.#offload.measure.tokens(text));
      if (usage + need + this.reserveOf(window) <= window) return;
    }
    const { threadId } = this.#options;
    let next: LanguageModelSession;
    try {
      next = await this.start(fitted.replacements);
    } catch (error) {
      this.emit({
        type: 'session-not-continued',
        threadId,
        why: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
      });
      return;
    }
    const carriedTokens = usageOf(next) ?? 0;
    if (carriedTokens >= usage) {
      next.destroy();
      const why = `a new session would hold ${carriedTokens} tokens, no fewer than the current one's ${usage}`;
      this.emit({ type: 'session-not-continued', threadId, why });
      return;
    }
    this.adopt(next);
    this.emit({ type: 'session-continued', threadId, contextUsage: usage, carriedTokens, contextWindow: window });
  }

  destroy(): void {
    this.#destroyed = true;
    this.#session?.destroy();
  }
}

/**
 * The offload for Chrome's built-in model through the Prompt API's own tools: a session whose tools'
 * results over the threshold are stored and sent as their previews, with read_file, grep, ls and
 * glob to read them back, each prompt recorded in the thread's context ledger with what the
 * session reports it holds, and — before the session's usage reaches its window — the conversation
 * continued in a new session whose initial prompts carry it with old results cleared to pointers
 * (each naming a path the read tools read), instead of the browser dropping the oldest turns.
 * The offload needs a `contextBudget` that fits the window (`contextBudgetFor(contextWindow)`).
 */
export async function offloadSession(
  offload: ToolOutputOffload,
  options: OffloadSessionOptions,
): Promise<OffloadSession> {
  const checked = checkOptions(offload, options);
  const factory = checked.languageModel ?? (globalThis as { LanguageModel?: LanguageModelFactory }).LanguageModel;
  if (typeof factory?.create !== 'function') {
    throw new TypeError(
      "offloadSession: there is no LanguageModel here (Chrome's built-in model); pass options.languageModel",
    );
  }
  const budget = offload.contextBudget;
  if (budget === undefined) {
    throw new TypeError(
      "offloadSession: the offload needs a contextBudget, so a continued session fits its window: new ToolOutputOffload({ ledger: contextLedger, contextBudget: contextBudgetFor(contextWindow) }), contextLedger from 'tool-output-offload/context'",
    );
  }
  const { threadId } = checked;
  let conversation: Conversation | undefined;
  const wiring = {
    threadId,
    onCall: (call: SessionToolCall) => conversation?.called(call),
    emit: (event: OffloadSessionEvent) => conversation?.emit(event),
  };
  const reads = readTools(offload, wiring);
  const own = checkTools(
    checked.tools,
    reads.map((tool) => tool.name),
  );
  const tools = [...own.map((tool) => offloadingTool(offload, tool, wiring)), ...reads];
  conversation = new Conversation(offload, checked, factory, tools);
  const session = await conversation.start();
  const window = windowOf(session);
  const reserve = conversation.reserveOf(window);
  if (reserve >= window || budget.maxRequestTokens > window - reserve) {
    session.destroy();
    throw new RangeError(
      `offloadSession: contextBudget.maxRequestTokens (${budget.maxRequestTokens}) must fit the session's contextWindow (${window}) less reserveTokens (${reserve}); contextBudgetFor(${window}) gives one that does`,
    );
  }
  // A result within its threshold is sent whole, and a read tool's page is cut to it: either must
  // fit the room kept for one prompt's results.
  const overall = offload.limits.thresholdTokens > reserve;
  const wide = overall ? undefined : tools.find((tool) => offload.thresholdFor(tool.name) > reserve);
  if (overall || wide !== undefined) {
    session.destroy();
    const what = wide === undefined ? 'thresholdTokens' : `the threshold of tool ${quoted(wide.name)}`;
    const threshold = wide === undefined ? offload.limits.thresholdTokens : offload.thresholdFor(wide.name);
    throw new RangeError(
      `offloadSession: ${what} (${threshold} tokens) is over reserveTokens (${reserve}): a result within it would not fit the room kept for it; set it to about 1000`,
    );
  }
  conversation.adopt(session);
  return conversation;
}
