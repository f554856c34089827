import type {
  EvictionRecord,
  ListOptions,
  StoredResultInfo,
  StoreEvent,
  StoreFailure,
  UnreadableRecord,
} from '../../lib/index.js';
import { isStep, type LedgerRecord } from '../context/records.js';
import type { LedgerReadOptions } from './context-wire.js';
import { isCount } from './count.js';
import type { ClearedResult } from './inspectable-store.js';
import { shown } from './records.js';
import { isBound, type StoreInfo } from './store-info.js';

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

/** The methods of a source: 1 when it must have it, 0 when it may. */
const methods = {
  list: 1,
  evictions: 1,
  totalBytes: 1,
  read: 1,
  onChange: 1,
  failures: 0,
  unreadable: 0,
  info: 0,
  bound: 0,
  requests: 0,
  cleared: 0,
  latestRequest: 0,
};

/** Throws a TypeError naming what is wrong with a source: a method missing or not a function, or its label. */
export function assertInspectorSource(source: unknown, where: string): asserts source is InspectorSource {
  if (typeof source !== 'object' || source === null || Array.isArray(source)) {
    throw new TypeError(`${where}: source must be an InspectorSource object, got ${shown(source)}`);
  }
  const fields = source as Record<string, unknown>;
  for (const [name, needed] of Object.entries(methods)) {
    const value = fields[name];
    if (typeof value !== 'function' && (needed || value !== undefined)) {
      throw new TypeError(
        `${where}: source.${name} must be a function${needed ? '' : ' when given'}, got ${shown(value)}`,
      );
    }
  }
  if (fields.label !== undefined && typeof fields.label !== 'string') {
    throw new TypeError(`${where}: source.label must be a string when given, got ${shown(fields.label)}`);
  }
}

/**
 * The panel's view of a checked source: an optional method missing answers with nothing to show,
 * every answer is a promise, and changes that are not well-formed count as "anything changed".
 */
export function panelSource(source: InspectorSource, label: string): PanelSource {
  // Async, so a method that throws, or answers with no promise, still ends as a promise.
  return {
    label: source.label || label,
    list: async (threadId, options) => source.list(threadId, options),
    evictions: async (threadId, options) => source.evictions(threadId, options),
    failures: async (threadId) => (source.failures ? source.failures(threadId) : []),
    unreadable: async (threadId) => (source.unreadable ? source.unreadable(threadId) : []),
    totalBytes: async (threadId) => source.totalBytes(threadId),
    bound: async (threadId) => (source.bound ? source.bound(threadId) : undefined),
    read: async (threadId, key) => source.read(threadId, key),
    info: async () => (source.info ? source.info() : {}),
    requests: async (threadId, options) => (source.requests ? source.requests(threadId, options) : undefined),
    cleared: async (threadId) => (source.cleared ? source.cleared(threadId) : []),
    latestRequest: async (threadId, options) => {
      if (source.latestRequest) return source.latestRequest(threadId, options);
      const records: unknown = source.requests ? await source.requests(threadId, options) : undefined;
      return Array.isArray(records) ? records.at(-1) : undefined;
    },
    onChange(listener) {
      const stop: unknown = source.onChange((changes) => listener(toSourceChanges(changes)));
      return () => {
        if (typeof stop === 'function') stop();
      };
    },
  };
}
