import type { ContentPart } from '../runtime/messages.js';
import { joinText, toContent } from '../runtime/messages.js';
import { checkThreadId, quoteForMessage } from '../shared/checks.js';
import type { SeenDetails, SeenResult, WritableOffloadStore } from '../store/offload-store.js';
import { charsPerTokenMeasure } from '../tokens/token-measure.js';
import {
  type AppliedLimits,
  expiryOf,
  notStoredDecision,
  offloadToolResult,
  replacementFor,
  withText,
} from './offload-result.js';
import { reportStoreFailure } from './report-failure.js';
import { resultKeyFor } from './result-identity.js';
import { resultPath } from './result-path.js';

/**
 * `ToolOutputOffload.offloadResult`: the offload for an agent framework with no runtime of this
 * package around it. One call decides, stages and commits (with its evictions), and the store
 * remembers what it stored, so a framework that converts old results again on every turn gets the
 * same text back without storing anything (A1, A2).
 */

/** One tool result as a framework has it. */
export interface OffloadResultInput {
  threadId: string;
  /** The framework's tool call id (any string: reused, mangled or long ids are fine). */
  callId: string;
  toolName: string;
  content: string | readonly ContentPart[];
  /**
   * The read tools the model has in this request (read_file, grep…), for the header to name only
   * those; default all of `readTools()`. An empty list says the model cannot read the result back.
   */
  readTools?: readonly string[];
}

/** What the model should see instead of the result. */
export interface OffloadedResult {
  /** The text (one text part) followed by the result's non-text parts, in order. */
  content: ContentPart[];
  /** The model-facing text: the result's own, its replacement, or its cut with a note. */
  text: string;
  /** The stored result the text names (under /large_tool_results/); absent when it names none. */
  path?: string;
  /** Whether this call stored it. False within the threshold, when offered again, and when it could not be stored. */
  stored: boolean;
}

function checkInput(input: unknown): OffloadResultInput {
  if (typeof input !== 'object' || input === null) {
    throw new TypeError(
      `offloadResult: expected { threadId, callId, toolName, content }, got ${quoteForMessage(input)}`,
    );
  }
  const { threadId, callId, toolName } = input as Record<string, unknown>;
  checkThreadId(threadId);
  if (typeof callId !== 'string') {
    throw new TypeError(`offloadResult: callId must be a string, got ${quoteForMessage(callId)}`);
  }
  if (typeof toolName !== 'string' || toolName === '') {
    throw new TypeError(`offloadResult: toolName must be a non-empty string, got ${quoteForMessage(toolName)}`);
  }
  return input as OffloadResultInput;
}

function readToolsOf(readTools: unknown): readonly string[] | undefined {
  if (readTools === undefined) return undefined;
  if (!Array.isArray(readTools) || readTools.some((name) => typeof name !== 'string')) {
    throw new TypeError(`offloadResult: readTools must be an array of tool names, got ${quoteForMessage(readTools)}`);
  }
  return readTools;
}

/** A tag for what one call stages, so a failed commit deletes its own staged copy and nothing else. */
function stagingTag(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(9));
  return `offload-${Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}

/** The replacement of a result stored before, byte for byte: its preview while live, else made again as it was made. */
function shownAgain(
  content: ContentPart[],
  text: string,
  key: string,
  seen: SeenResult,
  limits: AppliedLimits,
): OffloadedResult {
  // Made with the offload's tail and measure, which the store does not record.
  const again = {
    ...seen,
    previewTailLines: limits.previewTailLines,
    measure: limits.measure,
    readTools: limits.readTools,
  };
  const preview = seen.preview ?? replacementFor(text, seen.toolName, key, again).preview;
  return { content: withText(content, preview), text: preview, path: resultPath(key), stored: false };
}

export async function offloadNow(
  store: WritableOffloadStore,
  limits: AppliedLimits,
  input: OffloadResultInput,
): Promise<OffloadedResult> {
  const { threadId, callId, toolName } = checkInput(input);
  limits = { ...limits, readTools: readToolsOf(input.readTools) };
  const content = toContent(input.content, `offloadResult: content of tool "${toolName}"`);
  const text = joinText(content);
  // Every call is an update of the thread: the age limit applies even when nothing is stored.
  const expiring = <T>(result: T) => expireAlone(store, threadId, limits.maxAgeMs).then(() => result);
  const tokens = (limits.measure ?? charsPerTokenMeasure).tokensOver(text, limits.thresholdTokens);
  if (tokens === undefined) return expiring({ content, text, stored: false });

  const key = await resultKeyFor(callId, text);
  const failed = async (error: unknown): Promise<OffloadedResult> => {
    const cut = notStoredDecision({ threadId, key, toolName }, content, text, limits, error);
    if (cut.failure) await reportStoreFailure(store, cut.failure);
    return { content: cut.content, text: joinText(cut.content), stored: false };
  };

  let before: SeenResult | undefined;
  try {
    before = await store.seen(threadId, key);
  } catch (error) {
    return failed(error);
  }
  if (before) return expiring(shownAgain(content, text, key, before, limits));

  const tag = stagingTag();
  const decision = await offloadToolResult(
    store,
    limits,
    { threadId, turnId: tag, key, toolName, args: undefined, content },
    tokens,
  );
  if (decision.kind !== 'stored') {
    if (decision.kind === 'cut' && decision.failure) await reportStoreFailure(store, decision.failure);
    return expiring({ content: decision.content, text: joinText(decision.content), stored: false });
  }
  const seen: SeenDetails = {
    toolName,
    thresholdTokens: limits.thresholdTokens,
    previewLines: limits.previewLines,
    maxResultBytes: limits.maxResultBytes,
  };
  try {
    const applied = await store.apply({
      type: 'commit',
      threadId,
      key,
      maxTotalBytes: limits.maxTotalBytes,
      seen,
      ...expiryOf(limits.maxAgeMs),
    });
    if (applied.stored.includes(key)) {
      return { content: decision.content, text: decision.preview, path: decision.path, stored: true };
    }
    // Not stored by this call: the same result offered at the same time was, first.
    const now = await store.seen(threadId, key);
    if (now) return shownAgain(content, text, key, now, limits);
    throw new Error('its staged copy was deleted before it could be committed');
  } catch (error) {
    // S3: nothing names the path, so the staged copy goes (a full quota leaves it otherwise).
    await store.settle(threadId, [tag]).catch(() => undefined);
    return failed(error);
  }
}

/**
 * Evicts the thread's results older than `maxAgeMs` on its own (a call that commits nothing). A
 * store failure here never fails the call (S3): the next call on the thread tries again.
 */
async function expireAlone(store: WritableOffloadStore, threadId: string, maxAgeMs: number | undefined): Promise<void> {
  const { expireBefore } = expiryOf(maxAgeMs);
  if (expireBefore === undefined) return;
  await store.apply({ type: 'expire', threadId, before: expireBefore }).catch(() => undefined);
}
