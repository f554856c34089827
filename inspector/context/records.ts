import type { OffloadStore } from '../../lib/index.js';
import { isCount } from '../source/store-info.js';

/**
 * The context ledger as the Context tab holds it: one record per model request of a thread
 * (`OffloadStore.requests`), each checked field by field when read. Records come from storage any
 * script of the origin can write, or from the other end of a channel: a record with a field
 * missing, of the wrong type or absurdly long is dropped (and counted), never drawn.
 */

/** One model request of a thread's ledger, as the store's `requests()` answers it. */
export type LedgerRecord = Awaited<ReturnType<NonNullable<OffloadStore['requests']>>>[number];
type LedgerResult = LedgerRecord['results'][number];
type Reported = NonNullable<LedgerRecord['reported']>;
type ShownAs = LedgerResult['shownAs'];
type PartId = keyof LedgerRecord['parts'];

/** The parts of a request, bottom to top of its bar, with the words the legend and the list use. */
export const PARTS: readonly { id: PartId; label: string }[] = [
  { id: 'system', label: 'system prompt and tool specs' },
  { id: 'messages', label: 'messages' },
  { id: 'whole', label: 'results whole' },
  { id: 'previews', label: 'previews' },
  { id: 'pointers', label: 'pointers (cleared)' },
  { id: 'cut', label: 'cut' },
];

/** How a result was shown, in the list's words. A Map, so no text finds a prototype's member. */
export const SHOWN_AS: ReadonlyMap<string, string> = new Map<ShownAs, string>([
  ['whole', 'whole'],
  ['preview', 'preview'],
  ['pointer', 'pointer (cleared)'],
  ['cut', 'cut'],
]);

/** The most tool results one record may list (a request carries tens to hundreds). */
const MAX_RESULTS = 10_000;
/** The longest id, tool name or path a record may hold (keys are at most 64 characters). */
const FIELD_CHARS = 1024;
/** Records of one thread kept at most (the store keeps the newest 10,000 by default). */
export const MAX_LEDGER_RECORDS = 100_000;

type Fields = Record<string, unknown>;
const isFields = (value: unknown): value is Fields =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isField = (value: unknown): value is string => typeof value === 'string' && value.length <= FIELD_CHARS;

/** True for a step number: the thread's requests counted from 1. */
export const isStep = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 1;
const isTime = (value: unknown): value is number =>
  typeof value === 'number' && !Number.isNaN(new Date(value).getTime());

function toParts(value: unknown): LedgerRecord['parts'] | undefined {
  if (!isFields(value)) return undefined;
  const parts = {} as LedgerRecord['parts'];
  for (const { id } of PARTS) {
    const count = value[id];
    if (!isCount(count)) return undefined;
    parts[id] = count;
  }
  return parts;
}

function toResult(value: unknown): LedgerResult | undefined {
  if (!isFields(value)) return undefined;
  const { toolCallId, toolName, path, shownAs, tokens } = value;
  if (!isField(toolCallId) || !isField(toolName) || !isCount(tokens)) return undefined;
  if (typeof shownAs !== 'string' || !SHOWN_AS.has(shownAs)) return undefined;
  if (path !== undefined && !isField(path)) return undefined;
  const result: LedgerResult = { toolCallId, toolName, shownAs: shownAs as ShownAs, tokens };
  if (path !== undefined) result.path = path;
  return result;
}

/** What the provider reported a request cost (a fresh object of its counts), or undefined when malformed. */
function toReported(value: unknown): Reported | undefined {
  if (!isFields(value)) return undefined;
  const { inputTokens, cachedInputTokens, outputTokens } = value;
  if (!isCount(inputTokens)) return undefined;
  if (cachedInputTokens !== undefined && !isCount(cachedInputTokens)) return undefined;
  if (outputTokens !== undefined && !isCount(outputTokens)) return undefined;
  const reported: Reported = { inputTokens };
  if (cachedInputTokens !== undefined) reported.cachedInputTokens = cachedInputTokens;
  if (outputTokens !== undefined) reported.outputTokens = outputTokens;
  return reported;
}

/** A calibration factor (C9): the provider's tokens an estimated one, at least 1. */
const isFactor = (value: unknown): value is number => isCount(value) && value >= 1;

/** The record as the tab draws it (a fresh object of the known fields), or undefined when it is malformed. */
function toLedgerRecord(value: unknown): LedgerRecord | undefined {
  if (!isFields(value)) return undefined;
  const { threadId, step, at, tokens, tokensWithoutOffload, budget, results, calibration } = value;
  if (typeof threadId !== 'string' || !isStep(step) || !isTime(at)) return undefined;
  if (!isCount(tokens) || !isCount(tokensWithoutOffload) || (budget !== undefined && !isCount(budget))) {
    return undefined;
  }
  if (calibration !== undefined && !isFactor(calibration)) return undefined;
  const reported = value.reported === undefined ? undefined : toReported(value.reported);
  if (value.reported !== undefined && reported === undefined) return undefined;
  const parts = toParts(value.parts);
  if (!parts || !Array.isArray(results) || results.length > MAX_RESULTS) return undefined;
  const checked: LedgerResult[] = [];
  for (const item of results) {
    const result = toResult(item);
    if (!result) return undefined;
    checked.push(result);
  }
  const record: LedgerRecord = { threadId, step, at, tokens, tokensWithoutOffload, parts, results: checked };
  if (budget !== undefined) record.budget = budget;
  if (reported !== undefined) record.reported = reported;
  if (calibration !== undefined) record.calibration = calibration;
  return record;
}

/** A thread's ledger as read: its records by step, oldest first, and how many items were dropped as malformed. */
export interface Ledger {
  threadId: string;
  records: readonly LedgerRecord[];
  dropped: number;
}

/**
 * `ledger` with the records of `answer` (what the source answered) merged in: each checked, those
 * of other threads left out (a source may answer with more), one record per step (the later
 * read's), oldest first, the newest MAX_LEDGER_RECORDS kept.
 */
export function mergeLedger(ledger: Ledger, answer: unknown): Ledger {
  if (!Array.isArray(answer)) return { ...ledger, dropped: ledger.dropped + 1 };
  const fresh: LedgerRecord[] = [];
  let dropped = 0;
  for (const item of answer) {
    const record = toLedgerRecord(item);
    if (!record) dropped += 1;
    else if (record.threadId === ledger.threadId) fresh.push(record);
  }
  let records: LedgerRecord[];
  const last = ledger.records[ledger.records.length - 1];
  if (isAscending(fresh) && (!last || fresh.length === 0 || fresh[0]!.step > last.step)) {
    // The common case: new steps after the known ones, in order.
    records = fresh.length === 0 ? (ledger.records as LedgerRecord[]) : ledger.records.concat(fresh);
  } else {
    const byStep = new Map<number, LedgerRecord>();
    for (const record of ledger.records) byStep.set(record.step, record);
    for (const record of fresh) byStep.set(record.step, record);
    records = [...byStep.values()].sort((a, b) => a.step - b.step);
  }
  if (records.length > MAX_LEDGER_RECORDS) records = records.slice(records.length - MAX_LEDGER_RECORDS);
  return { threadId: ledger.threadId, records, dropped: ledger.dropped + dropped };
}

function isAscending(records: readonly LedgerRecord[]): boolean {
  for (let i = 1; i < records.length; i++) if (records[i]!.step <= records[i - 1]!.step) return false;
  return true;
}

/** What the provider reported over a thread's requests, beside the estimate. */
export interface ReportedSummary {
  /** Requests with reported usage, of all the thread's held. */
  reported: number;
  /** Reported input tokens over the estimate of the same requests, less 1 (0.3: the provider counted 30% more). */
  estimateError: number;
  /** Cached over reported input tokens, across the requests that gave a cached count; undefined when none did. */
  cacheReadShare: number | undefined;
  /** The factor the newest calibrated request was fitted with. */
  calibration: number | undefined;
}

/** The thread's reported usage in sums (undefined: no request reported any). */
export function summarizeReported(records: readonly LedgerRecord[]): ReportedSummary | undefined {
  let reported = 0;
  let input = 0;
  let estimated = 0;
  let cachedInput = 0;
  let cached = 0;
  let calibration: number | undefined;
  for (const record of records) {
    if (record.calibration !== undefined) calibration = record.calibration;
    if (record.reported === undefined) continue;
    reported += 1;
    input += record.reported.inputTokens;
    estimated += record.tokens;
    const { cachedInputTokens } = record.reported;
    if (cachedInputTokens !== undefined) {
      cachedInput += record.reported.inputTokens;
      cached += Math.min(cachedInputTokens, record.reported.inputTokens);
    }
  }
  if (reported === 0) return undefined;
  return {
    reported,
    estimateError: estimated > 0 ? input / estimated - 1 : 0,
    cacheReadShare: cachedInput > 0 ? cached / cachedInput : undefined,
    calibration,
  };
}
