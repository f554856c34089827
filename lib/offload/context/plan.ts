import { isRecord, quoteForMessage } from '../../shared/checks.js';
import { isIdempotencyKey } from '../../shared/ids.js';
import type { ClearedResult, RequestChange, RequestParts, RequestResult, ShownAs } from '../../store/offload-store.js';
import { offloadMount } from '../result-path.js';
import type { ReplacedResult } from '../shown-texts.js';
import {
  maxListedPathTokens,
  maxPointerTokens,
  maxStubTokens,
  mergedCallStub,
  mergedListing,
  mergedStub,
} from '../words.js';
import type {
  ContextMessage,
  ContextReplacement,
  ContextRequest,
  ContextToolCall,
  ContextToolSpec,
  ResolvedContextBudget,
} from './request.js';

// The budget's plan for one request, as pure functions of the request, the budget and what the
// store said (the results cleared before, what the offload replaced): measuring it (C1), which
// results may be cleared (C5), cutting previews to their headers (C6), the oldest pointers merged
// (C10), the replacements to send and the ledger's record. No store here: fit.ts reads and writes around it.

/** A request, checked: what fitContext reads of each field is what it says. */
export function checkRequest(request: unknown): ContextRequest {
  const fail = (field: string, what: string, value: unknown): never => {
    throw new TypeError(`fitContext: request.${field} must be ${what}, got ${quoteForMessage(value)}`);
  };
  if (!isRecord(request)) fail('', 'an object { threadId, system, tools, messages }', request);
  const { threadId, turnId, system, tools, messages, readTools } = request as Record<string, unknown>;
  if (typeof threadId !== 'string' || threadId === '') fail('threadId', 'a non-empty string', threadId);
  if (turnId !== undefined && (typeof turnId !== 'string' || turnId === ''))
    fail('turnId', 'a non-empty string', turnId);
  if (typeof system !== 'string') fail('system', 'a string', system);
  if (!Array.isArray(tools)) fail('tools', 'an array of { name, description?, parameters? }', tools);
  for (const [i, tool] of (tools as unknown[]).entries()) checkToolSpec(tool, `tools[${i}]`, fail);
  if (!Array.isArray(messages)) fail('messages', 'an array of messages', messages);
  for (const [i, message] of (messages as unknown[]).entries()) checkMessage(message, `messages[${i}]`, fail);
  if (readTools !== undefined && (!Array.isArray(readTools) || readTools.some((name) => typeof name !== 'string'))) {
    fail('readTools', 'an array of tool names', readTools);
  }
  return request as unknown as ContextRequest;
}

type Fail = (field: string, what: string, value: unknown) => never;

function checkToolSpec(tool: unknown, at: string, fail: Fail): asserts tool is ContextToolSpec {
  if (!isRecord(tool)) fail(at, 'an object { name, description?, parameters? }', tool);
  const { name, description } = tool as Record<string, unknown>;
  if (typeof name !== 'string') fail(`${at}.name`, 'a string', name);
  if (description !== undefined && typeof description !== 'string') fail(`${at}.description`, 'a string', description);
}

/**
 * Whether a message is a tool result the budget can clear and the ledger can name. One whose call
 * had no id (a provider or a model that gives none) has nothing to record its clearing under (C4):
 * it counts with the messages and is sent as it is.
 */
export const isResult = (message: ContextMessage): boolean => message.role === 'tool' && message.toolCallId !== '';

function checkMessage(message: unknown, at: string, fail: Fail): asserts message is ContextMessage {
  if (!isRecord(message)) fail(at, 'an object { role, text, … }', message);
  const m = message as Record<string, unknown>;
  if (m.role === 'tool') {
    if (typeof m.toolCallId !== 'string') fail(`${at}.toolCallId`, 'a string', m.toolCallId);
    if (typeof m.toolName !== 'string') fail(`${at}.toolName`, 'a string', m.toolName);
    if (typeof m.text !== 'string') fail(`${at}.text`, 'a string', m.text);
    const media = m.mediaParts;
    if (media !== undefined && (typeof media !== 'number' || !Number.isSafeInteger(media) || media < 0)) {
      fail(`${at}.mediaParts`, 'an integer ≥ 0', media);
    }
    return;
  }
  if (m.role !== 'system' && m.role !== 'user' && m.role !== 'assistant') {
    fail(`${at}.role`, "'system', 'user', 'assistant' or 'tool'", m.role);
  }
  if (typeof m.text !== 'string') fail(`${at}.text`, 'a string', m.text);
  if (m.toolCalls === undefined) return;
  if (!Array.isArray(m.toolCalls)) fail(`${at}.toolCalls`, 'an array of { id, name, args }', m.toolCalls);
  for (const [i, call] of (m.toolCalls as unknown[]).entries()) {
    if (!isRecord(call)) fail(`${at}.toolCalls[${i}]`, 'an object { id, name, args }', call);
    const { id, name } = call as Record<string, unknown>;
    if (typeof id !== 'string') fail(`${at}.toolCalls[${i}].id`, 'a string', id);
    if (typeof name !== 'string') fail(`${at}.toolCalls[${i}].name`, 'a string', name);
  }
}

/** JSON as the request counts it; what cannot be written as JSON is a malformed request. */
function jsonOf(value: unknown, field: string): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch (error) {
    throw new TypeError(`fitContext: request.${field} cannot be written as JSON (${String(error)})`);
  }
}

type ResultMessage = Extract<ContextMessage, { role: 'tool' }>;

/** One tool result of the request, as it is shown. */
export interface ResultInRequest {
  /** Its index in the request's messages. */
  index: number;
  message: ResultMessage;
  shownAs: ShownAs;
  /** Its text as shown, and that text's tokens. */
  text: string;
  tokens: number;
  /** Its tokens had the offload not touched it (every result whole). */
  wholeTokens: number;
  path?: string;
  /** What the offload replaced the result by, when its text is that preview (shown whole, or cut to the header). */
  replaced?: ReplacedResult;
  /** What it had been shown as before a clearing this request made (to take the clearing back). */
  before?: Pick<ResultInRequest, 'shownAs' | 'text' | 'tokens' | 'wholeTokens' | 'path' | 'replaced'>;
  /** What it had been shown as before C6 cut it to its header. */
  uncut?: Pick<ResultInRequest, 'shownAs' | 'text' | 'tokens'>;
  /** Its own pointer, before C10 merged it (to take the merge back). */
  unmerged?: Pick<ResultInRequest, 'text' | 'tokens'>;
}

/**
 * Shows a result as what the offload replaced it by, when its text is exactly that preview or
 * the preview cut to its header (C6); whether it is. Any other text is the tool's own.
 */
export function showAsReplaced(slot: ResultInRequest, replaced: ReplacedResult | undefined): boolean {
  if (replaced === undefined) return false;
  const shownAs = slot.text === replaced.preview ? 'preview' : slot.text === replaced.headerOnly ? 'cut' : undefined;
  if (shownAs === undefined) return false;
  Object.assign(slot, { shownAs, wholeTokens: replaced.originalTokens, path: replaced.path, replaced });
  return true;
}

/**
 * C1: the system prompt and the tool specs, then every message but the results (their texts and
 * each tool call's arguments as JSON), in tokens; the calls by id and the last assistant message.
 */
export function measureRequest(request: ContextRequest, tokens: (text: string) => number) {
  let system = tokens(request.system);
  for (const [i, tool] of request.tools.entries()) {
    const { name, description, parameters } = tool;
    system += tokens(jsonOf({ name, description, parameters }, `tools[${i}]`));
  }
  let messages = 0;
  const calls = new Map<string, ContextToolCall>();
  let lastAssistant = -1;
  for (const [i, message] of request.messages.entries()) {
    if (isResult(message)) continue;
    if (message.role === 'assistant') lastAssistant = i;
    messages += tokens(message.text);
    if (message.role === 'tool') continue;
    for (const [j, call] of (message.toolCalls ?? []).entries()) {
      calls.set(call.id, call);
      messages += tokens(jsonOf(call.args ?? {}, `messages[${i}].toolCalls[${j}].args`));
    }
  }
  return { system, messages, calls, lastAssistant };
}

/**
 * C5: the results that may be cleared, oldest first: not a pointer already, not among the newest
 * `keepRecentResults`, not after the last assistant message, not of an excluded tool.
 */
export function clearable(
  slots: readonly ResultInRequest[],
  budget: ResolvedContextBudget,
  lastAssistant: number,
): ResultInRequest[] {
  const keep = new Set(slots.slice(Math.max(0, slots.length - budget.keepRecentResults)));
  return slots.filter(
    (slot) =>
      slot.shownAs !== 'pointer' &&
      !keep.has(slot) &&
      slot.index <= lastAssistant &&
      !budget.excludeTools.includes(slot.message.toolName),
  );
}

/** C6: with the request still over the budget, every preview (the newest too) is cut to its header. */
export function cutPreviewsToHeaders(
  slots: ResultInRequest[],
  fixed: number,
  budget: ResolvedContextBudget | undefined,
  tokensOf: (text: string) => number,
): void {
  if (budget === undefined) return;
  const total = () => fixed + slots.reduce((sum, slot) => sum + slot.tokens, 0);
  if (total() <= budget.maxRequestTokens) return;
  for (const slot of slots) {
    const headerOnly = slot.replaced?.headerOnly;
    if (slot.shownAs !== 'preview' || headerOnly === undefined || headerOnly === slot.text) continue;
    const { shownAs, text, tokens } = slot;
    Object.assign(slot, {
      uncut: { shownAs, text, tokens },
      shownAs: 'cut',
      text: headerOnly,
      tokens: tokensOf(headerOnly),
    });
  }
}

/** What to send instead of each result shown otherwise than as it is: a pointer (its media dropped) or its cut. */
export function replacementsOf(slots: readonly ResultInRequest[]): Map<number, ContextReplacement> {
  const replacements = new Map<number, ContextReplacement>();
  for (const slot of slots) {
    if (slot.shownAs === 'pointer')
      replacements.set(slot.index, { shownAs: 'pointer', text: slot.text, dropMedia: true });
    else if (slot.shownAs === 'cut' && slot.text !== slot.message.text) {
      replacements.set(slot.index, { shownAs: 'cut', text: slot.text, dropMedia: false });
    }
  }
  return replacements;
}

/** A clearing this request makes, before it is recorded. */
export type NewClearing = Omit<ClearedResult, 'threadId' | 'step' | 'at'>;

/** The request's ledger record and its new clearings: tokens by part, each result as shown, never any text. */
export function ledgerChange(
  request: ContextRequest,
  at: number,
  measured: { system: number; messages: number },
  slots: readonly ResultInRequest[],
  cleared: NewClearing[],
  budget: ResolvedContextBudget | undefined,
): RequestChange {
  const parts: RequestParts = {
    system: measured.system,
    messages: measured.messages,
    whole: 0,
    previews: 0,
    pointers: 0,
    cut: 0,
  };
  const partOf = { whole: 'whole', preview: 'previews', pointer: 'pointers', cut: 'cut' } as const;
  const results: RequestResult[] = [];
  let withoutOffload = measured.system + measured.messages;
  for (const slot of slots) {
    parts[partOf[slot.shownAs]] += slot.tokens;
    withoutOffload += slot.wholeTokens;
    const { toolCallId, toolName } = slot.message;
    const path = slot.path === undefined ? {} : { path: slot.path };
    results.push({ toolCallId, toolName, ...path, shownAs: slot.shownAs, tokens: slot.tokens });
  }
  const tokens = Object.values(parts).reduce((sum, part) => sum + part, 0);
  const record = {
    tokens,
    tokensWithoutOffload: withoutOffload,
    ...(budget === undefined ? {} : { budget: budget.maxRequestTokens }),
    parts,
    results,
  };
  const turn = request.turnId === undefined ? {} : { turnId: request.turnId };
  return { threadId: request.threadId, ...turn, at, record, cleared };
}

/**
 * The sizes of C10's blocks, largest first: the oldest cleared results are merged ten at a time as
 * they are cleared, and every fifty in one block (one listing's words for fifty paths, not five).
 */
export const mergeBlockSizes = [50, 10] as const;

/**
 * C10: how many of a thread's cleared results its requests show as their own pointers before the
 * oldest are merged: their pointers, at C2's bound, within a 64th of the budget (2 for 8,000, 33
 * for 128,000).
 */
export function pointerRoom(budget: ResolvedContextBudget): number {
  return Math.floor(budget.maxRequestTokens / 64 / maxPointerTokens);
}

/** A cleared result as C10 orders them: the thread's records in the order it cleared them. */
export type ClearedInOrder = Pick<ClearedResult, 'toolCallId' | 'path'>;

/** The key a cleared path names under the mount, when it has a key's shape (at most 64 safe characters). */
function listedKey(path: string | undefined): string | undefined {
  if (path === undefined || !path.startsWith(offloadMount)) return undefined;
  const key = path.slice(offloadMount.length);
  return isIdempotencyKey(key) ? key : undefined;
}

/** Whether a cleared result can be merged (C10): a path that is not a key under the mount cannot be listed. */
export function isMergeable(record: ClearedInOrder): boolean {
  return record.path === undefined || listedKey(record.path) !== undefined;
}

/** A block of C10: its first result's place in the thread's mergeable clearings, and how many it holds. */
type Block = readonly [start: number, size: number];

/** C10's blocks over `count` mergeable clearings past the room, oldest first: as many of the largest size as fill, then of the next. */
function blocksOf(count: number): Block[] {
  const blocks: Block[] = [];
  let start = 0;
  for (const size of mergeBlockSizes) {
    for (; count - start >= size; start += size) blocks.push([start, size]);
  }
  return blocks;
}

/** How many of a thread's `mergeable` cleared results (`isMergeable`) C10's blocks hold. */
export function mergedResults(mergeable: number, budget: ResolvedContextBudget): number {
  const count = Math.max(0, mergeable - pointerRoom(budget));
  return count - (count % mergeBlockSizes.at(-1)!);
}

/** Takes back every merge (C10): each merged result shows its own pointer again. */
export function unmergePointers(slots: readonly ResultInRequest[]): void {
  for (const slot of slots) if (slot.unmerged) Object.assign(slot, slot.unmerged, { unmerged: undefined });
}

/**
 * C10: the oldest pointers merged, in blocks (`mergeBlockSizes`) of the thread's cleared results in
 * `order` (the order the thread cleared them), past `pointerRoom`. Each block is the same in every
 * request that has it, whatever else the request holds; it is merged only when every result of it
 * is shown as its own pointer and none is protected (C5), its span of the request overlaps no block
 * merged before it (each stub is the nearest listing's above it), its texts within their bounds and
 * smaller than the pointers they replace; a large block that cannot be is tried as its smaller ones.
 * A result with a path is listed (the first in the request holds the listing, each other is
 * `mergedStub`); one without (a file tool's page) is `mergedCallStub`. Any merge made before is
 * taken back first.
 */
export function mergePointers(
  slots: readonly ResultInRequest[],
  order: readonly ClearedInOrder[],
  budget: ResolvedContextBudget | undefined,
  lastAssistant: number,
  readTools: readonly string[] | undefined,
  tokensOf: (text: string) => number,
): void {
  unmergePointers(slots);
  if (budget === undefined) return;
  const mergeable = order.filter(isMergeable);
  const blocks = blocksOf(Math.max(0, mergeable.length - pointerRoom(budget)));
  if (blocks.length === 0) return;
  const kept = new Set(slots.slice(Math.max(0, slots.length - budget.keepRecentResults)));
  const nameOf = (toolCallId: string, path: string | undefined) => `${toolCallId}\n${path ?? ''}`;
  /** Each pointer by its cleared record (tool call id and path); the first, when a result is repeated. */
  const pointers = new Map<string, ResultInRequest>();
  for (const slot of slots) {
    const name = nameOf(slot.message.toolCallId, slot.path);
    if (slot.shownAs === 'pointer' && !pointers.has(name)) pointers.set(name, slot);
  }
  const [stubTokens, callStubTokens] = [tokensOf(mergedStub), tokensOf(mergedCallStub)];
  if (stubTokens > maxStubTokens || callStubTokens > maxStubTokens) return;
  /** The request's span of each block merged: a stub belongs to the nearest listing above it, so spans never overlap. */
  const spans: Array<[number, number]> = [];
  /** Merges one block; whether it could. */
  const mergeBlock = ([start, size]: Block): boolean => {
    const members: ResultInRequest[] = [];
    for (const record of mergeable.slice(start, start + size)) {
      const slot = pointers.get(nameOf(record.toolCallId, record.path));
      if (slot === undefined) return false;
      members.push(slot);
    }
    const protectedOne = members.some(
      (slot) => kept.has(slot) || slot.index > lastAssistant || budget.excludeTools.includes(slot.message.toolName),
    );
    if (protectedOne) return false;
    members.sort((a, b) => a.index - b.index);
    const span: [number, number] = [members[0]!.index, members.at(-1)!.index];
    if (spans.some(([from, to]) => span[0] <= to && from <= span[1])) return false;
    const listed = members.filter((slot) => slot.path !== undefined);
    const listing =
      listed.length === 0
        ? undefined
        : mergedListing(
            {
              keys: listed.map((slot) => listedKey(slot.path)!),
              tokens: listed.reduce((sum, slot) => sum + slot.wholeTokens, 0),
              mediaParts: listed.reduce((sum, slot) => sum + (slot.message.mediaParts ?? 0), 0),
              ...(readTools === undefined ? {} : { readTools }),
            },
            offloadMount,
          );
    const listingTokens = listing === undefined ? 0 : tokensOf(listing);
    if (listingTokens > maxPointerTokens + listed.length * maxListedPathTokens) return false;
    const merged =
      listingTokens + stubTokens * Math.max(0, listed.length - 1) + callStubTokens * (size - listed.length);
    if (merged >= members.reduce((sum, slot) => sum + slot.tokens, 0)) return false;
    spans.push(span);
    for (const slot of members) {
      const text = slot.path === undefined ? mergedCallStub : slot === listed[0] ? listing! : mergedStub;
      const tokens = text === listing ? listingTokens : text === mergedStub ? stubTokens : callStubTokens;
      Object.assign(slot, { unmerged: { text: slot.text, tokens: slot.tokens }, text, tokens });
    }
    return true;
  };
  const smaller = (size: number) => mergeBlockSizes.find((other) => other < size);
  const tryBlock = ([start, size]: Block): void => {
    if (mergeBlock([start, size])) return;
    const part = smaller(size);
    if (part !== undefined) for (let at = start; at < start + size; at += part) tryBlock([at, part]);
  };
  for (const block of blocks) tryBlock(block);
}
