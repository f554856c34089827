/**
 * Human-readable sizes, counts and times for the panel. Records come from storage shared with any
 * script of the origin, so every formatter takes whatever it is given: a value that is not what
 * it should be reads as "—" (or says so) instead of throwing, which would stop the panel rendering.
 */

/** Shown for a value a record should have but does not (missing, not a number, not a date). */
const MISSING = '—';

const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

const isFiniteNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

export function formatBytes(bytes: unknown): string {
  if (!isFiniteNumber(bytes) || bytes < 0) return MISSING;
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${Math.round(value)} B` : `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

const numbers = new Intl.NumberFormat('en');

export function formatCount(count: unknown): string {
  return isFiniteNumber(count) ? numbers.format(count) : MISSING;
}

/** A count with its noun: "1 eviction", "2 evictions", "1,000 entries". */
export function formatCountOf(count: number, one: string, many: string): string {
  return `${formatCount(count)} ${count === 1 ? one : many}`;
}

/** A time a Date can hold (±8.64e15 ms), else undefined: `new Date(NaN).toISOString()` throws. */
function validDate(at: unknown): Date | undefined {
  if (!isFiniteNumber(at)) return undefined;
  const date = new Date(at);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** How long ago `at` was, relative to `now`: "12 s", "3 min", "2 h", "4 d"; "—" for no valid time. */
export function formatAge(at: unknown, now: number): string {
  if (!validDate(at)) return MISSING;
  const seconds = Math.max(0, Math.round((now - (at as number)) / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h`;
  return `${Math.floor(hours / 24)} d`;
}

/** Local wall-clock time with seconds, and the date when it is not today; "invalid date" when it is none. */
export function formatTime(at: unknown, now: number): string {
  const date = validDate(at);
  if (!date) return 'invalid date';
  const time = date.toLocaleTimeString('en-GB', { hour12: false });
  return new Date(now).toDateString() === date.toDateString() ? time : `${date.toLocaleDateString('en-CA')} ${time}`;
}

/** The ISO form of `at` for `title` and `datetime` attributes, or undefined when it is no valid time. */
export function isoTime(at: unknown): string | undefined {
  return validDate(at)?.toISOString();
}

/** Characters a table cell or attribute shows of one field: a 5 MB path stays one cheap line. */
const CELL_CHARS = 500;

/** `text` cut to `max` characters (never inside a surrogate pair), with "…" when cut. */
export function clip(text: string, max = CELL_CHARS): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}
