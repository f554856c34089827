import type { EvictionRecord, StoredResultInfo, StoreFailure } from '../lib/store/offload-store.js';
import { isStoreInfo } from './store-info.js';

/**
 * The messages between `exposeToInspector` (the window that holds the store) and a panel mounted
 * with `{ channel }`. The exposing side pushes change notices; the panel asks for lists, totals and
 * texts, so a stored text crosses the channel only when the panel asks for it. Every message is
 * checked on receipt: anything malformed is ignored.
 *
 * 'info' (the bound and the origin's storage) came later: an older exposing side ignores it, so
 * the panel asks for it apart from the lists and does without when no answer comes.
 */

export const DEFAULT_CHANNEL = 'tool-output-offload';
export const PROTOCOL = 'tool-output-offload/inspector@1';

export type RequestOp = 'list' | 'evictions' | 'failures' | 'totalBytes' | 'read' | 'info';

export type InspectorRequest =
  | { protocol: typeof PROTOCOL; kind: 'request'; id: string; op: 'list' | 'evictions' | 'failures' | 'info' }
  | { protocol: typeof PROTOCOL; kind: 'request'; id: string; op: 'totalBytes'; threadId: string }
  | { protocol: typeof PROTOCOL; kind: 'request'; id: string; op: 'read'; threadId: string; key: string };

/** A request without its envelope: what the panel asks. */
export type RequestBody = InspectorRequest extends infer R
  ? R extends InspectorRequest
    ? Omit<R, 'protocol' | 'kind' | 'id'>
    : never
  : never;

export interface WireError {
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
}

type Fields = Record<string, unknown>;

function isObject(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const isString = (value: unknown): value is string => typeof value === 'string';
const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0;
const isId = (value: unknown): value is string => isString(value) && value.length > 0 && value.length <= 200;

function isEnvelope(data: unknown, kind: string): data is Fields {
  return isObject(data) && data.protocol === PROTOCOL && data.kind === kind;
}

export function parseRequest(data: unknown): InspectorRequest | undefined {
  if (!isEnvelope(data, 'request') || !isId(data.id)) return undefined;
  const { id, op } = data;
  if (op === 'list' || op === 'evictions' || op === 'failures' || op === 'info') {
    return { protocol: PROTOCOL, kind: 'request', id, op };
  }
  if (op === 'totalBytes' && isString(data.threadId)) {
    return { protocol: PROTOCOL, kind: 'request', id, op, threadId: data.threadId };
  }
  if (op === 'read' && isString(data.threadId) && isString(data.key)) {
    return { protocol: PROTOCOL, kind: 'request', id, op, threadId: data.threadId, key: data.key };
  }
  return undefined;
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

export function parseNotice(data: unknown): ChangeNotice | undefined {
  if (!isEnvelope(data, 'changed') || !isCount(data.events)) return undefined;
  return { protocol: PROTOCOL, kind: 'changed', events: data.events };
}

type Check = (value: unknown) => boolean;

/** True when `value` is an object whose every field named in `shape` passes its check. */
function matches(value: unknown, shape: Record<string, Check>): boolean {
  return isObject(value) && Object.entries(shape).every(([field, check]) => check(value[field]));
}

const isBoolean: Check = (value) => typeof value === 'boolean';
const reasons = new Set(['bound', 'summarized', 'blocked', 'replaced']);
const isReason: Check = (value) => reasons.has(value as string);
const placed = { threadId: isString, key: isString, path: isString };

const entryShape = {
  ...placed,
  toolName: isString,
  bytes: isCount,
  originalBytes: isCount,
  estimatedTokens: isCount,
  truncated: isBoolean,
  seq: isCount,
  createdAt: isCount,
  preview: isString,
};
const evictionShape = { ...placed, bytes: isCount, at: isCount, reason: isReason };
const failureShape = { ...placed, toolName: isString, bytes: isCount, at: isCount, error: isString };

const isEntry = (value: unknown): value is StoredResultInfo => matches(value, entryShape);
const isEviction = (value: unknown): value is EvictionRecord => matches(value, evictionShape);
const isFailure = (value: unknown): value is StoreFailure => matches(value, failureShape);

const arrayOf =
  <T>(isItem: (value: unknown) => value is T) =>
  (value: unknown): value is T[] =>
    Array.isArray(value) && value.every(isItem);

/** What a valid answer to each request looks like. */
export const isAnswer: Record<RequestOp, (value: unknown) => boolean> = {
  list: arrayOf(isEntry),
  evictions: arrayOf(isEviction),
  failures: arrayOf(isFailure),
  totalBytes: isCount,
  read: isString,
  info: isStoreInfo,
};

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
