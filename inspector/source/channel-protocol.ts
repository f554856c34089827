import type { StoreEvent } from '../../lib/index.js';
import { KNOWN_CHANGE_TYPES } from './changes.js';
import { type ReadOpName, readOpNamed } from './read-ops.js';
import { type SourceChange, toSourceChanges } from './source.js';
import { isCount } from './store-info.js';

/**
 * The messages between `exposeToInspector` (the window that holds the store) and a panel mounted
 * with `{ channel }`. The exposing side pushes change notices; the panel asks for lists, totals and
 * texts, so a stored text crosses the channel only when the panel asks for it. Every message is
 * checked on receipt: anything malformed is ignored.
 *
 * 'info' (the bound and the origin's storage) came later: an older exposing side ignores it, so
 * the panel asks for it apart from the lists and does without when no answer comes. So did a
 * notice's `changes` (which threads to read again; without them the panel reads everything) and a
 * list request's `threadId` (an older side answers with every thread: the panel keeps the one it
 * asked for). 'unreadable' (records the store skipped as malformed) too: an older side never
 * answers it, and the panel shows none; its `threadId` came later still (an older side answers
 * with every thread's: the panel keeps the thread it asked for). So did an 'evictions' request's
 * `keys`: an older side answers with the thread's whole log, and the panel keeps the keys it asked
 * for. So did 'bound' (a thread's bound, the smallest maxTotalBytes of its writers, answered with a
 * positive integer or null when the store does not know it) and a change's `bound`: an older side
 * never answers the request nor tells the field, and the panel falls back to the bound it was
 * given or 'info' reports. So did 'requests' (a thread's context ledger, in pages:
 * inspector/source/context-wire.ts) and the change type 'request': an older side never answers the
 * request (the Context tab says it could not read the ledger), and its notices naming 'request'
 * are sent apart from the others, so an older panel, which drops them, misses nothing else. So did
 * 'cleared' (a thread's results cleared from its model requests, answered with a list of records):
 * an older side never answers it, and the panel marks none. And 'latestRequest' (the newest record of
 * a thread's ledger, after a step when given, or null), for the budget beside a gauge: one record
 * crosses, not the ledger; an older side never answers it, and the panel shows no budget. And the
 * change type 'thread-cleared' (clearThread), sent apart as 'request' is; an older side never tells
 * it, and the panel then reads the cleared thread's failures, ledger and marks at its next change.
 *
 * Any script of the origin can post on the channel, so nothing received is trusted beyond its
 * shape: a change's type must be one of KNOWN_CHANGE_TYPES (inspector/source/changes.ts) (a notice naming another is dropped: a new
 * type needs a new protocol version), and a notice that a store was exposed makes a panel ask
 * again what it waits for only when it names an exposing side (`instance`) the panel has not heard
 * of (inspector/source/pending-requests.ts, ExposedSides). The exposing side answers each request id once.
 */

export const DEFAULT_CHANNEL = 'tool-output-offload';
export const PROTOCOL = 'tool-output-offload/inspector@1';

/**
 * A request of one of the store's read operations (inspector/source/read-ops.ts): `op`, and its
 * arguments as fields beside it, checked by the operation on receipt.
 */
export interface InspectorRequest {
  protocol: typeof PROTOCOL;
  kind: 'request';
  id: string;
  op: ReadOpName;
  [argument: string]: unknown;
}

interface WireError {
  name: string;
  message: string;
  code?: string;
}

export type InspectorResponse =
  | { protocol: typeof PROTOCOL; kind: 'response'; id: string; ok: true; value: unknown }
  | { protocol: typeof PROTOCOL; kind: 'response'; id: string; ok: false; error: WireError };

/** Pushed after changes (batched) and when a store is first exposed. */
export interface ChangeNotice {
  protocol: typeof PROTOCOL;
  kind: 'changed';
  /** How many store events this notice stands for; 0 says a store was just exposed (ask again). */
  events: number;
  /** The events themselves, when there were at most MAX_NOTICE_CHANGES; absent: read everything. */
  changes?: SourceChange[];
  /**
   * The exposing side that sent it: a random id of each exposeToInspector call, so a panel can
   * tell a store exposed anew from a repeated (or forged) notice. Absent from an older version.
   */
  instance?: string;
}

/**
 * The change types an older panel does not know, so drops a notice naming them: sent in notices of
 * their own, so such a panel misses nothing else.
 */
export const LATER_CHANGE_TYPES: ReadonlySet<string> = new Set<StoreEvent['type']>(['request', 'thread-cleared']);

/** Changes one notice carries at most; a bigger burst is sent as a notice without them. */
export const MAX_NOTICE_CHANGES = 256;

type Fields = Record<string, unknown>;

function isObject(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const isString = (value: unknown): value is string => typeof value === 'string';
const isId = (value: unknown): value is string => isString(value) && value.length > 0 && value.length <= 200;

function isEnvelope(data: unknown, kind: string): data is Fields {
  return isObject(data) && data.protocol === PROTOCOL && data.kind === kind;
}

/** The request when it is one: its envelope, an operation this version knows, and that operation's arguments. */
export function parseRequest(data: unknown): InspectorRequest | undefined {
  if (!isEnvelope(data, 'request') || !isId(data.id)) return undefined;
  const op = readOpNamed(data.op);
  const args = op?.parse(data);
  return args && { ...args, protocol: PROTOCOL, kind: 'request', id: data.id, op: data.op as ReadOpName };
}

export function parseResponse(data: unknown): InspectorResponse | undefined {
  if (!isEnvelope(data, 'response') || !isId(data.id)) return undefined;
  if (data.ok === true && 'value' in data) {
    return { protocol: PROTOCOL, kind: 'response', id: data.id, ok: true, value: data.value };
  }
  const error = data.error;
  if (data.ok === false && isObject(error) && isString(error.name) && isString(error.message)) {
    const code = isString(error.code) ? error.code : undefined;
    return {
      protocol: PROTOCOL,
      kind: 'response',
      id: data.id,
      ok: false,
      error: { name: error.name, message: error.message, ...(code === undefined ? {} : { code }) },
    };
  }
  return undefined;
}

/** The longest thread id, key or type a notice's change may name (keys are at most 64 characters). */
const CHANGE_FIELD_CHARS = 1024;

/**
 * The notice's changes when every one is well-formed and there are not too many; undefined (read
 * everything) when not; null when one names a type not in KNOWN_CHANGE_TYPES (the notice is dropped).
 */
function parseChanges(value: unknown): SourceChange[] | undefined | null {
  if (!Array.isArray(value) || value.length > MAX_NOTICE_CHANGES) return undefined;
  if (value.some((change) => isObject(change) && isString(change.type) && !KNOWN_CHANGE_TYPES.has(change.type)))
    return null;
  const changes = toSourceChanges(value);
  const short = changes?.every((change) =>
    [change.type, change.threadId, change.key].every((f) => f.length <= CHANGE_FIELD_CHARS),
  );
  return short ? changes : undefined;
}

export function parseNotice(data: unknown): ChangeNotice | undefined {
  if (!isEnvelope(data, 'changed') || !isCount(data.events)) return undefined;
  const { events, instance } = data;
  if (instance !== undefined && !isId(instance)) return undefined;
  const changes = events === 0 ? undefined : parseChanges(data.changes);
  if (changes === null) return undefined;
  return {
    protocol: PROTOCOL,
    kind: 'changed',
    events,
    ...(changes ? { changes } : {}),
    ...(instance === undefined ? {} : { instance }),
  };
}

/**
 * One notice standing for two (a relay that batches them): a 0 (a store was just exposed) keeps
 * its meaning and the exposing side it names (the later one's); the changes are kept while both
 * have them and they fit in one notice.
 */
export function mergeNotices(first: ChangeNotice, second: ChangeNotice): ChangeNotice {
  if (first.events === 0 || second.events === 0) {
    const { instance } = second.events === 0 ? second : first;
    return { protocol: PROTOCOL, kind: 'changed', events: 0, ...(instance === undefined ? {} : { instance }) };
  }
  const events = first.events + second.events;
  const changes =
    first.changes && second.changes && first.changes.length + second.changes.length <= MAX_NOTICE_CHANGES
      ? [...first.changes, ...second.changes]
      : undefined;
  const instance = first.instance === second.instance ? first.instance : undefined;
  return {
    protocol: PROTOCOL,
    kind: 'changed',
    events,
    ...(changes ? { changes } : {}),
    ...(instance === undefined ? {} : { instance }),
  };
}

/** An error as it crosses the channel: name, message and a BackendError's code. */
export function toWireError(error: unknown): WireError {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return { name: error.name, message: error.message, ...(isString(code) ? { code } : {}) };
  }
  return { name: 'Error', message: String(error) };
}

/** Rebuilds an error on the panel's side, keeping a BackendError's code. */
export function fromWireError(wire: WireError): Error {
  const error = new Error(wire.message) as Error & { code?: string };
  error.name = wire.name;
  if (wire.code !== undefined) error.code = wire.code;
  return error;
}
