import { CompositeBackend } from '../backends/composite-backend.js';
import { pageOf } from '../backends/file-tool-page.js';
import { MemoryBackend } from '../backends/memory-backend.js';
import { joinText } from '../runtime/messages.js';
import type { HookContext, Middleware, StateKey, ToolCallRequest } from '../runtime/middleware.js';
import type { ModelReply, ModelRequest } from '../runtime/model.js';
import type { ToolOutcome } from '../runtime/outcome.js';
import type { ToolContext } from '../runtime/tool.js';
import type { WritableOffloadStore } from '../store/offload-store.js';
import { type EstimateTokens, measureOf, type TokenMeasure } from '../tokens/token-measure.js';
import { SummaryCleanup } from './cleanup.js';
import { cutWithNote } from './cut.js';
import { defaultOffloadStore } from './default-store.js';
import { OffloadBackend } from './offload-backend.js';
import { type OffloadedResult, type OffloadResultInput, offloadNow } from './offload-now.js';
import { type AppliedLimits, expiryOf, type OffloadDecision, offloadToolResult, withText } from './offload-result.js';
import { type OffloadLimits, resolveLimits, resolveToolLimits, type ToolLimits } from './options.js';
import { capFilePage } from './page-cap.js';
import { PendingCommits } from './pending-commits.js';
import { type OffloadReadTool, offloadReadTools } from './read-tools.js';
import { reportStoreFailure } from './report-failure.js';
import { boundToolMessages } from './request-bound.js';
import { offloadKey, offloadMount } from './result-path.js';
import { offloadStateKey, orphanAgeMs, type SettleTurns, unsettledTurns } from './state-key.js';
import { StoredKeys } from './stored-keys.js';

export interface ToolOutputOffloadOptions {
  /** A result over this many estimated tokens is offloaded; default 20_000, at least 1000. */
  thresholdTokens?: number;
  /** The most UTF-8 bytes of one stored result; default 1_048_576, at least 1 and at most maxTotalBytes. */
  maxResultBytes?: number;
  /** The most UTF-8 bytes one thread's stored results take together; default 33_554_432. */
  maxTotalBytes?: number;
  /** Lines of the text shown after the header; default 10. */
  previewLines?: number;
  /** The text's last lines shown after the first ones, past an elision marker; default 0. */
  previewTailLines?: number;
  /**
   * How tokens are counted for the threshold and every bound: a synchronous `(text) => number`;
   * default four characters a token. estimateTokensByScript fits most text better; an exact
   * tokenizer runs only on texts whose UTF-8 bytes are over the threshold.
   */
  estimateTokens?: EstimateTokens;
  /**
   * The age limit, in milliseconds: a stored result older than this is evicted (reason 'expired',
   * its text deleted) at the next update or turn of its thread, and reading it says it expired.
   * Default: none (results stay until the bound or the thread's clearing evicts them). A positive
   * integer of at most ten years; `24 * 60 * 60 * 1000` keeps nothing older than a day.
   */
  maxAgeMs?: number;
  /** Thresholds by tool name, for tools whose results should stay whole longer (or shorter); each at least 1000. */
  tools?: { [toolName: string]: { thresholdTokens: number } };
  /** Default: IndexedDbOffloadStore where indexedDB exists, else MemoryOffloadStore. */
  store?: WritableOffloadStore;
}

/**
 * Keeps large tool results out of the conversation: a Success over `thresholdTokens` is stored
 * (bounded by `maxTotalBytes` per thread) and the model sees a header naming
 * `/large_tool_results/<idempotencyKey>` and the first lines. `backend(threadId)`, mounted at
 * `ToolOutputOffload.mount` in a CompositeBackend, lets the file tools read it back. The file
 * tools' own results are never stored: one over the threshold is cut to a smaller page (O11).
 */
export class ToolOutputOffload implements Middleware {
  static readonly key = offloadKey;
  static readonly mount = offloadMount;

  readonly name = 'ToolOutputOffload';
  readonly store: WritableOffloadStore;
  readonly limits: Readonly<OffloadLimits>;
  /** Per-tool thresholds, as given in `tools` (checked). */
  readonly tools: ToolLimits;
  readonly #measure: TokenMeasure;
  readonly writes: Readonly<Record<string, StateKey>>;
  readonly #cleanup: SummaryCleanup;
  readonly #pending = new PendingCommits();
  /** The read tools each turn's latest model request had, by thread and turn, for the headers of its tool calls. */
  readonly #readToolsOfTurn = new Map<string, readonly string[]>();
  readonly #storedKeys = new StoredKeys();
  /** The store it made (no `store` option): closed by `close()`. */
  readonly #ownStore: WritableOffloadStore | undefined;

  constructor(options: ToolOutputOffloadOptions = {}) {
    if (typeof options !== 'object' || options === null) {
      throw new TypeError('ToolOutputOffload: options must be an object');
    }
    this.limits = Object.freeze(resolveLimits(options));
    this.tools = resolveToolLimits(options.tools);
    this.#measure = measureOf('ToolOutputOffload', options.estimateTokens);
    const store = options.store ?? defaultOffloadStore();
    this.#ownStore = options.store === undefined ? store : undefined;
    if (typeof store.stage !== 'function' || typeof store.apply !== 'function') {
      throw new TypeError('ToolOutputOffload: store must be an OffloadStore (with stage and apply)');
    }
    this.store = store;
    this.writes = Object.freeze({
      [offloadKey]: offloadStateKey(store, this.#pending, this.limits.maxTotalBytes) as StateKey,
    });
    this.#cleanup = new SummaryCleanup(store);
  }

  /** A read-only view of one thread's stored results, to mount at `ToolOutputOffload.mount`. */
  backend(threadId: string): OffloadBackend {
    return new OffloadBackend(this.store, threadId, { storedBefore: (key) => this.#storedKeys.has(threadId, key) });
  }

  /**
   * Closes the store it made when none was given (its database connection and change channel), so
   * the database can be deleted or upgraded at once; a store passed in is the caller's to close.
   * A later use opens the store again.
   */
  async close(): Promise<void> {
    await this.#ownStore?.close?.();
  }

  /** `await using offload = new ToolOutputOffload()` closes it at the end of the scope. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /**
   * For an agent framework other than this package's runtime: what the model should see for one
   * tool result. Over the threshold it is stored (evicting the thread's oldest to keep the bound)
   * and replaced by a header and its first lines naming its path; within it, unchanged. The path
   * comes from `callId` and the text, and the store remembers it: the same result offered again
   * (a framework converting old messages again) gets the same text, storing and evicting nothing,
   * even once it was evicted or from a new ToolOutputOffload over the same store (A1, A2). A store
   * failure cuts the result with a note instead (S3). Malformed input is a TypeError.
   */
  async offloadResult(input: OffloadResultInput): Promise<OffloadedResult> {
    const toolName = (input as Partial<OffloadResultInput> | null)?.toolName;
    const limits = this.#limitsFor(typeof toolName === 'string' ? toolName : '');
    const offloaded = await offloadNow(this.store, limits, input);
    if (offloaded.path !== undefined) this.#storedKeys.add(input.threadId, offloaded.path.slice(offloadMount.length));
    return offloaded;
  }

  /** The threshold results of `toolName` are held to: its own from `tools`, else `thresholdTokens`. */
  thresholdFor(toolName: string): number {
    return Object.hasOwn(this.tools, toolName) ? this.tools[toolName]!.thresholdTokens : this.limits.thresholdTokens;
  }

  #limitsFor(toolName: string): AppliedLimits {
    return { ...this.limits, thresholdTokens: this.thresholdFor(toolName), measure: this.#measure };
  }

  /**
   * A text within the threshold, for what an adapter sends as it is rather than storing (a tool's
   * error): unchanged when within it, else its start and a note saying it was cut and not stored.
   */
  cutToThreshold(text: string): string {
    if (typeof text !== 'string') throw new TypeError(`cutToThreshold: text must be a string, got ${typeof text}`);
    return cutWithNote(text, this.limits.thresholdTokens, { kind: 'over-threshold' }, this.#measure);
  }

  /**
   * read_file, grep, ls and glob over one thread's stored results, mounted at
   * `ToolOutputOffload.mount`, for an agent framework to declare: paged, capped and worded as
   * `fileTools`; their results are never stored (A4).
   */
  readTools(threadId: string): OffloadReadTool[] {
    const backend = new CompositeBackend(new MemoryBackend(), { [offloadMount]: this.backend(threadId) });
    return offloadReadTools(backend, (toolName) => this.thresholdFor(toolName), this.#measure);
  }

  /**
   * The thread's earlier turns that changed the store can no longer be blocked: the update settles
   * them by name (the store forgets how to undo them, and deletes what they staged but never
   * committed, and staged orphans over an hour old). A turn another agent is running on the same
   * thread is not among them, so its staged results and undo data stay.
   */
  async beforeAgent(
    _input: unknown,
    context: HookContext,
  ): Promise<{ update: Record<string, SettleTurns> } | undefined> {
    const turns = unsettledTurns(context.state[offloadKey]).filter((turn) => turn !== context.turnId);
    const expireBefore = await this.#expiryDue(context.threadId, turns.length > 0);
    if (turns.length > 0 || expireBefore !== undefined) {
      const expiry = expireBefore === undefined ? {} : { expireBefore };
      return { update: { [offloadKey]: { type: 'settle', turns, ...expiry } } };
    }
    // Nothing to settle (no state change, no event): only the sweep of orphans.
    await this.store.settle(context.threadId, [], { stagedBefore: Date.now() - orphanAgeMs });
    return undefined;
  }

  /**
   * The age limit as of now when `maxAgeMs` is set and the turn's update is due anyway, or when one
   * of the thread's entries is past it (so a turn with nothing to expire writes no update).
   */
  async #expiryDue(threadId: string, updating: boolean): Promise<number | undefined> {
    const { expireBefore } = expiryOf(this.limits.maxAgeMs);
    if (expireBefore === undefined || updating) return expireBefore;
    const entries = await this.store.list(threadId);
    return entries.some((entry) => entry.createdAt < expireBefore) ? expireBefore : undefined;
  }

  /**
   * The lines this middleware adds to the system prompt (O12); adapters add them to theirs. They name
   * only the read tools in `readTools` (default: all of them); with none, they say the model cannot
   * read stored results back. The runtime's requests get the lines for their own tool list.
   */
  systemPrompt(options: { readTools?: readonly string[] } | HookContext = {}): string {
    const { thresholdTokens } = this.limits;
    // The runtime calls it with its HookContext (no readTools): the lines for all read tools, which
    // wrapModelCall swaps for the request's own.
    const given = 'readTools' in options ? options.readTools : undefined;
    const readTools = Array.isArray(given) ? given : undefined;
    const read = readTools === undefined || readTools.includes('read_file');
    const grep = readTools === undefined || readTools.includes('grep');
    const how =
      read && grep
        ? 'Read more of one with read_file (path, offset and limit in lines, from 0) or search it with grep (pattern, path).'
        : read
          ? 'Read more of one with read_file (path, offset and limit in lines, from 0).'
          : grep
            ? 'Search one with grep (pattern, path).'
            : 'You have no tool to read them back: they are kept for the app, and only the header and first lines reach you.';
    return [
      `Tool results over ${thresholdTokens} tokens are stored as files under ${offloadMount} and replaced by a header and their first lines.`,
      how,
      'Old stored results may be evicted to save space; run the tool again if you need one back.',
    ].join('\n');
  }

  /** The read tools among a request's tools (by name), as the headers and the system prompt name them. */
  #readToolsIn(request: ModelRequest): readonly string[] {
    const names = new Set(request.tools.map((spec) => spec.name));
    return ['read_file', 'grep'].filter((name) => names.has(name));
  }

  async wrapModelCall(
    request: ModelRequest,
    next: (request: ModelRequest) => Promise<ModelReply>,
    context: HookContext,
  ): Promise<ModelReply & { update?: Record<string, unknown> }> {
    const drop = await this.#cleanup.drop(context.threadId, context.turnId, context.state, context.messages);
    if (drop?.type === 'drop') context.emit({ type: 'summarized-drop', keys: [...drop.keys] });
    const messages = boundToolMessages(request.messages, (toolName) => this.thresholdFor(toolName), this.#measure);
    // The system prompt and this turn's headers name only the read tools this request has.
    const readTools = this.#readToolsIn(request);
    this.#rememberReadTools(context.threadId, context.turnId, readTools);
    const ownLines = this.systemPrompt();
    const systemPrompt = request.systemPrompt.replace(ownLines, this.systemPrompt({ readTools }));
    const changed = messages !== request.messages || systemPrompt !== request.systemPrompt;
    const reply = await next(changed ? { ...request, messages, systemPrompt } : request);
    // Only this middleware's own key: an inner layer's update is its own to return.
    return drop ? { ...reply, update: { [offloadKey]: drop } } : reply;
  }

  #rememberReadTools(threadId: string, turnId: string, readTools: readonly string[]): void {
    const key = JSON.stringify([threadId, turnId]);
    this.#readToolsOfTurn.delete(key);
    this.#readToolsOfTurn.set(key, readTools);
    // Only turns in flight matter; keep the latest few hundred.
    if (this.#readToolsOfTurn.size > 256) this.#readToolsOfTurn.delete(this.#readToolsOfTurn.keys().next().value!);
  }

  async wrapToolCall(
    request: ToolCallRequest,
    next: (request: ToolCallRequest) => Promise<ToolOutcome>,
    context: ToolContext,
  ): Promise<ToolOutcome> {
    const outcome = await next(request);
    if (outcome.type !== 'success') return outcome;
    // The call was aborted or timed out while the tool ran (a tool may ignore its signal): the
    // runtime drops this outcome, so nothing is staged that no commit would ever make live.
    if (context.signal.aborted) return outcome;
    // A file tool's page (found by its result, so whatever tool object ran it): the file tools page
    // through files, stored results among them, so their pages are cut, never stored, and reading a
    // stored result cannot store another (O11).
    const page = pageOf(outcome.content);
    if (page !== undefined) {
      const capped = capFilePage(page, this.thresholdFor(request.call.name), this.#measure);
      return capped === joinText(outcome.content)
        ? outcome
        : { ...outcome, content: withText(outcome.content, capped) };
    }
    let decision: OffloadDecision;
    try {
      const { threadId, turnId } = context;
      const readTools = this.#readToolsOfTurn.get(JSON.stringify([threadId, turnId]));
      const deciding = offloadToolResult(
        this.store,
        { ...this.#limitsFor(request.call.name), readTools },
        {
          threadId,
          turnId,
          key: request.idempotencyKey,
          toolName: request.call.name,
          args: request.call.args,
          content: outcome.content,
        },
      ).then((decided) => {
        if (decided.kind === 'stored') {
          this.#storedKeys.add(threadId, request.idempotencyKey);
          const details = { toolName: request.call.name, bytes: decided.bytes, turnId };
          this.#pending.add(threadId, request.idempotencyKey, details);
        }
        return decided;
      });
      // Tracked from the moment it starts: the turn's end (endTurn) waits for it before settling.
      decision = await this.#pending.staging(threadId, turnId, deciding);
    } catch (error) {
      // Malformed content (a non-string text part) from a tool or an inner middleware.
      if (error instanceof TypeError) return { type: 'error', message: error.message };
      throw error;
    }
    if (decision.kind === 'stored') {
      const { path, bytes, truncated } = decision;
      context.emit({ type: 'offloaded', path, bytes, truncated });
      return { ...outcome, content: decision.content, update: { ...outcome.update, [offloadKey]: decision.change } };
    }
    if (decision.kind === 'cut' && decision.failure) {
      const { path, bytes, error } = decision.failure;
      context.emit({ type: 'offload-failed', path, bytes, why: error });
      await reportStoreFailure(this.store, decision.failure);
    }
    return { ...outcome, content: decision.content };
  }
}
