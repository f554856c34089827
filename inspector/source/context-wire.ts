import { isStep, type LedgerRecord, MAX_LEDGER_RECORDS } from '../context/records.js';
import type { InspectableStore, LedgerReadOptions } from './source.js';

/**
 * The context ledger across a channel (the inspector's 'requests' request): the exposing side
 * answers a thread's records after a step in pages, the panel asks for pages until there are no
 * more. A page is bounded in records and in characters, so a long ledger never makes one huge
 * message (the DevTools extension carries at most 16 MiB of JSON a message), and a live update
 * carries only the new records. The records are passed as the store gives them: the panel checks
 * each one (inspector/context/records.ts).
 */

/** One answer to 'requests': records oldest first, and whether more follow the last one. */
interface LedgerPage {
  records: unknown[];
  more: boolean;
}

/** Records one page carries at most. */
export const LEDGER_PAGE_RECORDS = 2000;
/** Characters of JSON one page carries at most (a record alone over it is sent as its step only). */
const LEDGER_PAGE_CHARS = 4 * 1024 * 1024;
/** Characters of JSON one record may take; a larger one crosses as its step alone, which the panel drops as malformed. */
const LEDGER_RECORD_CHARS = 256 * 1024;

/** The step of a record as the store gave it, when it is one. */
const stepOf = (record: unknown): number | undefined => {
  const step = typeof record === 'object' && record !== null ? (record as { step?: unknown }).step : undefined;
  return isStep(step) ? step : undefined;
};

/**
 * The thread's ledger in this window, after `after` when given, only the newest `newest` records
 * when given; undefined when the store keeps none.
 */
export async function readLedger(
  store: InspectableStore,
  threadId: string,
  after?: number,
  newest?: number,
): Promise<LedgerRecord[] | undefined> {
  if (typeof store.requests !== 'function') return undefined;
  // The store reads only the steps asked for where it can (its `requests(threadId, { after, newest })`);
  // one that ignores the options answers with its whole ledger, filtered here.
  const read = store.requests as (threadId: string, options?: LedgerReadOptions) => Promise<LedgerRecord[]>;
  const options = { ...(after === undefined ? {} : { after }), ...(newest === undefined ? {} : { newest }) };
  const records = await (after === undefined && newest === undefined
    ? read.call(store, threadId)
    : read.call(store, threadId, options));
  if (!Array.isArray(records)) return records;
  const later = after === undefined ? records : records.filter((record) => (stepOf(record) ?? 0) > after);
  return newest === undefined ? later : later.slice(Math.max(later.length - newest, 0));
}

function jsonChars(value: unknown): number {
  try {
    return JSON.stringify(value)?.length ?? Number.POSITIVE_INFINITY;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

/** The exposing side's answer: the first page of the thread's records after `after`, or null when the store keeps no ledger. */
export async function ledgerPage(
  store: InspectableStore,
  threadId: string,
  after: number | undefined,
): Promise<LedgerPage | null> {
  const records = await readLedger(store, threadId, after);
  if (records === undefined) return null;
  if (!Array.isArray(records)) return { records: [], more: false };
  const page: unknown[] = [];
  let chars = 0;
  for (const record of records) {
    if (page.length === LEDGER_PAGE_RECORDS) break;
    let length = jsonChars(record);
    let carried: unknown = record;
    if (length > LEDGER_RECORD_CHARS) {
      // Too large to be a real record: its step alone, so the panel counts it as malformed and pages on.
      carried = { step: stepOf(record) ?? null };
      length = jsonChars(carried);
    }
    if (page.length > 0 && chars + length > LEDGER_PAGE_CHARS) break;
    page.push(carried);
    chars += length;
  }
  return { records: page, more: page.length < records.length };
}

/** True for an answer to 'requests' as it arrives: null (no ledger) or a page no longer than LEDGER_PAGE_RECORDS. */
export function isLedgerAnswer(value: unknown): boolean {
  if (value === null) return true;
  if (typeof value !== 'object' || Array.isArray(value)) return false;
  const { records, more } = value as Record<string, unknown>;
  return (
    Array.isArray(records) &&
    records.length <= LEDGER_PAGE_RECORDS &&
    records.every((record) => typeof record === 'object' && record !== null) &&
    typeof more === 'boolean'
  );
}

/**
 * The panel's side: asks for pages (`ask(after)`) until the last one, each after the last step
 * the previous page held, and joins them; undefined when the other side keeps no ledger. A page
 * whose records name no step later than the one asked for ends it (a side that does not page), and
 * so do MAX_LEDGER_RECORDS records.
 */
export async function readLedgerPages(
  ask: (after: number | undefined) => Promise<unknown>,
  after?: number,
): Promise<LedgerRecord[] | undefined> {
  const records: unknown[] = [];
  let from = after;
  for (;;) {
    const page = (await ask(from)) as LedgerPage | null;
    if (page === null) return undefined;
    records.push(...page.records);
    let last = from ?? 0;
    for (const record of page.records) last = Math.max(last, stepOf(record) ?? 0);
    if (!page.more || last <= (from ?? 0) || records.length >= MAX_LEDGER_RECORDS) break;
    from = last;
  }
  return records as LedgerRecord[];
}
