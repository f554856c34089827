import { checkOptionNames, quoteForMessage } from '../shared/checks.js';
import type { ContextLedgerStore, OffloadStore, WritableOffloadStore } from '../store/offload-store.js';
import { type EstimateTokens, measureOf, type TokenMeasure } from '../tokens/token-measure.js';
import type { ContextLedger } from './context/ledger.js';
import type { ContextBudget, ContextRequest, FittedContext, ResolvedContextBudget } from './context/request.js';
import { defaultOffloadStore } from './default-store.js';
import { MountedOffloadBackend } from './mounted-backend.js';
import { OffloadBackend } from './offload-backend.js';
import { type OffloadResultInput, offloadResult } from './offload-result.js';
import { cutAndRemember, type OffloadedResult } from './offloaded-result.js';
import { type OffloadLimits, resolveLimits, resolveToolLimits, type ToolLimits } from './options.js';
import { checkReadTools, type OffloadReadTool, offloadReadTools } from './read-tools.js';
import { offloadKey, offloadMount } from './result-path.js';
import type { ShownTexts } from './shown-texts.js';
import type { AppliedLimits } from './store-result.js';
import { systemPromptLines } from './words.js';

/** The options of `new ToolOutputOffload(options)`; every one is optional. */
export interface ToolOutputOffloadOptions extends Partial<OffloadLimits> {
  /**
   * How tokens are counted for the threshold and every bound: a synchronous `(text) => number`.
   * estimateTokensByScript fits most text better. The threshold asks it only about texts whose
   * UTF-8 bytes are over it; the context ledger (the `ledger` option) asks about every text of each
   * request, once a text, `''` too, with or without a `contextBudget`. A throw or a count that is not a
   * finite number ≥ 0 never fails a run: that text counts at four characters a token, warned once.
   * @default estimateTokens (four characters a token)
   */
  estimateTokens?: EstimateTokens;
  /** Thresholds by tool name, for tools whose results should stay whole longer (or shorter); each at least 1000. */
  tools?: { [toolName: string]: { thresholdTokens: number } };
  /**
   * Where results are stored.
   * @default new IndexedDbOffloadStore() where indexedDB exists, else new MemoryOffloadStore()
   */
  store?: WritableOffloadStore;
  /**
   * The context ledger: `contextLedger` from `tool-output-offload/context`. With it, every model
   * request a way in fits (`fitContext`) is measured and recorded in the store's ledger, which the
   * inspector's Context tab draws, and a `contextBudget` is applied; without it, an app loads
   * neither and `fitContext` sends each request as it is. Needs a store that keeps a ledger
   * (`cleared`, `requests`, `recordRequest`, `recordUsage`: the built-in ones).
   * @default none: requests are neither fitted nor recorded
   */
  ledger?: ContextLedger;
  /**
   * A budget for each model request (C1–C7): over `maxRequestTokens` estimated tokens, the oldest
   * tool results are cleared from the request (history keeps them), each shown as a pointer to
   * where it is stored. Needs the `ledger` option (`contextLedger` from `tool-output-offload/context`).
   */
  contextBudget?: ContextBudget;
}

const optionNames: ReadonlySet<string> = new Set([
  'thresholdTokens',
  'maxResultBytes',
  'maxTotalBytes',
  'previewLines',
  'previewTailLines',
  'maxAgeMs',
  'estimateTokens',
  'tools',
  'store',
  'ledger',
  'contextBudget',
]);

/**
 * The key of the offload's records for the built-in agent (lib/agent/offload-staging.ts: its two
 * steps, stage a result and commit it when the run applies the update; and what summary cleanup
 * asks, O7). No entry exports it: only the agent, and only an app that loads it, reaches (and pays
 * for) the staged protocol and the record of what was shown.
 */
export const agentRecords = Symbol('ToolOutputOffload agent records');

/** What a staged result is held to and recorded in: the same records `offloadResult` keeps. */
export interface AgentRecords {
  limitsFor(toolName: string): AppliedLimits;
  /** What the model was shown instead of results (by tool call) and the cut texts. */
  shown: ShownTexts;
  /** A key stored in this session: a read of it once the store forgets it says cleared, not never stored. */
  rememberStored(threadId: string, key: string): void;
}

/**
 * Keeps large tool results out of the conversation: a result over `thresholdTokens` is stored
 * (bounded by `maxTotalBytes` per thread, oldest evicted first) and the model sees a header naming
 * `/large_tool_results/<key>` and the first lines; `readTools(threadId)` (or `backend(threadId)`
 * mounted at `ToolOutputOffload.mount`) reads it back. Framework-neutral: the AI SDK and LangChain
 * adapters call `offloadResult`; the built-in agent (`tool-output-offload/agent`) takes it as a
 * middleware, `createAgent({ middleware: [offload] })`, and stages and commits in two steps.
 */
export class ToolOutputOffload {
  /** The state key the built-in agent keeps the offload's thread summary under. */
  static readonly key = offloadKey;
  /** Where stored results are mounted: `/large_tool_results/`. */
  static readonly mount = offloadMount;

  /** The store: its reads are what an app or the inspector show; the offload writes through its write contract. */
  readonly store: WritableOffloadStore;
  readonly limits: Readonly<OffloadLimits>;
  /** Per-tool thresholds, as given in `tools` (checked). */
  readonly tools: ToolLimits;
  /** How tokens are counted (the `estimateTokens` option, checked). */
  readonly measure: TokenMeasure;
  /** The `contextBudget` option with its defaults filled in (frozen), or undefined without one. */
  readonly contextBudget: ResolvedContextBudget | undefined;
  /** fitContext's pipeline, with its token counts and the ledger's queue: from the `ledger` option, else none. */
  readonly #fitter: ReturnType<ContextLedger['fitterFor']> | undefined;
  /** The store it made (no `store` option): closed by `close()`. */
  readonly #ownStore: WritableOffloadStore | undefined;
  /**
   * The keys it stored in this session, per thread (the newest 10,000 of each): when the store no
   * longer knows one at all (its database deleted or wiped), a read says it was cleared, not never stored.
   */
  readonly #storedKeys = new Map<string, Set<string>>();
  /** The ways in already warned that they send model calls without fitting them (C8). */
  readonly #warnedUnfitted = new Set<string>();
  /**
   * What it showed instead of results (previews by tool call, cut texts), kept only for those that
   * read it as data: the context ledger (made with the offload) and the built-in agent (made when
   * the agent takes the offload). Without either, nothing is kept: an app pays for it only with them.
   */
  #shown: ShownTexts | undefined;

  /**
   * Options are checked here (O10): a value out of range throws a RangeError naming the option and
   * its range; an unknown option name, or a value of the wrong kind, a TypeError naming it.
   */
  constructor(options: ToolOutputOffloadOptions = {}) {
    if (typeof options !== 'object' || options === null)
      throw new TypeError('ToolOutputOffload: options must be an object');
    const unknown = Object.keys(options).filter((name) => !optionNames.has(name));
    if (unknown.length > 0) {
      throw new TypeError(
        `ToolOutputOffload: unknown option ${unknown.map((name) => quoteForMessage(name)).join(', ')}; the options are ${[...optionNames].join(', ')}`,
      );
    }
    this.limits = Object.freeze(resolveLimits(options));
    this.tools = resolveToolLimits(options.tools);
    this.measure = measureOf('ToolOutputOffload', options.estimateTokens);
    const store = options.store ?? defaultOffloadStore();
    if (typeof store?.stage !== 'function' || typeof store.apply !== 'function') {
      throw new TypeError('ToolOutputOffload: store must be an OffloadStore with its write contract (stage, apply, …)');
    }
    const ledger = ledgerOf(options.ledger, store);
    if (options.contextBudget !== undefined && ledger === undefined) {
      throw new TypeError(
        "ToolOutputOffload: contextBudget needs the context ledger: import { contextLedger } from 'tool-output-offload/context' and pass new ToolOutputOffload({ ledger: contextLedger, contextBudget })",
      );
    }
    // Checked by the context piece, which an app without it does not load.
    this.contextBudget = ledger?.piece.resolveBudget(options.contextBudget);
    this.#ownStore = options.store === undefined ? store : undefined;
    this.store = store;
    if (ledger !== undefined) {
      const shown = ledger.piece.shownTexts(store);
      this.#shown = shown;
      this.#fitter = ledger.piece.fitterFor({
        store,
        ledger: ledger.store,
        measure: this.measure,
        budget: this.contextBudget,
        limits: this.limits,
        shown,
        onStored: (threadId, key) => this.#rememberStored(threadId, key),
      });
    }
  }

  /** A read-only view of one thread's stored results, to mount at `ToolOutputOffload.mount` in a CompositeBackend (O6). */
  backend(threadId: string): OffloadBackend {
    return new OffloadBackend(this.store, threadId, { storedBefore: (key) => this.#storedBefore(threadId, key) });
  }

  /**
   * read_file, grep, ls and glob over one thread's stored results (paths under
   * `ToolOutputOffload.mount`), for an agent framework to declare: paged, capped and worded as
   * `fileTools`, each page cut to its tool's threshold; their results are never stored (A4).
   * Without a thread, each call names its own (`run(args, { threadId })`), for a framework that
   * declares its tools once and learns the thread per call.
   */
  readTools(threadId?: string): OffloadReadTool[] {
    if (threadId !== undefined) this.backend(threadId); // checks the thread id now, not at the first call
    const backendOf = (thread: string) => new MountedOffloadBackend(this.backend(thread));
    return offloadReadTools(threadId, backendOf, (toolName) => this.thresholdFor(toolName), this.measure);
  }

  /**
   * The lines the offload adds to the system prompt (O12). They name only the read tools in
   * `readTools` (default: all of them); with none, they say the model cannot read stored results back.
   */
  systemPrompt(options: { readTools?: readonly string[] } = {}): string {
    checkOptionNames('systemPrompt', options, ['readTools']);
    const readTools = checkReadTools(options.readTools, 'systemPrompt');
    return systemPromptLines(this.limits.thresholdTokens, offloadMount, readTools);
  }

  /**
   * What the model should see for one tool result, in one call (for a framework with no commit
   * step of its own). Over the threshold it is stored (evicting the thread's oldest to keep the
   * bound) and replaced by a header and its first lines naming its path; within it, unchanged. The
   * path comes from `callId` and the text, and the store remembers it: the same result offered
   * again gets the same text, storing and evicting nothing, even once evicted or from a new
   * ToolOutputOffload over the same store (A1, A2). The outcome's `kind` says what happened; a
   * store failure is kind 'failed', cut with a note (S3). Malformed input is a TypeError.
   */
  async offloadResult(input: OffloadResultInput): Promise<OffloadedResult> {
    const outcome = await offloadResult(this.store, (toolName) => this.#limitsFor(toolName), input, this.#shown);
    if (outcome.stored) this.#rememberStored(input.threadId, outcome.path.slice(offloadMount.length));
    return outcome;
  }

  /**
   * The records the built-in agent reads and writes (lib/agent/offload-staging.ts); the first call
   * makes the record of what was shown with `makeShown`, unless the context ledger made it already.
   */
  [agentRecords](makeShown: (store: OffloadStore) => ShownTexts): AgentRecords {
    this.#shown ??= makeShown(this.store);
    return {
      limitsFor: (toolName) => this.#limitsFor(toolName),
      shown: this.#shown,
      rememberStored: (threadId, key) => this.#rememberStored(threadId, key),
    };
  }

  /**
   * Fits one model request to the context budget (C1–C7) and measures it for the context ledger:
   * which tool results to send as pointers or cut previews instead (by index into its messages),
   * and what to tell the app. Every way in calls it before each model call, budget or not (the
   * ledger records every request); the request itself, and history, are never changed. A store
   * failure never fails it (S3): nothing new is cleared then. A malformed request is a TypeError
   * naming the field. Without the `ledger` option it reads nothing of the request: no
   * replacements, no events, no `tokens`, and `reportUsage` records nothing.
   */
  fitContext(request: ContextRequest): Promise<FittedContext> {
    if (this.#fitter !== undefined) return this.#fitter.fit(request);
    if (typeof request !== 'object' || request === null)
      return Promise.reject(new TypeError(`fitContext: request must be an object, got ${quoteForMessage(request)}`));
    return Promise.resolve({ replacements: new Map(), events: [], reportUsage: async () => false });
  }

  /**
   * For a way in that sees model calls it did not fit to `contextBudget` (its fitting step not
   * wired, C8): the first time for `wayIn`, a `console.warn` of `fix`, and true (the way in then
   * emits its event); false after that, and always without a `contextBudget`.
   */
  warnUnfitted(wayIn: string, fix: string): boolean {
    if (!this.contextBudget || this.#warnedUnfitted.has(wayIn)) return false;
    this.#warnedUnfitted.add(wayIn);
    console.warn(`tool-output-offload: ${fix}`);
    return true;
  }

  /**
   * A text within the threshold, for what is sent as it is rather than stored (a tool's error, a
   * result that never reached the offload): unchanged when within it, else its start and a note
   * saying it was cut and not stored (O9).
   */
  cutToThreshold(text: string, toolName?: string): string {
    if (typeof text !== 'string') throw new TypeError(`cutToThreshold: text must be a string, got ${typeof text}`);
    const threshold = toolName === undefined ? this.limits.thresholdTokens : this.thresholdFor(toolName);
    return cutAndRemember(
      text,
      { thresholdTokens: threshold, measure: this.measure },
      { kind: 'over-threshold' },
      this.#shown,
    );
  }

  /** The threshold results of `toolName` are held to: its own from `tools`, else `thresholdTokens`. */
  thresholdFor(toolName: string): number {
    return Object.hasOwn(this.tools, toolName) ? this.tools[toolName]!.thresholdTokens : this.limits.thresholdTokens;
  }

  /**
   * Closes the store it made when none was given (its database connection and change channel), so
   * the database can be deleted or upgraded at once; a store passed in is the caller's to close.
   * A later use opens the store again.
   */
  async close(): Promise<void> {
    this.#shown?.close();
    await this.#ownStore?.close?.();
  }

  /** `await using offload = new ToolOutputOffload()` closes it at the end of the scope. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  #limitsFor(toolName: string): AppliedLimits {
    return { ...this.limits, thresholdTokens: this.thresholdFor(toolName), measure: this.measure };
  }

  #rememberStored(threadId: string, key: string): void {
    const keys = this.#storedKeys.get(threadId) ?? new Set<string>();
    this.#storedKeys.set(threadId, keys);
    keys.delete(key);
    keys.add(key);
    // A Set iterates in insertion order: the first is the oldest.
    if (keys.size > 10_000) keys.delete(keys.values().next().value as string);
  }

  #storedBefore(threadId: string, key: string): boolean {
    return this.#storedKeys.get(threadId)?.has(key) ?? false;
  }
}

/**
 * The `ledger` option, checked once: the piece and the store's ledger it records in, or undefined
 * without the option. A value that is not `contextLedger`, or a store without a ledger, is a TypeError.
 */
function ledgerOf(
  piece: unknown,
  store: WritableOffloadStore,
): { piece: ContextLedger; store: ContextLedgerStore } | undefined {
  if (piece === undefined) return undefined;
  const pieces = ['fitterFor', 'resolveBudget', 'shownTexts'] as const;
  if (pieces.some((name) => typeof (piece as Partial<ContextLedger> | null)?.[name] !== 'function')) {
    throw new TypeError(
      `ToolOutputOffload: ledger must be contextLedger from 'tool-output-offload/context', got ${quoteForMessage(piece)}`,
    );
  }
  const methods = ['cleared', 'requests', 'recordRequest', 'recordUsage'] as const;
  const missing = methods.filter((name) => typeof store[name] !== 'function');
  if (missing.length > 0) {
    throw new TypeError(
      `ToolOutputOffload: the ledger needs a store that keeps one (${missing.join(', ')} missing; the built-in stores keep it)`,
    );
  }
  return { piece: piece as ContextLedger, store };
}
