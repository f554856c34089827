import { checkInteger } from '../shared/checks.js';

/**
 * The numeric limits of a ToolOutputOffload (its options, and `offload.limits` once checked): a
 * value out of range, not an integer or not finite throws a RangeError naming the option and its
 * range (O10).
 */
export interface OffloadLimits {
  /**
   * A result over this many estimated tokens is offloaded; at least 1000.
   * @default 20_000
   */
  thresholdTokens: number;
  /**
   * The most UTF-8 bytes of one stored result; at least 1 and at most maxTotalBytes.
   * @default 1_048_576
   */
  maxResultBytes: number;
  /**
   * The most UTF-8 bytes one thread's stored results take together.
   * @default 33_554_432
   */
  maxTotalBytes: number;
  /**
   * Lines of the text shown after the header; 0 shows only the header.
   * @default 10
   */
  previewLines: number;
  /**
   * The text's last lines shown after the first ones, past an elision marker.
   * @default 0
   */
  previewTailLines: number;
  /**
   * The age limit, in milliseconds: a stored result older than this is evicted (reason 'expired',
   * its text deleted) at the next update or turn of its thread, and reading it says it expired.
   * Without it, results stay until the bound or the thread's clearing evicts them. A positive
   * integer of at most ten years; `24 * 60 * 60 * 1000` keeps nothing older than a day.
   */
  maxAgeMs?: number;
}

/** The longest maxAgeMs: ten years (a longer limit is a mistake in units, not a wish). */
const maxAgeMsLimit = 10 * 365 * 24 * 60 * 60 * 1000;

/** Per-tool limits, by tool name. */
export type ToolLimits = Readonly<Record<string, { readonly thresholdTokens: number }>>;

const defaultLimits: Readonly<OffloadLimits> = Object.freeze({
  thresholdTokens: 20_000,
  maxResultBytes: 1_048_576,
  maxTotalBytes: 33_554_432,
  previewLines: 10,
  previewTailLines: 0,
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
  const previewTailLines = checkLimit('previewTailLines', pick('previewTailLines'), 0);
  const limits: OffloadLimits = { thresholdTokens, maxResultBytes, maxTotalBytes, previewLines, previewTailLines };
  if (options.maxAgeMs !== undefined) limits.maxAgeMs = checkLimit('maxAgeMs', options.maxAgeMs, 1, maxAgeMsLimit);
  return limits;
}

/**
 * Checks the `tools` option: an object of tool names, each with a thresholdTokens of at least 1000.
 * A bad value throws (a TypeError for a wrong shape, a RangeError for a wrong number) naming the tool.
 */
export function resolveToolLimits(tools: unknown): ToolLimits {
  if (tools === undefined) return Object.freeze({});
  if (typeof tools !== 'object' || tools === null || Array.isArray(tools)) {
    throw new TypeError('ToolOutputOffload: tools must be an object of { [toolName]: { thresholdTokens } }');
  }
  const resolved: Record<string, { thresholdTokens: number }> = Object.create(null);
  for (const [name, limits] of Object.entries(tools)) {
    if (typeof limits !== 'object' || limits === null) {
      throw new TypeError(`ToolOutputOffload: tools[${JSON.stringify(name)}] must be an object { thresholdTokens }`);
    }
    const thresholdTokens = checkInteger(
      `ToolOutputOffload: tools[${JSON.stringify(name)}].thresholdTokens`,
      (limits as { thresholdTokens?: unknown }).thresholdTokens,
      1000,
    );
    resolved[name] = Object.freeze({ thresholdTokens });
  }
  return Object.freeze(resolved);
}
