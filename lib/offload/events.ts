import type { ContextEvent } from './context/request.js';

// What the offload tells an app, in every way in: the built-in agent's run events (attributed to
// middleware 'ToolOutputOffload', in RunResult.events and createAgent's onEvent) and the adapters'
// `onEvent` (withOffload, offloadMiddleware). Events are small data: never a result's text.

/** A tool result over the threshold was stored now, under `path`; the model is shown its header and first lines naming it. */
type OffloadedEvent = {
  type: 'offloaded';
  threadId: string;
  toolName: string;
  /** The tool call's id, as the model (or the framework) gave it. */
  toolCallId: string;
  /** Where the model reads it back: `/large_tool_results/<key>`. */
  path: string;
  /** UTF-8 bytes stored (after the cut to `maxResultBytes`); told by the built-in agent, which stages the result before it commits it. */
  bytes?: number;
  /** Whether the stored text was cut to `maxResultBytes`; told with `bytes`. */
  truncated?: boolean;
};

/**
 * A tool result over the threshold could not be stored: the store failed (`why`: its error, also in
 * `offload.store.failures(threadId)` when the store could still record it). The model is sent a
 * cut with a note saying so, and the run goes on (S3).
 */
type OffloadFailedEvent = {
  type: 'offload-failed';
  threadId: string;
  toolName: string;
  /** The tool call's id; absent when the store failed while making a result staged earlier live (the built-in agent's commit). */
  toolCallId?: string;
  /** The path the preview names, when the model was shown one (the built-in agent reads it from where it was staged). */
  path?: string;
  /** UTF-8 bytes the result would have taken, when it was staged. */
  bytes?: number;
  why: string;
};

/**
 * The built-in agent only: the store failed at the turn's start (it could not be opened, say), at
 * most once a turn. The run goes on; the turn's results are cut with a note if it still fails (S3, S6).
 */
type StoreUnavailableEvent = { type: 'store-unavailable'; threadId: string; why: string };

/** The built-in agent only: results a summary now covers were dropped from the store (O7); `keys` are their file names. */
type SummarizedDropEvent = { type: 'summarized-drop'; threadId: string; keys: string[] };

/**
 * With a `contextBudget`, once per offload: a tool ran after a model step that the way in's fitting
 * step never saw (the AI SDK's `prepareStep` not passed to generateText, streamText or
 * ToolLoopAgent), so requests are not fitted to the budget and the ledger stays empty (C8). `fix`
 * says what to pass; the same words go to `console.warn`.
 */
type ContextNotFittedEvent = { type: 'context-not-fitted'; threadId: string; fix: string };

/**
 * Everything the offload and its context budget tell an app, as one discriminated union on `type`:
 * `offloaded`, `offload-failed`, `store-unavailable`, `summarized-drop`, `context-cleared`,
 * `context-over-budget` (C6), `context-calibrated` (C9) and `context-not-fitted` (C8). The same
 * type in every way in: the built-in agent's `RunEvent` includes it, and `tool-output-offload/ai-sdk`
 * and `/langchain` re-export it.
 */
export type OffloadEvent =
  | OffloadedEvent
  | OffloadFailedEvent
  | StoreUnavailableEvent
  | SummarizedDropEvent
  | ContextNotFittedEvent
  | ContextEvent;
