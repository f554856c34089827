import { checkOptionNames, checkThreadId, quoteForMessage } from '../shared/checks.js';
import { type ContentPart, resultText, toContent } from '../shared/content.js';
import { utf8Bytes } from '../shared/text.js';
import type { SeenResult, WritableOffloadStore } from '../store/offload-store.js';
import { failedOutcome, type OffloadedResult, withText } from './offloaded-result.js';
import { checkReadTools } from './read-tools.js';
import { resultKeyFor } from './result-identity.js';
import { resultPath } from './result-path.js';
import type { ShownTexts } from './shown-texts.js';
import {
  type AppliedLimits,
  expiryOf,
  replacementFor,
  reportStoreFailure,
  stagingTag,
  storeResult,
} from './store-result.js';

// `ToolOutputOffload.offloadResult`: the pipeline in one call, for an agent framework with no
// commit step of its own. The store remembers what it stored, so a framework that converts old
// results again on every turn gets the same text back without storing anything (A1, A2).

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

function checkInput(input: unknown): OffloadResultInput {
  if (typeof input !== 'object' || input === null) {
    throw new TypeError(
      `offloadResult: expected { threadId, callId, toolName, content }, got ${quoteForMessage(input)}`,
    );
  }
  checkOptionNames('offloadResult', input, ['threadId', 'callId', 'toolName', 'content', 'readTools']);
  const { threadId, callId, toolName, readTools } = input as Record<string, unknown>;
  checkThreadId(threadId);
  if (typeof callId !== 'string') {
    throw new TypeError(`offloadResult: callId must be a string, got ${quoteForMessage(callId)}`);
  }
  if (typeof toolName !== 'string' || toolName === '') {
    throw new TypeError(`offloadResult: toolName must be a non-empty string, got ${quoteForMessage(toolName)}`);
  }
  checkReadTools(readTools, 'offloadResult');
  return input as OffloadResultInput;
}

/**
 * The replacement of a result stored before, byte for byte: its preview while live (the entry
 * keeps what the budget needs of it), else made again as it was made, and remembered.
 */
function shownAgain(
  result: { threadId: string; callId: string; content: ContentPart[]; text: string },
  key: string,
  seen: SeenResult,
  limits: AppliedLimits,
  shown: ShownTexts | undefined,
): OffloadedResult {
  const { content, text } = result;
  const path = resultPath(key);
  let preview = seen.preview;
  if (preview === undefined) {
    // Made with the offload's tail, measure and read tools, which the store does not record.
    const again = replacementFor(text, seen.toolName, key, { ...limits, ...seen });
    preview = again.preview.text;
    const { headerOnly } = again.preview;
    shown?.replaced(result.threadId, result.callId, {
      key,
      path,
      preview,
      headerOnly,
      originalTokens: again.originalTokens,
    });
  }
  return { kind: 'stored', stored: false, path, content: withText(content, preview), text: preview };
}

/** Decides, stages and commits one result (with its evictions), checking the input first. */
export async function offloadResult(
  store: WritableOffloadStore,
  limitsOf: (toolName: string) => AppliedLimits,
  input: OffloadResultInput,
  shown: ShownTexts | undefined,
): Promise<OffloadedResult> {
  const { threadId, callId, toolName, readTools } = checkInput(input);
  const limits = { ...limitsOf(toolName), readTools };
  const content = toContent(input.content, `offloadResult: content of tool "${toolName}"`);
  const text = resultText(content);
  const tokens = limits.measure.tokensOver(text, limits.thresholdTokens);
  if (tokens === undefined) {
    // Every call is an update of the thread: the age limit applies even when nothing is stored.
    await expireAlone(store, threadId, limits.maxAgeMs);
    return { kind: 'kept', stored: false, content, text };
  }

  const key = await resultKeyFor(callId, text);
  const result = { content, text };
  const failed = { threadId, key, toolName, bytes: utf8Bytes(text) };
  let before: SeenResult | undefined;
  try {
    before = await store.seen(threadId, key);
  } catch (error) {
    return failedOutcome(result, limits, await reportStoreFailure(store, failed, error), shown);
  }
  if (before) {
    await expireAlone(store, threadId, limits.maxAgeMs);
    return shownAgain({ threadId, callId, content, text }, key, before, limits, shown);
  }

  const { thresholdTokens, previewLines, maxResultBytes } = limits;
  const seen = { toolName, thresholdTokens, previewLines, maxResultBytes };
  const toStore = { threadId, key, toolCallId: callId, toolName, text, tokens, turnId: stagingTag() };
  const outcome = await storeResult(store, limits, toStore, { now: { seen } });
  if (outcome.stored === undefined) {
    await expireAlone(store, threadId, limits.maxAgeMs);
    return failedOutcome(result, limits, outcome, shown);
  }
  const { stored, applied } = outcome;
  if (applied?.stored.includes(key)) {
    shown?.replaced(threadId, callId, stored);
    return {
      kind: 'stored',
      stored: true,
      path: stored.path,
      content: withText(content, stored.preview),
      text: stored.preview,
    };
  }
  // Not stored by this call: the same result offered at the same time was, first.
  try {
    const now = await store.seen(threadId, key);
    if (now) return shownAgain({ threadId, callId, content, text }, key, now, limits, shown);
    throw new Error('its staged copy was deleted before it could be committed');
  } catch (error) {
    return failedOutcome(result, limits, await reportStoreFailure(store, failed, error), shown);
  }
}

/**
 * Evicts the thread's results older than `maxAgeMs` on its own (a call that commits nothing). A
 * store failure here never fails the call (S3): the next call on the thread tries again.
 */
async function expireAlone(store: WritableOffloadStore, threadId: string, maxAgeMs: number | undefined): Promise<void> {
  const { expireBefore } = expiryOf(maxAgeMs);
  if (expireBefore === undefined) return;
  try {
    await store.apply({ type: 'expire', threadId, before: expireBefore });
  } catch {}
}
