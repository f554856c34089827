import { isRecord, quoteForMessage } from '../shared/checks.js';
import { isEvictionReason } from './eviction-words.js';
import type {
  ClearedResult,
  ReportedUsage,
  RequestParts,
  RequestRecord,
  RequestResult,
  ShownAs,
  UnreadableRecord,
} from './offload-store.js';
import type { ClearedRecord, EntryRecord, StagedRecord, ThreadRecord, UndoRecord } from './store-records.js';

type RecordKind = UnreadableRecord['store'];

/**
 * Records read back from a database are input: any script of the origin, an extension, an older
 * version of the app or a disk fault may have written them. Each kind is checked field by field
 * when read; a malformed one is skipped (never handed on as data) and reported, with its key, so
 * the inspector can show it as unreadable.
 */

type FieldCheck = [name: string, expected: string, holds: (value: unknown) => boolean];

const text = (value: unknown) => typeof value === 'string';
const name = (value: unknown) => typeof value === 'string' && value !== '';
const count = (value: unknown) => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
const positive = (value: unknown) => count(value) && (value as number) >= 1;
const time = (value: unknown) => typeof value === 'number' && Number.isFinite(value);
const flag = (value: unknown) => typeof value === 'boolean';
const counts = (value: unknown) => Array.isArray(value) && value.every(count);
/** Estimated tokens: an estimator may count in fractions, never below 0. */
const tokens = (value: unknown) => typeof value === 'number' && Number.isFinite(value) && value >= 0;
/** What `resultKeyFor` makes: at most 49 of A-Z a-z 0-9 _ - (an id prefix, a hyphen, 16 base64url characters; 24 hex digits before). */
const resultKey = (value: unknown) => typeof value === 'string' && /^[A-Za-z0-9_-]{1,49}$/.test(value);
/** A calibration factor (C9): the provider's tokens an estimated one, never below 1. */
const factor = (value: unknown) => typeof value === 'number' && Number.isFinite(value) && value >= 1;
const absentOr = (holds: (value: unknown) => boolean) => (value: unknown) => value === undefined || holds(value);

const infoFields: FieldCheck[] = [
  ['threadId', 'a non-empty string', name],
  ['key', 'a non-empty string', name],
  ['path', 'a non-empty string', name],
  ['toolName', 'a non-empty string', name],
  ['bytes', 'a count of bytes', count],
  ['originalBytes', 'a count of bytes', count],
  ['estimatedTokens', 'a count', count],
  ['truncated', 'a boolean', flag],
  ['createdAt', 'a time in milliseconds', time],
  ['preview', 'a string', text],
  // Absent in records written before the offload kept what it showed as data.
  ['headerOnly', 'a string or absent', absentOr(text)],
  ['toolCallId', 'a string or absent', absentOr(text)],
  ['previewDigest', 'a string or absent', absentOr(text)],
  ['textId', 'a non-empty string', name],
  ['chunkNewlines', 'an array of counts', counts],
  ['lines', 'a count', count],
];

const entryFields: FieldCheck[] = [...infoFields, ['seq', 'a positive integer', positive]];

const evictionFields: FieldCheck[] = [
  ['id', 'a positive integer', positive],
  ['threadId', 'a non-empty string', name],
  ['key', 'a non-empty string', name],
  ['path', 'a string', text],
  ['bytes', 'a count of bytes', count],
  ['at', 'a time in milliseconds', time],
  ['reason', 'an eviction reason', isEvictionReason],
  ['turnId', 'a string', text],
  ['seq', 'a positive integer', positive],
  // Absent in records logged before evictions named their tool.
  ['toolName', 'a string or absent', absentOr(text)],
  // Absent in records logged before evictions kept what the preview was.
  ['toolCallId', 'a string or absent', absentOr(text)],
  ['estimatedTokens', 'a count or absent', absentOr(count)],
  ['previewDigest', 'a string or absent', absentOr(text)],
  ['headerOnly', 'a string or absent', absentOr(text)],
];

const failureFields: FieldCheck[] = [
  ['threadId', 'a non-empty string', name],
  ['key', 'a string', text],
  ['path', 'a string', text],
  ['toolName', 'a string', text],
  ['bytes', 'a count of bytes', count],
  ['at', 'a time in milliseconds', time],
  ['error', 'a string', text],
];

const threadFields: FieldCheck[] = [
  ['threadId', 'a non-empty string', name],
  ['totalBytes', 'a count of bytes', count],
  ['nextSeq', 'a positive integer', positive],
  ['entries', 'a count', count],
  ['maxTotalBytes', 'a positive integer or absent', (value) => value === undefined || positive(value)],
  ['requestStep', 'a count or absent', absentOr(count)],
];

/**
 * The first field of `record` that fails its check, in words; undefined when all hold. `at` names
 * a nested record in the words (e.g. `record.parts.`); without it a record that is not one is "it".
 */
function fieldProblem(record: unknown, fields: readonly FieldCheck[], at = ''): string | undefined {
  if (!isRecord(record)) return `${at ? at.slice(0, -1) : 'it'} is ${quoteForMessage(record)}, not a record`;
  for (const [field, expected, holds] of fields) {
    const value = record[field];
    if (!holds(value))
      return value === undefined
        ? `${at}${field} is missing`
        : `${at}${field} is ${quoteForMessage(value)}, not ${expected}`;
  }
  return undefined;
}

/** A text's layout: its line count agrees with its chunks' newlines (a last line may lack one). */
function layoutProblem(record: { chunkNewlines: number[]; lines: number }): string | undefined {
  const newlines = record.chunkNewlines.reduce((sum, n) => sum + n, 0);
  const extra = record.lines - newlines;
  if (extra === 0 || (extra === 1 && record.chunkNewlines.length > 0)) return undefined;
  return `lines is ${record.lines}, which its chunks' ${newlines} newlines cannot hold`;
}

const seenFields: FieldCheck[] = [
  ['threadId', 'a non-empty string', name],
  ['key', 'a non-empty string', name],
  ['seq', 'a positive integer', positive],
  ['toolName', 'a string', text],
  ['thresholdTokens', 'a count', count],
  ['previewLines', 'a count', count],
  ['maxResultBytes', 'a count of bytes', count],
];

export function seenProblem(record: unknown): string | undefined {
  return fieldProblem(record, seenFields);
}

export function entryProblem(record: unknown): string | undefined {
  return fieldProblem(record, entryFields) ?? layoutProblem(record as EntryRecord);
}

/** What `stage` is given: a result's info (no text layout yet; the text is checked apart). */
export function stagedResultProblem(result: unknown): string | undefined {
  const problem = fieldProblem(
    result,
    infoFields.slice(
      0,
      infoFields.findIndex(([field]) => field === 'textId'),
    ),
  );
  if (problem) return problem;
  const turnId = (result as StagedRecord).turnId;
  return turnId === undefined || typeof turnId === 'string' ? undefined : `turnId is ${quoteForMessage(turnId)}`;
}

export function stagedProblem(record: unknown): string | undefined {
  const problem = fieldProblem(record, infoFields) ?? layoutProblem(record as StagedRecord);
  if (problem) return problem;
  const turnId = (record as StagedRecord).turnId;
  return turnId === undefined || typeof turnId === 'string' ? undefined : `turnId is ${quoteForMessage(turnId)}`;
}

export function evictionProblem(record: unknown): string | undefined {
  return fieldProblem(record, evictionFields);
}

export function failureProblem(record: unknown): string | undefined {
  return fieldProblem(record, failureFields);
}

export function threadProblem(record: unknown): string | undefined {
  const problem = fieldProblem(record, threadFields);
  if (problem) return problem;
  const thread = record as ThreadRecord;
  if (thread.entries === 0 && thread.totalBytes !== 0) return `totalBytes is ${thread.totalBytes} with no entries`;
  return undefined;
}

export function undoProblem(record: unknown): string | undefined {
  const problem = fieldProblem(record, [
    ['threadId', 'a non-empty string', name],
    ['turnId', 'a string', text],
    ['steps', 'an array', Array.isArray],
    ['at', 'a time in milliseconds or absent', (value) => value === undefined || time(value)],
  ]);
  if (problem) return problem;
  for (const [index, step] of (record as UndoRecord).steps.entries()) {
    const kind = isRecord(step) ? step.kind : undefined;
    const stepProblem =
      kind === 'stored'
        ? fieldProblem(step, [
            ['key', 'a non-empty string', name],
            ['seq', 'a positive integer', positive],
          ])
        : kind === 'evicted'
          ? entryProblem((step as { entry?: unknown }).entry)
          : kind === 'cleared'
            ? fieldProblem(step, [
                ['toolCallId', 'a non-empty string', name],
                ['step', 'a positive integer', positive],
              ])
            : `kind is ${quoteForMessage(kind)}`;
    if (stepProblem) return `step ${index}: ${stepProblem}`;
  }
  return undefined;
}

const shownAsWords: readonly ShownAs[] = ['whole', 'preview', 'pointer', 'cut'];

/** What a model request carried, as `recordRequest` is given it (no thread, step or time). */
const requestBodyFields: FieldCheck[] = [
  ['tokens', 'a number of tokens', tokens],
  ['tokensWithoutOffload', 'a number of tokens', tokens],
  ['budget', 'a positive integer or absent', absentOr(positive)],
  ['calibration', 'a number of at least 1 or absent', absentOr(factor)],
  ['parts', 'a record', isRecord],
  ['results', 'an array', Array.isArray],
];
const partNames: readonly (keyof RequestParts)[] = ['system', 'messages', 'whole', 'previews', 'pointers', 'cut'];
const partFields: FieldCheck[] = partNames.map((part) => [part, 'a number of tokens', tokens]);
const resultFields: FieldCheck[] = [
  ['toolCallId', 'a non-empty string', name],
  ['toolName', 'a string', text],
  ['path', 'a non-empty string or absent', absentOr(name)],
  ['shownAs', 'one of whole, preview, pointer, cut', (value) => shownAsWords.includes(value as ShownAs)],
  ['tokens', 'a number of tokens', tokens],
];
const stepFields: FieldCheck[] = [
  ['threadId', 'a non-empty string', name],
  ['step', 'a positive integer', positive],
  ['at', 'a time in milliseconds', time],
];
/** A provider's counts (its own tokens): what it gave, each a finite number ≥ 0. */
const usageFields: FieldCheck[] = [
  ['inputTokens', 'a number of tokens', tokens],
  ['cachedInputTokens', 'a number of tokens or absent', absentOr(tokens)],
  ['outputTokens', 'a number of tokens or absent', absentOr(tokens)],
];

/** The counts a reported usage may hold. */
export const usageCounts: readonly (keyof ReportedUsage)[] = ['inputTokens', 'cachedInputTokens', 'outputTokens'];

/** A reported usage, as `recordUsage` is given it or a ledger record holds it; undefined when it holds. */
export function usageProblem(reported: unknown, at: string): string | undefined {
  if (!isRecord(reported)) return `${at} is ${quoteForMessage(reported)}, not a record { inputTokens, … }`;
  return fieldProblem(reported, usageFields, `${at}.`);
}

/** Only a reported usage's own counts, copied (whatever else a writer put in is not kept). */
export function reportedCounts(reported: ReportedUsage): ReportedUsage {
  const { inputTokens, cachedInputTokens, outputTokens } = reported;
  return {
    inputTokens,
    ...(cachedInputTokens === undefined ? {} : { cachedInputTokens }),
    ...(outputTokens === undefined ? {} : { outputTokens }),
  };
}

function requestBodyProblem(record: unknown, at: string): string | undefined {
  const problem = fieldProblem(record, requestBodyFields, at);
  if (problem) return problem;
  const { parts, results } = record as { parts: unknown; results: unknown[] };
  return (
    fieldProblem(parts, partFields, `${at}parts.`) ??
    results.map((result, i) => fieldProblem(result, resultFields, `${at}results[${i}].`)).find(Boolean)
  );
}

/**
 * A pointer is at most 60 estimated tokens (C2); whatever the estimator, no pointer the offload
 * writes comes near this many characters. One over it was not written by the offload, and is never
 * sent to a model (S2).
 */
const maxPointerChars = 4096;
const pointerText = (value: unknown) => name(value) && (value as string).length <= maxPointerChars;

/** A cleared result as `recordRequest` is given it (no thread, step or time). */
const clearedBodyFields: FieldCheck[] = [
  ['toolCallId', 'a non-empty string', name],
  ['toolName', 'a string', text],
  ['path', 'a non-empty string or absent', absentOr(name)],
  ['textKey', 'a result key or absent', absentOr(resultKey)],
  ['pointer', `a non-empty string of at most ${maxPointerChars} characters`, pointerText],
  ['tokens', 'a number of tokens', tokens],
];

/** A ledger record read back (RequestRecord). */
export function requestProblem(record: unknown): string | undefined {
  const problem = fieldProblem(record, stepFields) ?? requestBodyProblem(record, '');
  const { reported } = record as { reported?: unknown };
  return problem ?? (reported === undefined ? undefined : usageProblem(reported, 'reported'));
}

/**
 * A ledger record past its thread's step counter (`requestStep`, which recordRequest moves with
 * every record it writes): written by no recordRequest, so a step out of order (S2). Trusted, its
 * step would number the next request and make retention delete the real ledger.
 */
export function requestOrderProblem(step: number, counter: number | undefined): string | undefined {
  if (counter === undefined || step <= counter) return undefined;
  return `a step out of order: ${step} is past the thread's request counter ${counter}`;
}

const clearedRecordFields: FieldCheck[] = [...stepFields, ...clearedBodyFields, ['rank', 'a count', count]];

/** A cleared record read back (ClearedRecord). */
export function clearedProblem(record: unknown): string | undefined {
  return fieldProblem(record, clearedRecordFields);
}

/**
 * What `recordRequest` is given, field by field as reads will check it, each named from `change`
 * (e.g. `change.record.parts.cut is missing`); undefined when all hold.
 */
export function requestChangeProblem(change: unknown): string | undefined {
  const fields: FieldCheck[] = [
    ['threadId', 'a non-empty string', name],
    ['turnId', 'a string or absent', absentOr(text)],
    ['at', 'a time in milliseconds', time],
    ['record', 'a record', isRecord],
    ['cleared', 'an array', Array.isArray],
  ];
  const problem = fieldProblem(change, fields, 'change.');
  if (problem) return problem;
  const { record, cleared } = change as { record: unknown; cleared: unknown[] };
  return (
    requestBodyProblem(record, 'change.record.') ??
    cleared.map((result, i) => fieldProblem(result, clearedBodyFields, `change.cleared[${i}].`)).find(Boolean)
  );
}

/** Only a result's own fields, so nothing else another writer put in (a text) is kept or handed on. */
function resultOf({ toolCallId, toolName, path, shownAs, tokens }: RequestResult): RequestResult {
  return { toolCallId, toolName, ...(path === undefined ? {} : { path }), shownAs, tokens };
}

/** Only a ledger record's own fields (checked), copied: never any text. */
export function requestFields(record: RequestRecord): RequestRecord {
  const { threadId, step, at, tokens, tokensWithoutOffload, budget, calibration, parts, results, reported } = record;
  const { system, messages, whole, previews, pointers, cut } = parts;
  return {
    threadId,
    step,
    at,
    tokens,
    tokensWithoutOffload,
    ...(budget === undefined ? {} : { budget }),
    ...(calibration === undefined ? {} : { calibration }),
    parts: { system, messages, whole, previews, pointers, cut },
    results: results.map(resultOf),
    ...(reported === undefined ? {} : { reported: reportedCounts(reported) }),
  };
}

/** Only a cleared result's own fields (checked), without its rank. */
export function clearedFields(record: ClearedResult): ClearedResult {
  const { threadId, toolCallId, toolName, path, textKey, pointer, tokens, step, at } = record;
  return {
    threadId,
    toolCallId,
    toolName,
    ...(path === undefined ? {} : { path }),
    ...(textKey === undefined ? {} : { textKey }),
    pointer,
    tokens,
    step,
    at,
  };
}

/** Cleared records in the order `cleared` promises: by step, then by their place in the change. */
export function byStepAndRank(a: ClearedRecord, b: ClearedRecord): number {
  return a.step - b.step || a.rank - b.rank;
}

/** A chunk of text is a string; anything else (an object, a number) is not text. */
export function chunkProblem(chunk: unknown): string | undefined {
  if (typeof chunk === 'string') return undefined;
  return `${chunk !== null && typeof chunk === 'object' ? 'an object' : quoteForMessage(chunk)}, not text`;
}

/** A record's key in its object store, as text (an array key as JSON), for reports. */
export function keyText(key: unknown): string {
  return typeof key === 'string' ? key : quoteForMessage(key);
}

/**
 * The unreadable records a store's reads have met, by object store and key (each warned about
 * once). A record read again fine (rewritten since) is forgotten.
 */
export class UnreadableLog {
  readonly #found = new Map<string, { record: UnreadableRecord; key: unknown }>();

  report(store: RecordKind, key: unknown, reason: string, threadId?: string): void {
    const record: UnreadableRecord = { store, key: keyText(key), reason };
    if (threadId !== undefined) record.threadId = threadId;
    const id = `${store} ${record.key}`;
    if (!this.#found.has(id)) {
      console.warn(`tool-output-offload: skipped an unreadable ${store} record ${record.key}: ${reason}`);
    }
    this.#found.set(id, { record, key });
  }

  /** Checks a record with `problem`: the record when it holds, else undefined (and reported). */
  check<T>(
    store: RecordKind,
    key: unknown,
    record: unknown,
    problem: (record: unknown) => string | undefined,
  ): T | undefined {
    if (record === undefined) return undefined;
    const reason = problem(record);
    if (reason === undefined) {
      if (this.#found.size > 0) this.forget(store, key);
      return record as T;
    }
    this.report(store, key, reason, threadOf(record));
    return undefined;
  }

  /** The reports of one kind of record (and one thread), with each record's key as it is in the store. */
  found(store: RecordKind, threadId?: string): Array<{ record: UnreadableRecord; key: unknown }> {
    return [...this.#found.values()].filter(
      ({ record }) => record.store === store && (threadId === undefined || record.threadId === threadId),
    );
  }

  forget(store: RecordKind, key: unknown): void {
    this.#found.delete(`${store} ${keyText(key)}`);
  }

  forgetThread(threadId: string): void {
    for (const [id, { record }] of this.#found) if (record.threadId === threadId) this.#found.delete(id);
  }
}

/** The thread a record names, when it names one. */
export function threadOf(record: unknown): string | undefined {
  return isRecord(record) && typeof record.threadId === 'string' ? record.threadId : undefined;
}
