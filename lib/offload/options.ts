import { checkInteger } from '../checks.js';

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

function checkLimit(name: keyof OffloadLimits, value: unknown, min: number, max?: number): number {
  return checkInteger(`ToolOutputOffload: ${name}`, value, min, max);
}

/**
 * Fills in defaults and checks every limit: a non-integer, non-finite or out-of-range value throws a
 * RangeError naming the option and its allowed range.
 */
export function resolveLimits(options: Partial<Record<keyof OffloadLimits, unknown>> = {}): OffloadLimits {
  const pick = (name: keyof OffloadLimits) => (options[name] === undefined ? defaultLimits[name] : options[name]);
  const thresholdTokens = checkLimit('thresholdTokens', pick('thresholdTokens'), 1000);
  const maxTotalBytes = checkLimit('maxTotalBytes', pick('maxTotalBytes'), 1);
  // An explicit maxTotalBytes below the default maxResultBytes lowers the default, rather than
  // making the default combination invalid. At most maxTotalBytes: the name says where the top comes from.
  const maxResultBytes = checkInteger(
    'ToolOutputOffload: maxResultBytes (at most maxTotalBytes)',
    options.maxResultBytes === undefined
      ? Math.min(defaultLimits.maxResultBytes, maxTotalBytes)
      : options.maxResultBytes,
    1,
    maxTotalBytes,
  );
  const previewLines = checkLimit('previewLines', pick('previewLines'), 0);
  return { thresholdTokens, maxResultBytes, maxTotalBytes, previewLines };
}
