/** The numeric limits of a ToolOutputOffload, checked once in its constructor (O10). */
export interface OffloadLimits {
  /** A result over this many estimated tokens is offloaded; at least 1000. */
  thresholdTokens: number;
  /** The most UTF-8 bytes of one stored result; at least 1 and at most maxTotalBytes. */
  maxResultBytes: number;
  /** The most UTF-8 bytes one thread's stored results take together. */
  maxTotalBytes: number;
  /** How many lines of the text the preview shows; 0 shows only the header. */
  previewLines: number;
}

export const defaultLimits: Readonly<OffloadLimits> = Object.freeze({
  thresholdTokens: 20_000,
  maxResultBytes: 1_048_576,
  maxTotalBytes: 33_554_432,
  previewLines: 10,
});

/** Past this, numbers stop being exact integers; no byte count or token count goes there. */
const maxInteger = Number.MAX_SAFE_INTEGER;

function checkInteger(name: keyof OffloadLimits, value: unknown, min: number, max: number, range: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    const got = typeof value === 'number' ? String(value) : `${typeof value} ${JSON.stringify(value)}`;
    throw new RangeError(`ToolOutputOffload: ${name} must be an integer ${range}; got ${got}`);
  }
  return value;
}

/**
 * Fills in defaults and checks every limit: a non-integer, non-finite or out-of-range value throws a
 * RangeError naming the option and its allowed range.
 */
export function resolveLimits(options: Partial<Record<keyof OffloadLimits, unknown>> = {}): OffloadLimits {
  const pick = (name: keyof OffloadLimits) => (options[name] === undefined ? defaultLimits[name] : options[name]);
  const thresholdTokens = checkInteger(
    'thresholdTokens',
    pick('thresholdTokens'),
    1000,
    maxInteger,
    'of at least 1000',
  );
  const maxTotalBytes = checkInteger('maxTotalBytes', pick('maxTotalBytes'), 1, maxInteger, 'of at least 1');
  // An explicit maxTotalBytes below the default maxResultBytes lowers the default, rather than
  // making the default combination invalid.
  const maxResultBytes = checkInteger(
    'maxResultBytes',
    options.maxResultBytes === undefined
      ? Math.min(defaultLimits.maxResultBytes, maxTotalBytes)
      : options.maxResultBytes,
    1,
    maxTotalBytes,
    `from 1 to maxTotalBytes (${maxTotalBytes})`,
  );
  const previewLines = checkInteger('previewLines', pick('previewLines'), 0, maxInteger, 'of at least 0');
  return { thresholdTokens, maxResultBytes, maxTotalBytes, previewLines };
}
