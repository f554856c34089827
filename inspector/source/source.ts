import type {
  EvictionRecord,
  ListOptions,
  OffloadStore,
  StoredResultInfo,
  StoreEvent,
  StoreFailure,
  UnreadableRecord,
} from '../../lib/index.js';
import { isStep, type LedgerRecord } from '../context/records.js';
import { isBound, isCount, type StoreInfo } from './store-info.js';

/**
 * The read side of a store: all the inspector needs. `failures` is optional so a store written
 * before it existed (or any custom store) still works; `estimate` (IndexedDbOffloadStore has it)
 * and `persisted` are shown in the header where the store has them.
 */
export type InspectableStore = Pick<OffloadStore, 'list' | 'read' | 'evictions' | 'totalBytes' | 'subscribe'> & {
  failures?: OffloadStore['failures'];
  /** Records the store found malformed and skipped (IndexedDbOffloadStore reports them). */
  unreadable?: OffloadStore['unreadable'];
  /** A thread's bound, for its gauge (the built-in stores report it). */
  bound?: OffloadStore['bound'];
  /** A thread's context ledger, for the Context tab and the budget beside its gauge (the built-in stores keep it). */
  requests?: OffloadStore['requests'];
  /** The results cleared from a thread's requests, for the "cleared" marks (the built-in stores keep them). */
  cleared?: OffloadStore['cleared'];
  /** The origin's `navigator.storage.estimate()`, where the browser tells. */
  estimate?(): Promise<StorageEstimate | undefined>;
  /** The origin's `navigator.storage.persisted()`. */
  persisted?(): Promise<boolean>;
};

/** A result cleared from a thread's requests (the store's record; lib/index.ts names it through OffloadStore). */
type ClearedResult = Awaited<ReturnType<NonNullable<OffloadStore['cleared']>>>[number];

/**
 * What `InspectorSource.requests` may be asked besides the thread: the store's own options of
 * `requests` (RequestsOptions, on the store's branch).
 */
export interface LedgerReadOptions {
  /** Only the records of later steps (step > after): those after the ones the panel holds. */
  after?: number;
  /** Only the newest that many records (of those after `after`): the latest request, not the ledger. */
  newest?: number;
}

/**
 * One store change as the panel hears it: what happened (`'stored'`, `'evicted'`, `'restored'`,
 * `'failed'`) to which key of which thread, and the thread's total and bound after it when known.
 * It tells the panel which thread to read again, and which entry. A `'request'` (a model request
 * recorded in the thread's context ledger) names no key (`''`) and tells its `step`; nor does a
 * `'thread-cleared'` (`clearThread`: the thread's failures, log, ledger and cleared results went too).
 */
export interface SourceChange {
  type: string;
  threadId: string;
  key: string;
  /** A `'request'`'s step, when told. */
  step?: number;
  totalBytes?: number;
  /** The thread's bound (the smallest maxTotalBytes of its writers), when the store tells it. */
  bound?: number;
}

/**
 * Where the inspector reads from: `mountInspector(target, { source })`. `{ store }` and
 * `{ channel }` are sources built in; write one to show a store the panel cannot reach itself
 * (behind a port, a worker's messages, a server). Every answer is checked by the panel, record by
 * record, so a source may pass on what it receives as it is.
 */
export interface InspectorSource {
  /** Names the source in the panel's header, unless mountInspector's `label` option does. */
  readonly label?: string;
  /**
   * Entries of one thread (all threads without one), oldest first. With `options.keys`, only those
   * keys' entries: the panel asks so after a change that named them (answering with more is fine).
   */
  list(threadId?: string, options?: ListOptions): Promise<StoredResultInfo[]>;
  /**
   * The eviction log of one thread (or all), oldest first. With `options.keys`, only those keys'
   * records: the panel asks so after a change that named them (answering with more is fine).
   */
  evictions(threadId?: string, options?: ListOptions): Promise<EvictionRecord[]>;
  /** Results that could not be stored; without this method, none are shown. */
  failures?(threadId?: string): Promise<StoreFailure[]>;
  /** Records the store skipped as malformed, of one thread (or all); without this method, none are shown. */
  unreadable?(threadId?: string): Promise<UnreadableRecord[]>;
  /** A thread's stored bytes, for its gauge. */
  totalBytes(threadId: string): Promise<number>;
  /**
   * A thread's bound (the smallest maxTotalBytes of the agents that wrote to it), for its gauge,
   * read with its total; undefined where the store does not know it. Without this method (or with
   * undefined) the gauge shows mountInspector's `bound` option, else the bound `info()` reports.
   */
  bound?(threadId: string): Promise<number | undefined>;
  /** A stored text, read when an entry is opened. */
  read(threadId: string, key: string): Promise<string>;
  /**
   * The results cleared from the thread's model requests (`OffloadStore.cleared`, C2–C4), for the
   * "cleared" marks; without this method, none are marked.
   */
  cleared?(threadId: string): Promise<ClearedResult[]>;
  /**
   * The thread's context ledger (`OffloadStore.requests`), oldest first, for the Context tab; with
   * `options.after`, only the later steps' records (answering with more is fine). Undefined, or
   * no such method: the store keeps no ledger.
   */
  requests?(threadId: string, options?: LedgerReadOptions): Promise<LedgerRecord[] | undefined>;
  /**
   * The newest record of the thread's context ledger (after `options.after`, when given), for the
   * budget beside its gauge; undefined when there is none. Without this method, the last of
   * `requests` is used.
   */
  latestRequest?(threadId: string, options?: LedgerReadOptions): Promise<LedgerRecord | undefined>;
  /** The bound and the origin's storage, where the source knows them; without this method, unknown. */
  info?(): Promise<StoreInfo>;
  /**
   * Calls `listener` after changes: with the changes, so the panel reads only what they name, or
   * with undefined when anything may have changed (it reads everything again). Returns a function
   * that stops calling it; the panel calls it when unmounted.
   */
  onChange(listener: (changes: readonly (SourceChange | StoreEvent)[] | undefined) => void): () => void;
}

/** What the panel hears of changes: each checked (toSourceChanges), or undefined when anything may have changed. */
export type ChangeListener = (changes: readonly SourceChange[] | undefined) => void;

/**
 * A source as the panel uses it: every method present, each answering with a promise, changes
 * checked (a store's own events may be handed on as they are, e.g. a 'request' event, which names no key).
 */
export type PanelSource = Required<Omit<InspectorSource, 'onChange'>> & {
  onChange(listener: ChangeListener): () => void;
};

/**
 * The change a store event stands for, or undefined when the event does not say which thread
 * (a custom store's own events): then the panel reads everything again.
 */
export function toSourceChange(event: unknown): SourceChange | undefined {
  if (typeof event !== 'object' || event === null) return undefined;
  const { type, threadId, key, totalBytes, bound, step } = event as Record<string, unknown>;
  if (type === 'request' && typeof threadId === 'string') {
    return { type, threadId, key: '', ...(isStep(step) ? { step } : {}) };
  }
  if (type === 'thread-cleared' && typeof threadId === 'string') return { type, threadId, key: '' };
  if (typeof type !== 'string' || typeof threadId !== 'string' || typeof key !== 'string') return undefined;
  // A total or bound that is not one is dropped: the panel reads it instead of showing it.
  return {
    type,
    threadId,
    key,
    ...(isCount(totalBytes) ? { totalBytes } : {}),
    ...(isBound(bound) ? { bound } : {}),
  };
}

/** Every change checked; undefined (read everything) when one is not well-formed, or none are given. */
export function toSourceChanges(changes: unknown): SourceChange[] | undefined {
  const checked = Array.isArray(changes) ? changes.map(toSourceChange) : [undefined];
  return checked.every((change) => change !== undefined) ? (checked as SourceChange[]) : undefined;
}
