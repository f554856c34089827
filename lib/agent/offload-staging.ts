import { cutAndRemember, failedOutcome, type OffloadedResult, withText } from '../offload/offloaded-result.js';
import { checkReadTools } from '../offload/read-tools.js';
import { readsFromMount, resultPath } from '../offload/result-path.js';
import { ShownTexts } from '../offload/shown-texts.js';
import { type OffloadCommit, reportStoreFailure, type StoredText, storeResult } from '../offload/store-result.js';
import { type AgentRecords, agentRecords, type ToolOutputOffload } from '../offload/tool-output-offload.js';
import { quoteForMessage } from '../shared/checks.js';
import { type ContentPart, resultText, toContent } from '../shared/content.js';
import { isQuotaError } from '../shared/errors.js';
import type { AppliedChange, StoreFailure } from '../store/offload-store.js';

// The built-in agent's two steps over a ToolOutputOffload: `stageResult` when a tool call returns
// (the text staged where no reader sees it), `commitStaged` when the run applies the update that
// carries the commit (one store transaction with its evictions, O3). A turn blocked in between
// never commits, and its end deletes what it staged (O8). Only the agent loads this.

/** A result one of the runtime's calls produced, to stage before its commit is applied. */
interface ResultOfCall {
  threadId: string;
  /** The turn that runs the call: the turn's end (or an output Block) deletes what it staged and never committed. */
  turnId: string;
  /** The call's idempotency key: the stored result's file name (O2). */
  key: string;
  /** The call's id, as the model's messages name its result: kept with the stored result, so a later request knows it (C1–C6). */
  callId: string;
  toolName: string;
  /** The call's arguments: a call that reads from the mount is cut, never stored (O11). */
  args?: unknown;
  content: string | readonly ContentPart[];
  /** The read tools the model has; the header names only these. Default: all of them. */
  readTools?: readonly string[];
}

/** A staged result: its outcome and, when it was staged, the commit that makes it live and what was stored; when it failed, the failure recorded. */
export type StagedOutcome = OffloadedResult & {
  commit?: OffloadCommit;
  storedText?: StoredText;
  failure?: StoreFailure;
};

/**
 * The offload's records the agent reads and writes: its limits, the keys it stored, and what it
 * showed instead of results (made here, the first time, unless the context ledger made it).
 */
export function recordsOf(offload: ToolOutputOffload): AgentRecords {
  return offload[agentRecords]((store) => new ShownTexts(store));
}

/**
 * The first step: decides what the model is shown and, over the threshold, stages the text where
 * no reader sees it yet. A 'stored' outcome carries the `commit` to apply (`commitStaged`) when the
 * result is kept. Never throws for a store failure (S3): the outcome is 'failed', cut with a note,
 * naming no path. A malformed content is a TypeError.
 */
export async function stageResult(offload: ToolOutputOffload, call: ResultOfCall): Promise<StagedOutcome> {
  const content = toContent(call.content, `result of tool "${call.toolName}"`);
  const readTools = checkReadTools(call.readTools, 'stageResult');
  const { threadId, key, callId, toolName, turnId } = call;
  if (typeof callId !== 'string')
    throw new TypeError(`stageResult: callId must be a string, got ${quoteForMessage(callId)}`);
  const records = recordsOf(offload);
  const limits = { ...records.limitsFor(toolName), readTools };
  const text = resultText(content);
  const tokens = limits.measure.tokensOver(text, limits.thresholdTokens);
  if (tokens === undefined) return { kind: 'kept', stored: false, content: [...content], text };

  if (readsFromMount(call.args)) {
    const cut = cutAndRemember(text, limits, { kind: 'read-from-mount' }, records.shown);
    return { kind: 'cut', stored: false, why: 'read from a stored result', content: withText(content, cut), text: cut };
  }
  const result = { content, text };
  const outcome = await storeResult(
    offload.store,
    limits,
    { threadId, key, toolCallId: callId, toolName, text, tokens, turnId },
    'later',
  );
  if (outcome.stored === undefined) return failedOutcome(result, limits, outcome, records.shown);
  const { stored } = outcome;
  records.shown.replaced(threadId, callId, stored);
  records.rememberStored(threadId, key);
  const replacement = { content: withText(content, stored.preview), text: stored.preview };
  return { kind: 'stored', stored: true, path: stored.path, ...replacement, commit: stored.commit, storedText: stored };
}

/**
 * The second step: makes a staged result live in one store transaction, evicting the thread's
 * oldest until it fits its bound (O3). A full quota never fails the run (S3): the failure is
 * recorded and returned as `{ failed }` (reads of the path are served from the staged text, which
 * the preview already names); any other store error is thrown.
 */
export async function commitStaged(
  offload: ToolOutputOffload,
  commit: OffloadCommit,
): Promise<{ applied: AppliedChange } | { failed: string }> {
  try {
    return { applied: await offload.store.apply(commit) };
  } catch (error) {
    if (!isQuotaError(error)) throw error;
    const during = `while making ${resultPath(commit.key)} live, even after evicting the oldest; it is read from where it was staged`;
    return { failed: (await reportStoreFailure(offload.store, commit, error, during)).why };
  }
}
