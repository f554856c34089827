import { isRecord, quoteForMessage } from '../../shared/checks.js';
import { utf8Bytes } from '../../shared/text.js';
import type {
  ClearedResult,
  RecordedRequest,
  RequestChange,
  RequestParts,
  RequestResult,
  ShownAs,
  WritableOffloadStore,
} from '../../store/offload-store.js';
import type { TokenMeasure } from '../../tokens/token-measure.js';
import type { OffloadLimits, ResolvedContextBudget } from '../options.js';
import { readToolNames } from '../read-tools.js';
import { resultKeyFor } from '../result-identity.js';
import { readsFromMount, resultPath } from '../result-path.js';
import type { ReplacedResult, ShownTexts } from '../shown-texts.js';
import { reportStoreFailure, stagingTag, storeResult } from '../store-result.js';
import { clearedPointer } from './pointer.js';
import type {
  ContextEvent,
  ContextMessage,
  ContextReplacement,
  ContextRequest,
  ContextToolCall,
  ContextToolSpec,
  FittedContext,
} from './request.js';

// `ToolOutputOffload.fitContext`, the one pipeline every way in calls before each model call:
// measure the request (C1), classify its tool results, clear the oldest to fit the budget (C2–C5),
// cut previews when even that is not enough (C6), and record it in the thread's ledger (issue 24).

/** Texts whose token counts are kept, and their characters together: a long thread is measured again for nothing. */
const maxCachedTexts = 20_000;
const maxCachedChars = 32 * 1024 * 1024;

/**
 * Token counts by text, for the newest texts measured (least recently used go first): measuring a
 * thread's request again costs a lookup per text already seen, not a tokenization (issue 24).
 */
class TokenCounts {
  readonly #counts = new Map<string, number>();
  #chars = 0;

  constructor(readonly measure: TokenMeasure) {}

  /** The text's estimated tokens, rounded up (so the ledger's parts, each a sum of them, add up exactly). */
  of(text: string): number {
    const known = this.#counts.get(text);
    if (known !== undefined) {
      this.#counts.delete(text);
      this.#counts.set(text, known);
      return known;
    }
    const count = Math.ceil(this.measure.tokens(text));
    if (text.length > maxCachedChars / 8) return count; // a huge text would push out everything else
    this.#counts.set(text, count);
    this.#chars += text.length;
    while (this.#counts.size > maxCachedTexts || this.#chars > maxCachedChars) {
      const oldest = this.#counts.keys().next().value as string;
      this.#counts.delete(oldest);
      this.#chars -= oldest.length;
    }
    return count;
  }
}

/** A request, checked: what fitContext reads of each field is what it says. */
function checkRequest(request: unknown): ContextRequest {
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
const isResult = (message: ContextMessage): boolean => message.role === 'tool' && message.toolCallId !== '';

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
interface Slot {
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
  before?: Pick<Slot, 'shownAs' | 'text' | 'tokens' | 'wholeTokens' | 'path' | 'replaced'>;
  /** What it had been shown as before C6 cut it to its header. */
  uncut?: Pick<Slot, 'shownAs' | 'text' | 'tokens'>;
}

/**
 * Shows a result as what the offload replaced it by, when its text is exactly that preview or
 * the preview cut to its header (C6); whether it is. Any other text is the tool's own.
 */
function showAsReplaced(slot: Slot, replaced: ReplacedResult | undefined): boolean {
  if (replaced === undefined) return false;
  const shownAs = slot.text === replaced.preview ? 'preview' : slot.text === replaced.headerOnly ? 'cut' : undefined;
  if (shownAs === undefined) return false;
  Object.assign(slot, { shownAs, wholeTokens: replaced.originalTokens, path: replaced.path, replaced });
  return true;
}

/** A clearing this request makes, before it is recorded. */
type NewClearing = Omit<ClearedResult, 'threadId' | 'step' | 'at'>;

/** What fitContext needs of its ToolOutputOffload. */
interface FitterOptions {
  store: WritableOffloadStore;
  measure: TokenMeasure;
  budget: ResolvedContextBudget | undefined;
  limits: Readonly<OffloadLimits>;
  /** What the offload showed instead of results, as the calls that made it kept it. */
  shown: ShownTexts;
  /** Called with each key it stores (a result under the threshold, stored to be cleared, C3). */
  onStored: (threadId: string, key: string) => void;
}

/** The context budget's pipeline for one ToolOutputOffload: its caches and its ledger's queue. */
export class ContextFitter {
  readonly #options: FitterOptions;
  readonly #tokens: TokenCounts;
  /** Each thread's ledger writes not awaited, in order: the tail of its queue. */
  readonly #writes = new Map<string, Promise<unknown>>();

  constructor(options: FitterOptions) {
    this.#options = options;
    this.#tokens = new TokenCounts(options.measure);
  }

  async fit(input: ContextRequest): Promise<FittedContext> {
    const request = checkRequest(input);
    const { store, budget } = this.#options;
    const { threadId } = request;
    const tokens = (text: string) => this.#tokens.of(text);

    // C1: the system prompt and the tool specs, then every message but the results, then each result.
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

    // The thread's cleared results (C4), read only with a budget: an app without one sends every result as it is.
    let cleared = new Map<string, ClearedResult>();
    let storeWorks = budget !== undefined && typeof store.cleared === 'function';
    if (storeWorks) {
      try {
        cleared = new Map((await store.cleared(threadId)).map((record) => [record.toolCallId, record]));
      } catch {
        storeWorks = false; // S3: nothing new is cleared; what is known cleared cannot be shown as such either
      }
    }
    const slots = await this.#classify(request, cleared, lastAssistant);
    const fixed = system + messages;
    const total = () => fixed + slots.reduce((sum, slot) => sum + slot.tokens, 0);
    const tokensBefore = total();

    // C2–C5: clear the oldest results not protected until the request fits and enough is freed.
    const newly = new Map<Slot, NewClearing>();
    if (
      budget !== undefined &&
      storeWorks &&
      typeof store.recordRequest === 'function' &&
      tokensBefore > budget.maxRequestTokens
    ) {
      const keep = new Set(slots.slice(Math.max(0, slots.length - budget.keepRecentResults)));
      let freed = 0;
      for (const slot of slots) {
        if (total() <= budget.maxRequestTokens && freed >= budget.clearAtLeastTokens) break;
        if (slot.shownAs === 'pointer' || keep.has(slot) || slot.index > lastAssistant) continue;
        if (budget.excludeTools.includes(slot.message.toolName)) continue;
        const clearing = await this.#clear(request, slot, calls.get(slot.message.toolCallId));
        if (clearing === undefined) continue;
        const { text, tokens: shownTokens, shownAs, wholeTokens, path, replaced } = slot;
        Object.assign(slot, {
          before: { text, tokens: shownTokens, shownAs, wholeTokens, path, replaced },
          shownAs: 'pointer',
          text: clearing.pointer,
          tokens: tokens(clearing.pointer),
          path: clearing.path,
          replaced: undefined,
        });
        freed += shownTokens - slot.tokens;
        newly.set(slot, clearing);
      }
    }

    const at = Date.now();
    const events: ContextEvent[] = [];
    this.#cutPreviews(slots, fixed);
    if (newly.size > 0) {
      const change = this.#change(request, at, { system, messages }, slots, [...newly.values()]);
      let recorded: RecordedRequest | undefined;
      try {
        recorded = await this.#record(change, true);
      } catch (error) {
        console.warn('ToolOutputOffload: could not record the results cleared from the context', error);
      }
      if (recorded === undefined) {
        // S3: an unrecorded clearing would not stay cleared (C4); send those results as before, and write no ledger.
        for (const slot of slots) if (slot.uncut) Object.assign(slot, slot.uncut, { uncut: undefined });
        for (const slot of newly.keys()) Object.assign(slot, slot.before, { before: undefined });
        this.#cutPreviews(slots, fixed);
        newly.clear();
      } else {
        // Another tab may have cleared one first: its record is the one every later request shows (C4).
        const kept = new Map(recorded.cleared.map((record) => [record.toolCallId, record]));
        for (const slot of newly.keys()) {
          const record = kept.get(slot.message.toolCallId);
          if (record !== undefined && record.pointer !== slot.text) {
            Object.assign(slot, { text: record.pointer, tokens: tokens(record.pointer), path: record.path });
          }
        }
        events.push({
          type: 'context-cleared',
          threadId,
          paths: [...newly.keys()].flatMap((slot) => (slot.path === undefined ? [] : [slot.path])),
          tokensBefore,
          tokensAfter: total(),
        });
      }
    } else if (typeof store.recordRequest === 'function') {
      // Nothing new to keep: the ledger is written behind the model call, in order (issue 24's cost per call).
      this.#record(this.#change(request, at, { system, messages }, slots, []), false).catch(() => {});
    }

    const sent = total();
    if (budget !== undefined && sent > budget.maxRequestTokens) {
      events.push({ type: 'context-over-budget', threadId, tokens: sent, budget: budget.maxRequestTokens });
    }
    const replacements = new Map<number, ContextReplacement>();
    for (const slot of slots) {
      if (slot.shownAs === 'pointer')
        replacements.set(slot.index, { shownAs: 'pointer', text: slot.text, dropMedia: true });
      else if (slot.shownAs === 'cut' && slot.text !== slot.message.text) {
        replacements.set(slot.index, { shownAs: 'cut', text: slot.text, dropMedia: false });
      }
    }
    return { replacements, events, tokens: sent };
  }

  /** C6: with the request still over the budget, every preview (the newest too) is cut to its header. */
  #cutPreviews(slots: Slot[], fixed: number): void {
    const { budget } = this.#options;
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
        tokens: this.#tokens.of(headerOnly),
      });
    }
  }

  /** How each result of the request is shown before this request clears anything. */
  async #classify(
    request: ContextRequest,
    cleared: Map<string, ClearedResult>,
    lastAssistant: number,
  ): Promise<Slot[]> {
    const { shown } = this.#options;
    const slots: Slot[] = [];
    const results: Slot[] = [];
    for (const [index, message] of request.messages.entries()) {
      if (message.role !== 'tool' || !isResult(message)) continue;
      const record = cleared.get(message.toolCallId);
      // A result after the last assistant message was never cleared (C5): its id is another result's, reused.
      if (record !== undefined && index < lastAssistant) {
        const tokens = this.#tokens.of(record.pointer);
        slots.push({
          index,
          message,
          shownAs: 'pointer',
          text: record.pointer,
          tokens,
          wholeTokens: record.tokens,
          path: record.path,
        });
        continue;
      }
      const tokens = this.#tokens.of(message.text);
      const slot: Slot = { index, message, shownAs: 'whole', text: message.text, tokens, wholeTokens: tokens };
      slots.push(slot);
      const cutFrom = shown.cutTokens(message.text);
      if (cutFrom !== undefined) Object.assign(slot, { shownAs: 'cut', wholeTokens: cutFrom });
      else results.push(slot);
    }
    const replaced = await shown.replacedResults(
      request.threadId,
      results.map((slot) => slot.message),
    );
    for (const [i, slot] of results.entries()) showAsReplaced(slot, replaced[i]);
    return slots;
  }

  /**
   * Clears one result (C2, C3): its pointer, after storing it when it has no path yet (a result
   * shown whole or cut). Undefined when it cannot be: no pointer frees anything, it cannot be
   * stored whole, or the store fails (S3) — never a pointer to a path that does not exist.
   */
  async #clear(
    request: ContextRequest,
    slot: Slot,
    call: ContextToolCall | undefined,
  ): Promise<NewClearing | undefined> {
    const { message } = slot;
    const { measure, limits } = this.#options;
    const facts = { toolName: message.toolName, mediaParts: message.mediaParts ?? 0, readTools: request.readTools };
    const isPage = (readToolNames as readonly string[]).includes(message.toolName) || readsFromMount(call?.args);
    const base = { toolCallId: message.toolCallId, toolName: message.toolName, tokens: slot.wholeTokens };
    if (slot.replaced !== undefined) {
      const { path, originalTokens } = slot.replaced;
      const pointer = clearedPointer({ ...facts, path, tokens: originalTokens }, measure);
      return pointer !== undefined && this.#tokens.of(pointer) < slot.tokens ? { ...base, path, pointer } : undefined;
    }
    const bytes = utf8Bytes(slot.text);
    if (isPage) {
      // O11: a file tool's page is never stored again; its pointer names the call to repeat.
      const pointer = clearedPointer({ ...facts, tokens: slot.tokens, args: call?.args }, measure);
      return pointer !== undefined && this.#tokens.of(pointer) < slot.tokens ? { ...base, pointer } : undefined;
    }
    // Stored whole or not at all: a stored copy cut to maxResultBytes would not read back as the result.
    if (bytes > limits.maxResultBytes) return undefined;
    const key = await resultKeyFor(message.toolCallId, slot.text);
    const path = resultPath(key);
    const pointer = clearedPointer({ ...facts, path, tokens: slot.tokens }, measure);
    if (pointer === undefined || this.#tokens.of(pointer) >= slot.tokens) return undefined;
    if (!(await this.#store(request, slot, key, pointer))) return undefined;
    return { ...base, path, pointer };
  }

  /**
   * Stores a result to clear it (C3), as any stored result: staged, then committed within the
   * thread's bound (its oldest evicted, O3), tagged with the turn so an output Block takes it back (C7).
   */
  async #store(request: ContextRequest, slot: Slot, key: string, pointer: string): Promise<boolean> {
    const { store, limits, measure, onStored } = this.#options;
    const { threadId, turnId } = request;
    try {
      const [live] = await store.list(threadId, { keys: [key] });
      if (live?.key === key && live.threadId === threadId) return true; // stored already (another tab, an earlier try)
    } catch {
      return false; // S3: not cleared
    }
    const { toolCallId, toolName } = slot.message;
    const toStore = { threadId, key, toolCallId, toolName, text: slot.text, tokens: slot.tokens, shown: pointer };
    const outcome = await storeResult(
      store,
      { ...limits, measure },
      { ...toStore, turnId: turnId ?? stagingTag() },
      { now: turnId === undefined ? {} : { turnId } },
    );
    // S3: not cleared; the failure is recorded (storeResult), and a staging of its own is deleted.
    if (outcome.stored === undefined) return false;
    if (!outcome.applied?.stored.includes(key)) {
      const failed = { threadId, key, toolName, bytes: utf8Bytes(slot.text) };
      await reportStoreFailure(store, failed, 'its staged copy was gone before it was committed');
      return false;
    }
    onStored(threadId, key);
    return true;
  }

  /** The request's ledger record and its new clearings: tokens by part, each result as shown, never any text. */
  #change(
    request: ContextRequest,
    at: number,
    measured: { system: number; messages: number },
    slots: readonly Slot[],
    cleared: NewClearing[],
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
    const { budget } = this.#options;
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
   * Writes one request's change after the thread's earlier ones (a queue per thread, so steps are
   * numbered in order). `wait`: the caller awaits it and sees its failure; otherwise a failure is
   * only logged (S3).
   */
  #record(change: RequestChange, wait: boolean): Promise<RecordedRequest> {
    const { store } = this.#options;
    const { threadId } = change;
    const write = (this.#writes.get(threadId) ?? Promise.resolve()).then(() => store.recordRequest(change));
    const tail = write.catch((error) => {
      if (!wait) console.warn('ToolOutputOffload: could not write the context ledger', error);
    });
    this.#writes.set(threadId, tail);
    void tail.then(() => {
      if (this.#writes.get(threadId) === tail) this.#writes.delete(threadId);
    });
    return write;
  }
}
