import { BackendError } from '../shared/errors.js';
import { evictionInWords } from './eviction-words.js';
import type { EvictionRecord } from './offload-store.js';

/**
 * Why a stored result cannot be read, as data: what a store's `read` and `readLines` throw. A
 * BackendError with code 'evicted', carrying the key's latest eviction record (its reason and
 * time), or 'not-found': never stored, or stored but unreadable, with what is wrong in `damage`.
 * The message states the fact, an eviction in the words the model reads (O4), which the offload's
 * backend repeats under the path the model asked for.
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
        ? (['evicted', evictionInWords(why.eviction.path, why.eviction)] as const)
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
