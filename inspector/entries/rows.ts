import type { EvictionRecord, StoredResultInfo, StoreFailure } from '../../lib/index.js';

/** The entries table's columns, in order, and how each one sorts. */
export const columns = [
  { id: 'path', label: 'Path' },
  { id: 'thread', label: 'Thread' },
  { id: 'tool', label: 'Tool' },
  { id: 'bytes', label: 'Stored' },
  { id: 'tokens', label: 'Tokens' },
  { id: 'cut', label: 'Cut' },
  { id: 'age', label: 'Age' },
] as const;

export type ColumnId = (typeof columns)[number]['id'];
type SortDirection = 'ascending' | 'descending';
export interface Sort {
  column: ColumnId;
  direction: SortDirection;
}

/** Newest first: what a developer watching an agent wants to see on top. */
export const defaultSort: Sort = { column: 'age', direction: 'ascending' };

type SortValue = string | number;
/** A number to sort by: a missing one (NaN, from a damaged record) sorts before all others. */
const sortable = (value: number) => (Number.isNaN(value) ? Number.NEGATIVE_INFINITY : value);
const sortValue: Record<ColumnId, (entry: StoredResultInfo) => SortValue> = {
  path: (entry) => entry.path,
  thread: (entry) => entry.threadId,
  tool: (entry) => entry.toolName,
  bytes: (entry) => sortable(entry.bytes),
  tokens: (entry) => sortable(entry.estimatedTokens),
  cut: (entry) => (entry.truncated ? 1 : 0),
  // Ascending age is youngest first: sort on the negated creation time (no time: oldest).
  age: (entry) => -sortable(entry.createdAt),
};

/** Both the column a click sorts by and the direction: a second click on a column flips it. */
export function nextSort(current: Sort, column: ColumnId): Sort {
  if (current.column !== column) return { column, direction: 'ascending' };
  return { column, direction: current.direction === 'ascending' ? 'descending' : 'ascending' };
}

export interface Filter {
  /** '' for every thread. */
  threadId: string;
  /** Case-insensitive text to find in path, thread, tool, key or preview; '' for all. */
  text: string;
}

function matchesText(fields: readonly string[], needle: string): boolean {
  return needle === '' || fields.some((field) => field.toLowerCase().includes(needle));
}

function entryMatches(entry: StoredResultInfo, filter: Filter, needle = filter.text.toLowerCase()): boolean {
  if (filter.threadId !== '' && entry.threadId !== filter.threadId) return false;
  return matchesText([entry.path, entry.threadId, entry.toolName, entry.key, entry.preview], needle);
}

export function recordMatches(record: EvictionRecord | StoreFailure, filter: Filter): boolean {
  if (filter.threadId !== '' && record.threadId !== filter.threadId) return false;
  const fields = [record.path, record.threadId, record.key];
  if ('reason' in record) fields.push(record.reason, record.toolName ?? '');
  else fields.push(record.toolName, record.error);
  return matchesText(fields, filter.text.toLowerCase());
}

/** The entries the table shows: filtered, then sorted (stable on the store's order). */
export function visibleEntries(entries: readonly StoredResultInfo[], filter: Filter, sort: Sort): StoredResultInfo[] {
  const needle = filter.text.toLowerCase();
  const value = sortValue[sort.column];
  const sign = sort.direction === 'ascending' ? 1 : -1;
  const all = filter.threadId === '' && needle === '';
  const kept = all ? entries : entries.filter((entry) => entryMatches(entry, filter, needle));
  const keyed = kept.map((entry, index) => ({ entry, index, value: value(entry) }));
  keyed.sort((a, b) => {
    if (a.value !== b.value) return (a.value < b.value ? -1 : 1) * sign;
    return a.index - b.index;
  });
  return keyed.map((item) => item.entry);
}

/** A stable identity for an entry across reloads. */
export function entryId(threadId: string, key: string): string {
  return `${threadId}\u0000${key}`;
}
