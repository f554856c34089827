/** True for a count of bytes or events as read from a store or a message: a finite number ≥ 0. */
export const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0;
