import type { EvictionRecord, StoredResultInfo, StoreFailure, UnreadableRecord } from '../../lib/index.js';
import { isStep } from '../context/records.js';
import { clip } from '../format.js';

/**
 * Records as the panel holds them. Whatever a store (a custom one, an older version, a record
 * damaged on disk, the other end of a channel) hands over is checked field by field when read:
 * a field of the wrong type becomes '' or NaN, which the formatters show as missing, and the
 * record says what was wrong (`problems`) so the row can be marked. Nothing here throws.
 */
interface Flagged {
  /** What was wrong with the record as read, e.g. 'createdAt is not a time (got "soon")'. */
  problems?: readonly string[];
}
export type EntryRow = StoredResultInfo & Flagged;
export type EvictionRow = EvictionRecord & Flagged;
export type FailureRow = StoreFailure & Flagged;
/** A record the store skipped as malformed, as it reported it (`store` kept as any text). */
export type UnreadableRow = Omit<UnreadableRecord, 'store'> & { store: string } & Flagged;

type Fields = Record<string, unknown>;

/** A value as a problem quotes it: short, and never the whole of a huge string. */
export function shown(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(clip(value, 40));
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined) {
    return String(value);
  }
  return Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

class Reader {
  readonly problems: string[] = [];
  constructor(private readonly fields: Fields) {}

  text(field: string): string {
    const value = this.fields[field];
    if (typeof value === 'string') return value;
    this.problems.push(value === undefined ? `${field} is missing` : `${field} is not text (got ${shown(value)})`);
    return '';
  }

  /** A count of bytes or tokens: a finite number ≥ 0, else NaN. */
  count(field: string): number {
    const value = this.fields[field];
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value;
    this.problems.push(value === undefined ? `${field} is missing` : `${field} is not a count (got ${shown(value)})`);
    return Number.NaN;
  }

  /** A time in ms since 1970 that a Date can hold, else NaN. */
  time(field: string): number {
    const value = this.fields[field];
    if (typeof value === 'number' && !Number.isNaN(new Date(value).getTime())) return value;
    this.problems.push(value === undefined ? `${field} is missing` : `${field} is not a time (got ${shown(value)})`);
    return Number.NaN;
  }

  /** Text that older records lack: undefined when absent, '' (and a problem) when not text. */
  optionalText(field: string): string | undefined {
    return this.fields[field] === undefined ? undefined : this.text(field);
  }

  flag(field: string): boolean {
    const value = this.fields[field];
    if (typeof value === 'boolean') return value;
    this.problems.push(
      value === undefined ? `${field} is missing` : `${field} is not true or false (got ${shown(value)})`,
    );
    return false;
  }

  /** A step of a thread's ledger: an integer ≥ 1, else NaN. */
  step(field: string): number {
    const value = this.fields[field];
    if (isStep(value)) return value;
    this.problems.push(value === undefined ? `${field} is missing` : `${field} is not a step (got ${shown(value)})`);
    return Number.NaN;
  }

  done<T extends object>(record: T): T & Flagged {
    return this.problems.length === 0 ? record : { ...record, problems: this.problems };
  }
}

const isFields = (value: unknown): value is Fields =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export function toEntryRow(value: unknown): EntryRow | undefined {
  if (!isFields(value)) return undefined;
  const read = new Reader(value);
  return read.done({
    threadId: read.text('threadId'),
    key: read.text('key'),
    path: read.text('path'),
    toolName: read.text('toolName'),
    bytes: read.count('bytes'),
    originalBytes: read.count('originalBytes'),
    estimatedTokens: read.count('estimatedTokens'),
    truncated: read.flag('truncated'),
    seq: read.count('seq'),
    createdAt: read.time('createdAt'),
    preview: read.text('preview'),
  });
}

export function toEvictionRow(value: unknown): EvictionRow | undefined {
  if (!isFields(value)) return undefined;
  const read = new Reader(value);
  const row = {
    threadId: read.text('threadId'),
    key: read.text('key'),
    path: read.text('path'),
    bytes: read.count('bytes'),
    at: read.time('at'),
    // Any text: reasons added by a newer version show as they are.
    reason: read.text('reason') as EvictionRecord['reason'],
  };
  const toolName = read.optionalText('toolName');
  return read.done(toolName === undefined ? row : { ...row, toolName });
}

export function toFailureRow(value: unknown): FailureRow | undefined {
  if (!isFields(value)) return undefined;
  const read = new Reader(value);
  return read.done({
    threadId: read.text('threadId'),
    key: read.text('key'),
    path: read.text('path'),
    toolName: read.text('toolName'),
    bytes: read.count('bytes'),
    at: read.time('at'),
    error: read.text('error'),
  });
}

export function toUnreadableRow(value: unknown): UnreadableRow | undefined {
  if (!isFields(value)) return undefined;
  const read = new Reader(value);
  const row = { store: read.text('store'), key: read.text('key'), reason: read.text('reason') };
  const threadId = value.threadId;
  return read.done(typeof threadId === 'string' ? { ...row, threadId } : row);
}

/** The rows of a list as read, and how many of its items were not records at all. */
interface Rows<T> {
  rows: T[];
  skipped: number;
}

/** Checks every item of `list` (anything but an array is read as an empty list with one item skipped). */
export function toRows<T>(list: unknown, toRow: (value: unknown) => T | undefined): Rows<T> {
  if (!Array.isArray(list)) return { rows: [], skipped: 1 };
  const rows: T[] = [];
  let skipped = 0;
  for (const item of list) {
    const row = toRow(item);
    if (row === undefined) skipped += 1;
    else rows.push(row);
  }
  return { rows, skipped };
}

/** What the panel reads of a cleared result: which path of which thread, since which step. */
export interface ClearedRow extends Flagged {
  threadId: string;
  toolCallId: string;
  /** Absent for a file tool's page (its pointer names a call to repeat, not a path). */
  path?: string;
  step: number;
}

export function toClearedRow(value: unknown): ClearedRow | undefined {
  if (!isFields(value)) return undefined;
  const read = new Reader(value);
  const row = { threadId: read.text('threadId'), toolCallId: read.text('toolCallId'), step: read.step('step') };
  const path = read.optionalText('path');
  return read.done(path === undefined ? row : { ...row, path });
}
