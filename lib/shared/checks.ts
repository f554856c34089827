// Checks of values a caller hands in, and the wording of their errors. The lowest layer: it imports
// nothing, so the runtime, the stores, the backends and the middleware can all share it.

/**
 * `value` for an error message: a string quoted, a number or bigint as written, anything else as
 * JSON when it can be, cut to about 200 characters. Never throws (cyclic objects, BigInt inside).
 */
export function quoteForMessage(value: unknown): string {
  const cut = (text: string) => (text.length > 200 ? `${text.slice(0, 200)}…` : text);
  if (typeof value === 'string') return JSON.stringify(cut(value));
  // JSON would write NaN and Infinity as null, and throws on a bigint.
  if (typeof value === 'number') return String(value);
  if (typeof value === 'bigint') return `${value}n`;
  try {
    return cut(JSON.stringify(value) ?? String(value));
  } catch {
    return Object.prototype.toString.call(value); // cyclic, or holds a bigint
  }
}

/** A non-null object that is not an array: something whose fields can be read by name. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `value` when it is a safe integer from `min` to `max`; else throws a RangeError (or the error
 * `toError` makes of the message) saying `${name} must be an integer of at least …, got …`.
 * `name` is the option as the caller knows it, e.g. 'Summarization: triggerTokens'.
 */
export function checkInteger(
  name: string,
  value: unknown,
  min: number,
  max: number = Number.MAX_SAFE_INTEGER,
  toError: (message: string) => Error = (message) => new RangeError(message),
): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `of at least ${min}` : `from ${min} to ${max}`;
    throw toError(`${name} must be an integer ${range}, got ${quoteForMessage(value)}`);
  }
  return value;
}

/** Throws a TypeError unless `threadId` is a non-empty string (checkpointers, agents). */
export function checkThreadId(threadId: unknown): asserts threadId is string {
  if (typeof threadId !== 'string' || threadId === '') {
    throw new TypeError(`threadId must be a non-empty string, got ${quoteForMessage(threadId)}`);
  }
}

/**
 * Throws a TypeError naming every field of `options` that is not one of `names`, and listing those:
 * a misspelled option (`maxTotalByte`) would otherwise be ignored, and its default silently used.
 * `options` that is not an object is a TypeError too. `who` is the function as the caller knows
 * it, e.g. 'createAgent'.
 */
export function checkOptionNames(who: string, options: unknown, names: readonly string[]): void {
  if (!isRecord(options)) {
    throw new TypeError(`${who}: options must be an object of ${names.join(', ')}, got ${quoteForMessage(options)}`);
  }
  const unknown = Object.keys(options).filter((name) => !names.includes(name));
  if (unknown.length === 0) return;
  const listed = unknown.map((name) => quoteForMessage(name.length > 80 ? `${name.slice(0, 80)}…` : name));
  throw new TypeError(
    `${who}: unknown option${unknown.length === 1 ? '' : 's'} ${listed.join(', ')}; the options are ${names.join(', ')}`,
  );
}
