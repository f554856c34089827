/** Human-readable sizes and times for the panel. */

const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

const numbers = new Intl.NumberFormat('en');

export function formatCount(count: number): string {
  return numbers.format(count);
}

/** How long ago `at` was, relative to `now`: "12 s", "3 min", "2 h", "4 d". */
export function formatAge(at: number, now: number): string {
  const seconds = Math.max(0, Math.round((now - at) / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h`;
  return `${Math.floor(hours / 24)} d`;
}

/** Local wall-clock time with seconds, and the date when it is not today. */
export function formatTime(at: number, now: number): string {
  const date = new Date(at);
  const time = date.toLocaleTimeString('en-GB', { hour12: false });
  return new Date(now).toDateString() === date.toDateString() ? time : `${date.toLocaleDateString('en-CA')} ${time}`;
}
