import { BackendError } from '../shared/errors.js';
import type { EvictionReason, EvictionRecord } from './offload-store.js';

/** Each eviction reason as a plain fact, in the store's own terms. */
const evictedBecause: Record<EvictionReason, string> = {
  bound: "to keep its thread's total within maxTotalBytes",
  summarized: 'because a summary covers it (dropped as summarized)',
  blocked: 'because the turn that stored it was blocked and undone (restoreTurn)',
  replaced: 'because a newer result under the same key replaced it',
  expired: 'because it expired (created before the age limit)',
  cleared: 'because its thread was cleared (clearThread)',
};

/**
 * Why a stored result cannot be read, as data: what a store's `read` and `readLines` throw. A
 * BackendError with code 'evicted', carrying the key's latest eviction record (its reason and
 * time), or 'not-found': never stored, or stored but unreadable, with what is wrong in `damage`.
 * The message states the fact; a reader words it for whoever reads it (the offload's backend, for
 * the model).
 */
export class StoreReadError extends BackendError {
  readonly threadId: string;
  readonly key: string;
  // Declared only: each is an own property only when it applies.
  /** The key's latest eviction (code 'evicted'). */
  declare readonly eviction?: EvictionRecord;
  /** What is malformed in the result's record or text (code 'not-found', stored but unreadable). */
  declare readonly damage?: string;

  constructor(
    threadId: string,
    key: string,
    why: { eviction: EvictionRecord } | { damage: string } | { neverStored: true },
  ) {
    const [code, message] =
      'eviction' in why
        ? (['evicted', `${why.eviction.path} was evicted ${evictedBecause[why.eviction.reason]}`] as const)
        : 'damage' in why
          ? (['not-found', `${key} is unreadable: ${why.damage}`] as const)
          : (['not-found', `${key} not found: no result is stored under this key in thread ${threadId}`] as const);
    super(code, message);
    this.threadId = threadId;
    this.key = key;
    if ('eviction' in why) this.eviction = why.eviction;
    if ('damage' in why) this.damage = why.damage;
  }
}
