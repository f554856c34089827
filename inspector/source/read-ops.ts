import type { StoreEvent } from '../../lib/index.js';
import { isStep } from '../context/records.js';
import { isLedgerAnswer, ledgerPage, readLedger, readLedgerPages } from './context-wire.js';
import { shown } from './records.js';
import {
  type ChangeListener,
  type InspectableStore,
  type InspectorSource,
  type PanelSource,
  toSourceChange,
  toSourceChanges,
} from './source.js';
import { isBound, isCount, isStoreInfo, type StoreInfo } from './store-info.js';

/**
 * The store's read operations, once: each one's arguments (from the source method's parameters,
 * and as checked when they arrive in a request from another window), how a store in the page
 * answers it, what crosses a channel for it, how an answer that crossed is checked, and what a
 * source without the method answers. The direct source (`storeSource`), the exposing side
 * (`exposeToInspector`), the panel's side of a channel or of the DevTools port (`remoteSource`),
 * the extension's hops (`extension/transport.ts`) and the panel's view of any source
 * (`panelSource`) are all made from this table: a new read is one entry here (and its method on
 * InspectorSource).
 */

const storeMethods = ['list', 'read', 'evictions', 'totalBytes', 'subscribe'] as const;

/** Throws a TypeError naming the first method a store lacks. */
export function assertInspectableStore(store: unknown, where: string): asserts store is InspectableStore {
  if (typeof store !== 'object' || store === null) {
    throw new TypeError(
      `${where}: store must be an OffloadStore object, got ${store === null ? 'null' : typeof store}`,
    );
  }
  for (const method of storeMethods) {
    if (typeof (store as Record<string, unknown>)[method] !== 'function') {
      throw new TypeError(`${where}: store has no ${method}() method; pass an OffloadStore`);
    }
  }
}

/** The source methods that read (every one but `onChange`), each an operation of the table. */
export type ReadOpName = Exclude<keyof InspectorSource, 'label' | 'onChange'>;

type Fields = Record<string, unknown>;
type Params<N extends ReadOpName> = Parameters<NonNullable<InspectorSource[N]>>;

/** Asks the other side (a channel, the DevTools port) one request: `op` and its checked arguments. */
type Ask = (op: ReadOpName, args: Fields) => Promise<unknown>;

interface ReadOp<N extends ReadOpName> {
  /** A source must have this method (else it may leave it out: `missing` answers). */
  required: boolean;
  /** The method's parameters as the request's fields: what crosses a channel. */
  args(...params: Params<N>): Fields;
  /** The fields of a request from another window, checked; undefined for a malformed one (it is ignored). */
  parse(fields: Fields): Fields | undefined;
  /** A store in this window answers (`bound`: the exposing side's fallback, for `info`). */
  serve(store: InspectableStore, args: Fields, bound: number | undefined): Promise<unknown>;
  /** What the exposing side posts, when it is not what `serve` answers (`undefined` does not survive JSON). */
  expose?(store: InspectableStore, args: Fields, bound: number | undefined): Promise<unknown>;
  /** True for an answer as it arrives over a channel (anything else is ignored: a valid one may follow). */
  answer(value: unknown): boolean;
  /** The panel's side over a channel, when it is not one request of these arguments (the ledger comes in pages). */
  remote?(ask: Ask, args: Fields, name: ReadOpName): Promise<unknown>;
  /** What a source without the method answers. */
  missing?(source: InspectorSource, ...params: Params<N>): Promise<unknown>;
}

const isString = (value: unknown): value is string => typeof value === 'string';
const isObject = (value: unknown): value is Fields =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
/**
 * A list of records: an array of objects. Their fields are checked one by one where they are shown
 * (inspector/source/records.ts), so one damaged record is shown as such instead of hiding every other.
 */
const isRecordList = (value: unknown): boolean => Array.isArray(value) && value.every(isObject);

/**
 * Characters of keys one 'list' request names at most: well within what the DevTools extension
 * carries for a request (8 KiB). More keys changed than that: the panel asks for the whole thread.
 */
const MAX_REQUEST_KEYS_CHARS = 4096;

/** True for the keys a request may name: strings, together within MAX_REQUEST_KEYS_CHARS. */
function isKeyList(keys: unknown): keys is string[] {
  if (!Array.isArray(keys)) return false;
  let chars = 0;
  for (const key of keys) {
    if (!isString(key)) return false;
    chars += key.length + 3;
  }
  return chars <= MAX_REQUEST_KEYS_CHARS;
}

/** Calls the store's method with `params` when it has one, else answers `none` (a store written before it, or a custom one). */
function ifPresent(
  store: InspectableStore,
  method: 'failures' | 'unreadable' | 'bound' | 'cleared',
  params: readonly unknown[],
  none: unknown,
): Promise<unknown> {
  const call = store[method] as ((...params: unknown[]) => Promise<unknown>) | undefined;
  return typeof call === 'function' ? call.apply(store, params as unknown[]) : Promise.resolve(none);
}

// The shapes of arguments, each with its check.

/** `(threadId?)`: one thread, or every thread. */
const anyThread = {
  args: (threadId?: string): Fields => (threadId === undefined ? {} : { threadId }),
  parse: ({ threadId }: Fields) => (threadId === undefined ? {} : isString(threadId) ? { threadId } : undefined),
};

/** `(threadId?, { keys }?)`: a thread's records of only those keys. */
const anyThreadKeys = {
  args: (threadId?: string, options?: { keys?: readonly string[] }): Fields =>
    threadId === undefined ? {} : options?.keys ? { threadId, keys: [...options.keys] } : { threadId },
  parse: (fields: Fields) => {
    const { threadId, keys } = fields;
    if (keys === undefined) return anyThread.parse(fields);
    return isString(threadId) && isKeyList(keys) ? { threadId, keys } : undefined;
  },
  // Too many keys for one request: the whole thread (the panel keeps the keys it asked for).
  remote: (ask: Ask, args: Fields, name: ReadOpName) =>
    ask(name, args.keys === undefined || isKeyList(args.keys) ? args : { threadId: args.threadId }),
};

/** `(threadId)`. */
const oneThread = {
  args: (threadId: string): Fields => ({ threadId }),
  parse: ({ threadId }: Fields) => (isString(threadId) ? { threadId } : undefined),
};

/** `(threadId, { after }?)`: a thread's ledger records after a step. */
const threadAfter = {
  args: (threadId: string, options?: { after?: number }): Fields =>
    options?.after === undefined ? { threadId } : { threadId, after: options.after },
  parse: ({ threadId, after }: Fields) =>
    isString(threadId) && (after === undefined || isStep(after))
      ? { threadId, ...(after === undefined ? {} : { after }) }
      : undefined,
};

const noArgs = { args: (): Fields => ({}), parse: (): Fields => ({}) };

const threadOf = (args: Fields) => args.threadId as string | undefined;
const keysOf = (args: Fields) => args.keys as readonly string[] | undefined;
const afterOf = (args: Fields) => args.after as number | undefined;

/** `list` or `evictions` of a thread, of only `keys` when given (a store written without the option is called as before). */
function readKeyed(store: InspectableStore, method: 'list' | 'evictions', args: Fields): Promise<unknown> {
  const read = store[method] as (threadId?: string, options?: { keys: readonly string[] }) => Promise<unknown>;
  const keys = keysOf(args);
  return keys ? read.call(store, threadOf(args), { keys }) : read.call(store, threadOf(args));
}

const readOps: { readonly [N in ReadOpName]: ReadOp<N> } = {
  list: {
    required: true,
    ...anyThreadKeys,
    serve: (store, args) => readKeyed(store, 'list', args),
    answer: isRecordList,
  },
  evictions: {
    required: true,
    ...anyThreadKeys,
    serve: (store, args) => readKeyed(store, 'evictions', args),
    answer: isRecordList,
  },
  failures: {
    required: false,
    ...anyThread,
    serve: (store, args) => ifPresent(store, 'failures', [threadOf(args)], []),
    answer: isRecordList,
    missing: async () => [],
  },
  unreadable: {
    required: false,
    ...anyThread,
    // Called with no argument for every thread's (a store may count its arguments).
    serve: (store, args) => ifPresent(store, 'unreadable', threadOf(args) === undefined ? [] : [threadOf(args)], []),
    answer: isRecordList,
    missing: async () => [],
  },
  totalBytes: {
    required: true,
    ...oneThread,
    serve: (store, args) => store.totalBytes(args.threadId as string),
    answer: isCount,
  },
  bound: {
    required: false,
    ...oneThread,
    serve: (store, args) => ifPresent(store, 'bound', [threadOf(args)], undefined),
    // null, not undefined, for "not known": it survives the extension's JSON hops.
    expose: async (store, args) => {
      const bound = await ifPresent(store, 'bound', [threadOf(args)], undefined);
      return isBound(bound) ? bound : null;
    },
    answer: (value) => value === null || isBound(value),
    missing: async () => undefined,
  },
  read: {
    required: true,
    args: (threadId: string, key: string): Fields => ({ threadId, key }),
    parse: ({ threadId, key }) => (isString(threadId) && isString(key) ? { threadId, key } : undefined),
    serve: (store, args) => store.read(args.threadId as string, args.key as string),
    answer: isString,
  },
  cleared: {
    required: false,
    ...oneThread,
    serve: (store, args) => ifPresent(store, 'cleared', [threadOf(args)], []),
    answer: isRecordList,
    missing: async () => [],
  },
  requests: {
    required: false,
    ...threadAfter,
    serve: (store, args) => readLedger(store, args.threadId as string, afterOf(args)),
    // The context ledger crosses in pages (inspector/source/context-wire.ts).
    expose: (store, args) => ledgerPage(store, args.threadId as string, afterOf(args)),
    answer: isLedgerAnswer,
    remote: (ask, args) =>
      readLedgerPages(
        (after) => ask('requests', { threadId: args.threadId, ...(after === undefined ? {} : { after }) }),
        afterOf(args),
      ),
    missing: async () => undefined,
  },
  latestRequest: {
    required: false,
    ...threadAfter,
    // One record crosses, not the ledger; null: the thread has no record (after the step asked), or no ledger.
    serve: async (store, args) => (await readLedger(store, args.threadId as string, afterOf(args), 1))?.at(-1),
    answer: (value) => value === null || isObject(value),
    missing: async (source, threadId, options) => {
      const records: unknown = source.requests ? await source.requests(threadId, options) : undefined;
      return Array.isArray(records) ? records.at(-1) : undefined;
    },
  },
  // Each thread's bound comes from the store (`bound`); the exposing side's option is the fallback.
  info: {
    required: false,
    ...noArgs,
    serve: (store, _args, bound) => readStoreInfo(store, bound),
    answer: isStoreInfo,
    missing: async () => ({}),
  },
};

/** The read operations by name; a Map, so a request naming `__proto__` or `toString` finds none. */
const byName: ReadonlyMap<string, ReadOp<ReadOpName>> = new Map(
  Object.entries(readOps) as Array<[string, ReadOp<ReadOpName>]>,
);

/** The operation a request from another window names, or undefined for one this version does not know. */
export const readOpNamed = (op: unknown): ReadOp<ReadOpName> | undefined => (isString(op) ? byName.get(op) : undefined);

/** True when `value` is a well-formed answer to `op` as it arrives over a channel. */
export const isAnswer = (op: ReadOpName, value: unknown): boolean => readOps[op].answer(value);

/** The exposing side's answer to a checked request: what `serve` answers, `undefined` as null (JSON has none). */
export async function exposedAnswer(
  op: ReadOpName,
  store: InspectableStore,
  args: Fields,
  bound: number | undefined,
): Promise<unknown> {
  const spec: ReadOp<ReadOpName> = readOps[op];
  const value = await (spec.expose ?? spec.serve)(store, args, bound);
  return value === undefined ? null : value;
}

/** Every read method, made from the table by `make(op, name)`. */
function readMethods(make: (op: ReadOp<ReadOpName>, name: ReadOpName) => (...params: never[]) => Promise<unknown>) {
  const methods: Record<string, unknown> = {};
  for (const [name, op] of byName) methods[name] = make(op, name as ReadOpName);
  return methods as {
    [N in ReadOpName]-?: (...params: Params<N>) => Promise<Awaited<ReturnType<NonNullable<InspectorSource[N]>>>>;
  };
}

/** The source methods over a store in this window. */
const storeReads = (store: InspectableStore) =>
  readMethods(
    (op) =>
      (...params) =>
        op.serve(store, (op.args as (...p: unknown[]) => Fields)(...params), undefined),
  );

/** The source methods over another window: each a request (`ask`), its answer checked by the table; null read as undefined. */
export const remoteReads = (ask: Ask) =>
  readMethods((op, name) => async (...params) => {
    const args = (op.args as (...p: unknown[]) => Fields)(...params);
    return (await (op.remote ? op.remote(ask, args, name) : ask(name, args))) ?? undefined;
  });

/**
 * The read methods of a checked source as the panel calls them: every one answers with a promise
 * (a method that throws, or answers with no promise, still ends as one), and one the source lacks
 * answers as the table says.
 */
const panelReads = (source: InspectorSource) =>
  readMethods((op, name) => async (...params) => {
    const method = source[name] as ((...p: unknown[]) => unknown) | undefined;
    if (method) return method.apply(source, params);
    return (op.missing as (source: InspectorSource, ...p: unknown[]) => Promise<unknown>)(source, ...params);
  });

/** The methods of a source: true when it must have it. */
const sourceMethods: ReadonlyArray<[name: string, required: boolean]> = [
  ...[...byName].map(([name, op]): [string, boolean] => [name, op.required]),
  ['onChange', true],
];

/** Calls the store's optional method when it has one; undefined when it has none or it fails. */
async function optional<T>(store: InspectableStore, method: 'estimate' | 'persisted'): Promise<T | undefined> {
  const call: unknown = store[method];
  if (typeof call !== 'function') return undefined;
  try {
    return await (call as (this: InspectableStore) => Promise<T>).call(store);
  } catch {
    return undefined; // the origin's storage is a side note: the records still show
  }
}

/**
 * The store's side of a StoreInfo: `bound` as given, the origin's usage and quota where the store
 * has `estimate()` (IndexedDbOffloadStore does), `persisted` where it has `persisted()`.
 */
async function readStoreInfo(store: InspectableStore, bound: number | undefined): Promise<StoreInfo> {
  const [estimate, persisted] = await Promise.all([
    optional<StorageEstimate | undefined>(store, 'estimate'),
    optional<boolean>(store, 'persisted'),
  ]);
  const info: StoreInfo = {};
  if (bound !== undefined) info.bound = bound;
  if (isCount(estimate?.usage)) info.usage = estimate.usage;
  if (isCount(estimate?.quota)) info.quota = estimate.quota;
  if (typeof persisted === 'boolean') info.persisted = persisted;
  return info;
}

/** Throws a TypeError naming what is wrong with a source: a method missing or not a function, or its label. */
export function assertInspectorSource(source: unknown, where: string): asserts source is InspectorSource {
  if (typeof source !== 'object' || source === null || Array.isArray(source)) {
    throw new TypeError(`${where}: source must be an InspectorSource object, got ${shown(source)}`);
  }
  const fields = source as Record<string, unknown>;
  for (const [name, needed] of sourceMethods) {
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
 * The panel's view of a checked source: an optional method missing answers as the table says,
 * every answer is a promise, and changes that are not well-formed count as "anything changed".
 */
export function panelSource(source: InspectorSource, label: string): PanelSource {
  return {
    label: source.label || label,
    ...panelReads(source),
    onChange(listener) {
      const stop: unknown = source.onChange((changes) => listener(toSourceChanges(changes)));
      return () => {
        if (typeof stop === 'function') stop();
      };
    },
  };
}

/**
 * A source over a store in this window: one subscription to the store, however many listen, and
 * `close()` to drop it.
 */
export function storeSource(store: InspectableStore): InspectorSource & { close(): void } {
  const listeners = new Set<ChangeListener>();
  let unsubscribe: (() => void) | undefined;
  const stopListening = () => {
    unsubscribe?.();
    unsubscribe = undefined;
  };
  return {
    label: 'this window',
    ...storeReads(store),
    onChange(listener) {
      listeners.add(listener);
      unsubscribe ??= store.subscribe((event: StoreEvent) => {
        const change = toSourceChange(event);
        for (const each of [...listeners]) each(change && [change]);
      });
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0) stopListening();
      };
    },
    close() {
      listeners.clear();
      stopListening();
    },
  };
}
