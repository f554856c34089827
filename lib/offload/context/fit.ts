import { utf8Bytes } from '../../shared/text.js';
import type {
  ClearedResult,
  ContextLedgerStore,
  RecordedRequest,
  RequestChange,
  RequestRecord,
  WritableOffloadStore,
} from '../../store/offload-store.js';
import type { TokenMeasure } from '../../tokens/token-measure.js';
import type { OffloadLimits } from '../options.js';
import { readToolNames } from '../read-tools.js';
import { resultKeyFor } from '../result-identity.js';
import { readsFromMount, resultPath } from '../result-path.js';
import type { ShownTexts } from '../shown-texts.js';
import { stagingTag, storeResult } from '../store-result.js';
import { clearedPointer } from '../words.js';
import {
  calibratedBudget,
  calibrationEvent,
  calibrationFactor,
  calibrationRecords,
  type MeasuredRequest,
  newestReported,
  previousFactor,
  type ReportedRequest,
} from './calibration.js';
import {
  type ClearedInOrder,
  checkRequest,
  clearable,
  cutPreviewsToHeaders,
  isMergeable,
  isResult,
  ledgerChange,
  measureRequest,
  mergedResults,
  mergePointers,
  type NewClearing,
  type ResultInRequest,
  replacementsOf,
  showAsReplaced,
  unmergePointers,
} from './plan.js';
import type { ContextEvent, ContextRequest, ContextToolCall, FittedContext, ResolvedContextBudget } from './request.js';
import { usageReporter } from './usage.js';

// `ToolOutputOffload.fitContext`, the one pipeline every way in calls before each model call: the
// store's side around the plan (plan.ts): read what was cleared before and what replaced each
// result, store a result it clears (C3), record the request in the thread's ledger, and take the
// clearing back when that record fails (S3).

/** Texts each cache keeps, and their characters together: a long thread is measured again for nothing. */
const maxCachedTexts = 20_000;
const maxCachedChars = 32 * 1024 * 1024;

/**
 * Values by text, for the newest texts (least recently used go first, bounded by count and
 * characters): measuring a thread's request again costs a lookup per text already seen.
 */
class TextCache<V> {
  readonly #values = new Map<string, V>();
  #chars = 0;

  get(text: string): V | undefined {
    const known = this.#values.get(text);
    if (known !== undefined) {
      this.#values.delete(text);
      this.#values.set(text, known);
    }
    return known;
  }

  set(text: string, value: V): void {
    if (text.length > maxCachedChars / 8) return; // a huge text would push out everything else
    if (!this.#values.delete(text)) this.#chars += text.length;
    this.#values.set(text, value);
    while (this.#values.size > maxCachedTexts || this.#chars > maxCachedChars) {
      const oldest = this.#values.keys().next().value as string;
      this.#values.delete(oldest);
      this.#chars -= oldest.length;
    }
  }
}

/** Token counts by text: a thread's request measured again costs a lookup per text, not a tokenization. */
class TokenCounts {
  readonly #counts = new TextCache<number>();

  constructor(readonly measure: TokenMeasure) {}

  /** The text's estimated tokens, rounded up (so the ledger's parts, each a sum of them, add up exactly). */
  of(text: string): number {
    const known = this.#counts.get(text);
    if (known !== undefined) return known;
    const count = Math.ceil(this.measure.tokens(text));
    this.#counts.set(text, count);
    return count;
  }
}

/**
 * The key `resultKeyFor` gives each result (its tool call id and text), by text: every request
 * checks each cleared record against its result (C4), and hashing them all again would not do.
 */
class ResultKeys {
  readonly #keys = new TextCache<{ toolCallId: string; key: string }>();

  async of({ toolCallId, text }: { toolCallId: string; text: string }): Promise<string> {
    const known = this.#keys.get(text);
    if (known?.toolCallId === toolCallId) return known.key;
    const key = await resultKeyFor(toolCallId, text);
    this.#keys.set(text, { toolCallId, key });
    return key;
  }
}

/** What fitContext needs of its ToolOutputOffload. */
export interface FitterOptions {
  store: WritableOffloadStore;
  /** The store's ledger, checked once when the offload was made: what was cleared, and where each request is recorded. */
  ledger: ContextLedgerStore;
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
  readonly #keys = new ResultKeys();
  /** Each thread's ledger writes not awaited, in order: the tail of its queue. */
  readonly #writes = new Map<string, Promise<unknown>>();

  constructor(options: FitterOptions) {
    this.#options = options;
    this.#tokens = new TokenCounts(options.measure);
  }

  async fit(input: ContextRequest): Promise<FittedContext> {
    const request = checkRequest(input);
    const { ledger, budget } = this.#options;
    const { threadId } = request;
    const tokens = (text: string) => this.#tokens.of(text);

    const { system, messages, calls, lastAssistant } = measureRequest(request, tokens);

    // The thread's cleared results (C4), read only with a budget: an app without one sends every result as it is.
    let cleared = new Map<string, ClearedResult>();
    let storeWorks = budget !== undefined;
    if (storeWorks) {
      try {
        cleared = new Map((await ledger.cleared(threadId)).map((record) => [record.toolCallId, record]));
      } catch {
        storeWorks = false; // S3: nothing new is cleared; what is known cleared cannot be shown as such either
      }
    }
    const slots = await this.#classify(request, cleared, lastAssistant);
    const calibration = budget?.calibrate === true ? await this.#calibration(threadId) : undefined;
    const factor = calibration?.factor;
    const fixed = system + messages;
    const total = () => fixed + slots.reduce((sum, slot) => sum + slot.tokens, 0);
    // C10: the thread's clearings in the order it made them, this request's last (as the store ranks them).
    // The room for pointers is the budget as given, not as calibrated: the merged texts stay the same
    // while the calibration moves (C4).
    const merge = (order: readonly ClearedInOrder[]) =>
      mergePointers(slots, order, budget, lastAssistant, request.readTools, tokens);
    // Merged before measuring: whether to clear more is decided on the request as it would be sent.
    merge([...cleared.values()]);
    let mergeable = [...cleared.values()].filter(isMergeable).length;
    // C9: the budget in estimated tokens that keeps the request within maxRequestTokens as the provider counts,
    // from the request as it stands (its old pointers merged) against the newest one the provider counted.
    const asShown: MeasuredRequest = {
      system,
      messages,
      results: slots.map((slot) => ({
        toolCallId: slot.message.toolCallId,
        shownAs: slot.shownAs,
        tokens: slot.tokens,
      })),
    };
    const fitTo =
      budget === undefined
        ? undefined
        : calibratedBudget(budget, factor ?? 1, factor === undefined ? undefined : calibration?.newest, asShown);
    const tokensBefore = total();

    // C2–C5: clear the oldest results not protected until the request fits and enough is freed.
    const clearedNow = new Map<ResultInRequest, NewClearing>();
    if (fitTo !== undefined && storeWorks && tokensBefore > fitTo.maxRequestTokens) {
      let freed = 0;
      // The store keeps one record a tool call id (the first): a result whose id another result's
      // record holds (a reused id) cannot stay cleared (C4), so it is shown as it is.
      const takenIds = new Set(cleared.keys());
      for (const slot of clearable(slots, fitTo, lastAssistant)) {
        if (total() <= fitTo.maxRequestTokens && freed >= fitTo.clearAtLeastTokens) break;
        if (takenIds.has(slot.message.toolCallId)) continue;
        takenIds.add(slot.message.toolCallId);
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
        clearedNow.set(slot, clearing);
        // A clearing that fills a block merges it (C10): the request is then smaller than its pointers say.
        if (isMergeable(clearing) && mergedResults(++mergeable, budget!) > mergedResults(mergeable - 1, budget!)) {
          merge([...cleared.values(), ...clearedNow.values()]);
        }
      }
    }

    const at = Date.now();
    const events: ContextEvent[] = [];
    if (budget !== undefined && calibration !== undefined) {
      const moved = calibrationEvent(threadId, budget, calibration.previous, factor ?? 1);
      if (moved !== undefined) events.push(moved);
    }
    /** The request's ledger record: the estimate as measured, and the factor it was fitted with (C9). */
    const changeOf = (newlyCleared: NewClearing[]): RequestChange => {
      const change = ledgerChange(request, at, { system, messages }, slots, newlyCleared, budget);
      return factor === undefined ? change : { ...change, record: { ...change.record, calibration: factor } };
    };
    /** The request's ledger record once written (undefined: none), for the usage its reply reports. */
    let ledgerRecord: Promise<RecordedRequest | undefined> = Promise.resolve(undefined);
    merge([...cleared.values(), ...clearedNow.values()]);
    cutPreviewsToHeaders(slots, fixed, fitTo, tokens);
    if (clearedNow.size > 0) {
      const change = changeOf([...clearedNow.values()]);
      let recorded: RecordedRequest | undefined;
      try {
        recorded = await this.#record(change, true);
      } catch (error) {
        console.warn('ToolOutputOffload: could not record the results cleared from the context', error);
      }
      if (recorded === undefined) {
        // S3: an unrecorded clearing would not stay cleared (C4); send those results as before, and write no ledger.
        unmergePointers(slots);
        for (const slot of slots) if (slot.uncut) Object.assign(slot, slot.uncut, { uncut: undefined });
        for (const slot of clearedNow.keys()) Object.assign(slot, slot.before, { before: undefined });
        clearedNow.clear();
        merge([...cleared.values()]);
        cutPreviewsToHeaders(slots, fixed, fitTo, tokens);
      } else {
        ledgerRecord = Promise.resolve(recorded);
        // Another tab may have cleared one first: its record is the one every later request shows (C4).
        const kept = new Map(recorded.cleared.map((record) => [record.toolCallId, record]));
        unmergePointers(slots);
        for (const [slot, clearing] of clearedNow) {
          const record = kept.get(slot.message.toolCallId);
          if (record === undefined || record.pointer === slot.text) continue;
          if (record.path === clearing.path && record.textKey === clearing.textKey) {
            Object.assign(slot, { text: record.pointer, tokens: tokens(record.pointer), path: record.path });
          } else {
            // Another result under the same id (reused) was cleared first: this one is shown as it was.
            Object.assign(slot, slot.before, { before: undefined });
            clearedNow.delete(slot);
          }
        }
        merge(recorded.cleared);
        events.push({
          type: 'context-cleared',
          threadId,
          paths: [...clearedNow.keys()].flatMap((slot) => (slot.path === undefined ? [] : [slot.path])),
          tokensBefore,
          tokensAfter: total(),
        });
      }
    } else {
      // Nothing new to keep: the ledger is written behind the model call, in order, so the call does not wait for it.
      const write = this.#record(changeOf([]), false);
      ledgerRecord = write.catch(() => undefined);
    }

    const sent = total();
    if (fitTo !== undefined && sent > fitTo.maxRequestTokens) {
      events.push({ type: 'context-over-budget', threadId, tokens: sent, budget: fitTo.maxRequestTokens });
    }
    const replacements = replacementsOf(slots);
    return { replacements, events, tokens: sent, reportUsage: usageReporter(ledger, threadId, ledgerRecord) };
  }

  /**
   * C9: the thread's calibration from its newest ledger records, read after its queued writes (so
   * the previous request's record counts, with the usage its way in reported when the reply came):
   * the factor to fit with (undefined: too few reports, the estimate alone), the previous
   * request's, and the newest request as the provider counted it. Undefined when the ledger cannot be read (S3: the estimate alone).
   */
  async #calibration(
    threadId: string,
  ): Promise<{ factor: number | undefined; previous: number; newest: ReportedRequest | undefined } | undefined> {
    const { ledger } = this.#options;
    let records: RequestRecord[];
    try {
      await this.#writes.get(threadId);
      records = await ledger.requests(threadId, { newest: calibrationRecords });
    } catch {
      return undefined;
    }
    return { factor: calibrationFactor(records), previous: previousFactor(records), newest: newestReported(records) };
  }

  /** How each result of the request is shown before this request clears anything. */
  async #classify(
    request: ContextRequest,
    cleared: Map<string, ClearedResult>,
    lastAssistant: number,
  ): Promise<ResultInRequest[]> {
    const { shown } = this.#options;
    const slots: ResultInRequest[] = [];
    const results: ResultInRequest[] = [];
    /** Results under each tool call id: a model may reuse one. */
    const named = new Map<string, number>();
    for (const [index, message] of request.messages.entries()) {
      if (message.role !== 'tool' || !isResult(message)) continue;
      named.set(message.toolCallId, (named.get(message.toolCallId) ?? 0) + 1);
      const tokens = this.#tokens.of(message.text);
      const slot: ResultInRequest = {
        index,
        message,
        shownAs: 'whole',
        text: message.text,
        tokens,
        wholeTokens: tokens,
      };
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
    // C4: a result cleared before shows its record's pointer, when the record is this result's own.
    for (const slot of slots) {
      const record = cleared.get(slot.message.toolCallId);
      // A result after the last assistant message was never cleared (C5): its id is another result's, reused.
      if (record === undefined || slot.index >= lastAssistant) continue;
      if (!(await this.#clearedThis(record, slot, named))) continue;
      Object.assign(slot, {
        shownAs: 'pointer',
        text: record.pointer,
        tokens: this.#tokens.of(record.pointer),
        wholeTokens: record.tokens,
        path: record.path,
        replaced: undefined,
      });
    }
    return slots;
  }

  /**
   * Whether `record` cleared this result, not another one under the same tool call id (a model
   * may reuse ids): the same path (its preview's entry, or where it was stored to be cleared, C3),
   * or for a page the same key of its text. An older page record, without that key, is the
   * result's only when the request has no other result under its id: shown as it is otherwise.
   */
  async #clearedThis(
    record: ClearedResult,
    slot: ResultInRequest,
    named: ReadonlyMap<string, number>,
  ): Promise<boolean> {
    const { message } = slot;
    if (record.path !== undefined) {
      return slot.replaced?.path === record.path || record.path === resultPath(await this.#keys.of(message));
    }
    if (record.textKey !== undefined) return record.textKey === (await this.#keys.of(message));
    return named.get(message.toolCallId) === 1;
  }

  /**
   * Clears one result (C2, C3): its pointer, after storing it when it has no path yet (a result
   * shown whole or cut). Undefined when it cannot be: no pointer frees anything, it cannot be
   * stored whole, or the store fails (S3) — never a pointer to a path that does not exist.
   */
  async #clear(
    request: ContextRequest,
    slot: ResultInRequest,
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
      if (pointer === undefined || this.#tokens.of(pointer) >= slot.tokens) return undefined;
      return { ...base, pointer, textKey: await this.#keys.of(message) };
    }
    // Stored whole or not at all: a stored copy cut to maxResultBytes would not read back as the result.
    if (bytes > limits.maxResultBytes) return undefined;
    const key = await this.#keys.of({ toolCallId: message.toolCallId, text: slot.text });
    const path = resultPath(key);
    const pointer = clearedPointer({ ...facts, path, tokens: slot.tokens }, measure);
    if (pointer === undefined || this.#tokens.of(pointer) >= slot.tokens) return undefined;
    if (!(await this.#store(request, slot, key, pointer))) return undefined;
    return { ...base, path, pointer };
  }

  /**
   * Stores a result to clear it (C3), as any stored result: staged, then committed, tagged with the
   * turn so an output Block takes it back (C7). The copy is optional: it is stored only if the
   * thread fits it as it is, never by evicting a stored result (nor making room in a full quota).
   */
  async #store(request: ContextRequest, slot: ResultInRequest, key: string, pointer: string): Promise<boolean> {
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
      { now: { optional: true, ...(turnId === undefined ? {} : { turnId }) } },
    );
    // S3: not cleared; the failure is recorded (storeResult), and a staging of its own is deleted.
    if (outcome.stored === undefined) return false;
    // It would fit only by evicting (or its staged copy went first): not cleared, sent as it is.
    if (!outcome.applied?.stored.includes(key)) return false;
    onStored(threadId, key);
    return true;
  }

  /**
   * Writes one request's change after the thread's earlier ones (a queue per thread, so steps are
   * numbered in order). `wait`: the caller awaits it and sees its failure; otherwise a failure is
   * only logged (S3).
   */
  #record(change: RequestChange, wait: boolean): Promise<RecordedRequest> {
    const { ledger } = this.#options;
    const { threadId } = change;
    const write = (this.#writes.get(threadId) ?? Promise.resolve()).then(() => ledger.recordRequest(change));
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
