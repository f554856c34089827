/** True for a count of bytes or events as read from a store or a message: a finite number ≥ 0. */
export const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0;

/**
 * What the panel shows beside the store's records: the offload's bound, for the gauges, and the
 * origin's storage. Every field is optional: absent means nobody said (a store without
 * `estimate()`, a panel mounted without a bound). Plain numbers and booleans, so it crosses a
 * BroadcastChannel and the extension's JSON hops alike.
 */
export interface StoreInfo {
  /**
   * The offload's `maxTotalBytes`, as whoever exposed the store gave it: the gauges' fallback for
   * threads whose bound the store does not report (`OffloadStore.bound`).
   */
  bound?: number;
  /** Bytes the origin uses, from `navigator.storage.estimate()` in the store's window. */
  usage?: number;
  /** Bytes the origin may use. */
  quota?: number;
  /** Whether the browser keeps the origin's storage under pressure; only where the store offers `persisted()`. */
  persisted?: boolean;
}

/**
 * True for a thread's bound as a store reports it (`OffloadStore.bound`, an event's `bound`): a
 * maxTotalBytes, a positive integer of bytes. Anything else read or received is dropped, not shown.
 */
export const isBound = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value > 0;

/** Throws a RangeError unless `bound` is undefined or a positive number of bytes. */
export function assertBound(bound: unknown, where: string): asserts bound is number | undefined {
  if (bound !== undefined && !(isCount(bound) && bound > 0)) {
    throw new RangeError(`${where}: bound must be a positive number of bytes (maxTotalBytes), got ${String(bound)}`);
  }
}

/**
 * Throws a TypeError naming each field of `options` not in `names` (a misspelled option would be
 * ignored, its default silently used). The package's own check is internal to lib; this is its twin
 * for the inspector, which imports only the main entry.
 */
export function assertOptionNames(options: object, names: readonly string[], where: string): void {
  const unknown = Object.keys(options).filter((name) => !names.includes(name));
  if (unknown.length > 0) {
    const listed = unknown.map((name) => JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}…` : name));
    throw new TypeError(
      `${where}: unknown option${unknown.length === 1 ? '' : 's'} ${listed.join(', ')}; the options are ${names.join(', ')}`,
    );
  }
}

/** True for a StoreInfo as it arrives over a channel: each field absent or of its type. */
export function isStoreInfo(value: unknown): value is StoreInfo {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const { bound, usage, quota, persisted } = value as Record<string, unknown>;
  return (
    (bound === undefined || (isCount(bound) && bound > 0)) &&
    (usage === undefined || isCount(usage)) &&
    (quota === undefined || isCount(quota)) &&
    (persisted === undefined || typeof persisted === 'boolean')
  );
}
