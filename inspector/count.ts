/** True for a count of bytes or events as read from a store or a message: a finite number ≥ 0. */
export const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0;

/** True for a step of a thread's context ledger as read or received: an integer ≥ 0 (0: before the first). */
export const isStep = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;
