import { printPage } from '../backends/file-tool-page.js';
import { capFilePage } from '../offload/cut.js';
import { withText } from '../offload/offloaded-result.js';
import { readToolNames } from '../offload/read-tools.js';
import { ToolOutputOffload } from '../offload/tool-output-offload.js';
import type { HookContext, Middleware, StateKey, ToolCallRequest } from '../runtime/middleware.js';
import type { ModelReply, ModelRequest } from '../runtime/model.js';
import type { ToolOutcome } from '../runtime/outcome.js';
import type { ToolContext } from '../runtime/tool.js';
import { joinText } from '../shared/content.js';
import { contextRequestOf, withReplacements } from './context-fit.js';
import { recordsOf, type StagedOutcome, stageResult } from './offload-staging.js';
import {
  type ContextCleared,
  emitOffloadEvent,
  offloadStateKey,
  orphanAgeMs,
  type SettleTurns,
  StagingsInFlight,
  storeProblem,
  unsettledTurns,
} from './offload-state.js';
import { boundToolMessages } from './request-bound.js';
import { SummaryCleanup } from './summary-cleanup.js';

/**
 * A ToolOutputOffload in the built-in runtime: `createAgent({ middleware: [offload] })` makes one
 * per agent. It stages a large result in `wrapToolCall` and adds the commit to the Success's update,
 * which the runtime applies (one store transaction, with the evictions, O3); an output Block
 * restores the key (O8). Before each model call it drops what a summary covers (O7), bounds the
 * request (O9) and fits it to the context budget (`fitContext`, C1–C7: old results sent as pointers,
 * the thread's history unchanged).
 *
 * Its run events: `offloaded` { path, bytes, truncated } for a result stored; `offload-failed`
 * { path, bytes, why } for one the store could not take (cut with a note saying why, S3);
 * `store-unavailable` { why } at most once a turn, when the store failed at the turn's start (it
 * could not be opened, say: the run goes on, S3, S6); `summarized-drop` { keys } (O7);
 * `context-cleared` { paths, tokensBefore, tokensAfter } and `context-over-budget` { tokens, budget } (C6).
 */
export class OffloadMiddleware implements Middleware {
  readonly name = 'ToolOutputOffload';
  readonly writes: Readonly<Record<string, StateKey>>;
  readonly #offload: ToolOutputOffload;
  /** The read tools among the agent's tools: the system prompt and the headers name only these. */
  readonly #readTools: readonly string[];
  readonly #stagings = new StagingsInFlight();
  readonly #cleanup: SummaryCleanup;

  constructor(offload: ToolOutputOffload, agentTools: readonly string[]) {
    this.#offload = offload;
    this.#readTools = readToolNames.filter((name) => agentTools.includes(name));
    this.writes = Object.freeze({ [ToolOutputOffload.key]: offloadStateKey(offload, this.#stagings) as StateKey });
    this.#cleanup = new SummaryCleanup(offload.store, recordsOf(offload).shown);
  }

  /**
   * The thread's earlier turns that changed the store can no longer be blocked: the update settles
   * them by name (the store forgets how to undo them, and deletes what they staged but never
   * committed, and staged orphans over an hour old). A turn another agent is running on the same
   * thread is not among them, so its staged results and undo data stay. A store that fails here
   * never fails the run (S3): a `store-unavailable` event says why, the turns stay unsettled for
   * the next turn, and the results of this one are cut with a note if the store still fails then.
   */
  async beforeAgent(
    _input: unknown,
    context: HookContext,
  ): Promise<{ update: Record<string, SettleTurns> } | undefined> {
    const turns = unsettledTurns(context.state[ToolOutputOffload.key]).filter((turn) => turn !== context.turnId);
    try {
      const expireBefore = await this.#expiryDue(context.threadId, turns.length > 0);
      if (turns.length > 0 || expireBefore !== undefined) {
        const expiry = expireBefore === undefined ? {} : { expireBefore };
        return { update: { [ToolOutputOffload.key]: { type: 'settle', turns, ...expiry } } };
      }
      // Nothing to settle (no state change, no event): only the sweep of orphans.
      await this.#offload.store.settle(context.threadId, [], { stagedBefore: Date.now() - orphanAgeMs });
    } catch (error) {
      emitOffloadEvent(context, { type: 'store-unavailable', threadId: context.threadId, why: storeProblem(error) });
    }
    return undefined;
  }

  /**
   * The age limit as of now when `maxAgeMs` is set and the turn's update is due anyway, or when one
   * of the thread's entries is past it (so a turn with nothing to expire writes no update).
   */
  async #expiryDue(threadId: string, updating: boolean): Promise<number | undefined> {
    const { maxAgeMs } = this.#offload.limits;
    if (maxAgeMs === undefined) return undefined;
    const expireBefore = Date.now() - maxAgeMs;
    if (updating) return expireBefore;
    const entries = await this.#offload.store.list(threadId);
    return entries.some((entry) => entry.createdAt < expireBefore) ? expireBefore : undefined;
  }

  /** The offload's lines (O12), naming only the read tools the agent has. */
  systemPrompt(): string {
    return this.#offload.systemPrompt({ readTools: this.#readTools });
  }

  async wrapModelCall(
    request: ModelRequest,
    next: (request: ModelRequest) => Promise<ModelReply>,
    context: HookContext,
  ): Promise<ModelReply & { update?: Record<string, unknown> }> {
    // The cleanup after a summary is only that (O7): a store that fails it fails nothing, the bound
    // does not depend on it, and the turn's start has said the store is unavailable.
    const drop = await this.#cleanup
      .drop(context.threadId, context.turnId, context.state, context.messages)
      .catch(() => undefined);
    if (drop?.type === 'drop') {
      emitOffloadEvent(context, { type: 'summarized-drop', threadId: context.threadId, keys: [...drop.keys] });
    }
    const bounded = boundToolMessages(request.messages, this.#offload);
    const { threadId, turnId } = context;
    // The bounded request is what is measured and fitted to the budget (C1): the ledger too records it.
    const fitted = await this.#offload.fitContext(
      contextRequestOf({ ...request, messages: bounded }, { threadId, turnId, readTools: this.#readTools }),
    );
    for (const event of fitted.events) emitOffloadEvent(context, event);
    const messages = withReplacements(bounded, fitted.replacements);
    const reply = await next(messages === request.messages ? request : { ...request, messages });
    // What the provider reported the request cost goes to its ledger record; one without the input
    // count says nothing the ledger can use (the runtime kept only counts it can trust).
    const usage = reply.usage;
    if (usage?.inputTokens !== undefined) await fitted.reportUsage({ ...usage, inputTokens: usage.inputTokens });
    // Only this middleware's own key: an inner layer's update is its own to return. A drop marks
    // the turn as changing the store already; a new clearing (and what was stored for it) does too,
    // so an output Block takes it back and a later settle forgets it (C7).
    if (drop) return { ...reply, update: { [ToolOutputOffload.key]: drop } };
    if (fitted.events.some((event) => event.type === 'context-cleared')) {
      const cleared: ContextCleared = { type: 'context-cleared', threadId, turnId };
      return { ...reply, update: { [ToolOutputOffload.key]: cleared } };
    }
    return reply;
  }

  async wrapToolCall(
    request: ToolCallRequest,
    next: (request: ToolCallRequest) => Promise<ToolOutcome>,
    context: ToolContext,
  ): Promise<ToolOutcome> {
    const outcome = await next(request);
    // An error over the threshold is stored like any result and stays an error (O16).
    if (outcome.type === 'error') return this.#offloadError(request, outcome, context);
    if (outcome.type !== 'success') return outcome;
    // The call was aborted or timed out while the tool ran (a tool may ignore its signal): the
    // runtime drops this outcome, so nothing is staged that no commit would ever make live.
    if (context.signal.aborted) return outcome;
    const toolName = request.call.name;
    // A file tool's page (carried by its outcome, whatever tool object ran it): the file tools page
    // through files, stored results among them, so their pages are cut, never stored, and reading
    // a stored result cannot store another (O11).
    const { page } = outcome;
    if (page !== undefined) {
      const text = joinText(outcome.content);
      const threshold = this.#offload.thresholdFor(toolName);
      if (this.#offload.measure.within(text, threshold)) return outcome;
      // Cut by its lines, while the text still is the page (a middleware that rewrote the text on
      // its way made it an ordinary result, stored below like any other).
      if (text === printPage(page)) {
        const capped = capFilePage(page, threshold, this.#offload.measure, text);
        return { ...outcome, content: withText(outcome.content, capped) };
      }
    }
    const { threadId, turnId } = context;
    let staged: StagedOutcome;
    try {
      const staging = stageResult(this.#offload, {
        threadId,
        turnId,
        key: request.idempotencyKey,
        callId: request.call.id,
        toolName,
        args: request.call.args,
        content: outcome.content,
        readTools: this.#readTools,
      });
      // Tracked from the moment it starts: the turn's end waits for it before settling.
      staged = await this.#stagings.track(threadId, turnId, staging);
    } catch (error) {
      // Malformed content (a non-string text part) from a tool or an inner middleware.
      if (error instanceof TypeError) return { type: 'error', message: error.message };
      throw error;
    }
    return this.#shown(request, outcome, staged, context);
  }

  /** An error outcome over the threshold, staged as a result is; the model reads the error's header and first lines. */
  async #offloadError(
    request: ToolCallRequest,
    outcome: Extract<ToolOutcome, { type: 'error' }>,
    context: ToolContext,
  ): Promise<ToolOutcome> {
    const threshold = this.#offload.thresholdFor(request.call.name);
    if (context.signal.aborted || this.#offload.measure.within(outcome.message, threshold)) return outcome;
    const { threadId, turnId } = context;
    const staging = stageResult(this.#offload, {
      threadId,
      turnId,
      key: request.idempotencyKey,
      callId: request.call.id,
      toolName: request.call.name,
      args: request.call.args,
      content: outcome.message,
      readTools: this.#readTools,
    });
    const staged = await this.#stagings.track(threadId, turnId, staging);
    const shown = this.#shown(request, { type: 'success', content: [], update: outcome.update }, staged, context);
    if (shown.type !== 'success') return shown;
    return shown.update
      ? { type: 'error', message: staged.text, update: shown.update }
      : { type: 'error', message: staged.text };
  }

  /** The outcome the model is shown for a staged result, with its commit when it was stored, telling the run. */
  #shown(
    request: ToolCallRequest,
    outcome: Extract<ToolOutcome, { type: 'success' }>,
    staged: StagedOutcome,
    context: ToolContext,
  ): ToolOutcome {
    const { threadId } = context;
    const { name: toolName, id: toolCallId } = request.call;
    switch (staged.kind) {
      case 'kept':
        return outcome;
      case 'stored': {
        const { bytes, truncated } = staged.commit!;
        const { path } = staged;
        emitOffloadEvent(context, { type: 'offloaded', threadId, toolName, toolCallId, path, bytes, truncated });
        const update = { ...outcome.update, [ToolOutputOffload.key]: staged.commit };
        return { ...outcome, content: staged.content, update };
      }
      case 'failed': {
        const { path, bytes } = staged.failure!;
        const { why } = staged;
        emitOffloadEvent(context, { type: 'offload-failed', threadId, toolName, toolCallId, path, bytes, why });
        return { ...outcome, content: staged.content };
      }
      case 'cut':
        return { ...outcome, content: staged.content };
    }
  }
}
