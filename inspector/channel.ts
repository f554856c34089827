import type { EvictionRecord, StoredResultInfo, StoreFailure, UnreadableRecord } from '../lib/store/offload-store.js';
import {
  fromWireError,
  isAnswer,
  isKeyList,
  PROTOCOL,
  parseNotice,
  parseResponse,
  type RequestBody,
  type RequestOp,
} from './channel-protocol.js';
import type { ChangeListener, InspectorSource } from './source.js';
import type { StoreInfo } from './store-info.js';

/** How long a request waits for the exposing window before it fails with a clear error. */
export const REQUEST_TIMEOUT_MS = 5000;

interface Pending {
  op: RequestOp;
  message: unknown;
  resolve(value: unknown): void;
  reject(error: Error): void;
  timer: ReturnType<typeof setTimeout>;
}

let counter = 0;
function requestId(): string {
  counter += 1;
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}-${counter}`;
}

/** Throws a TypeError unless `name` can name a BroadcastChannel. */
export function assertChannelName(name: unknown, where: string): asserts name is string {
  if (typeof name !== 'string' || name.length === 0) {
    throw new TypeError(`${where}: channel must be a non-empty string, got ${JSON.stringify(name) ?? typeof name}`);
  }
  if (typeof BroadcastChannel !== 'function') {
    throw new TypeError(`${where}: BroadcastChannel is not available in this environment`);
  }
}

/**
 * A source that reads a store exposed in another window (or this one) by `exposeToInspector`.
 * Answers that fail validation are ignored; a request nobody answers fails after a timeout.
 */
export function channelSource(name: string, timeoutMs = REQUEST_TIMEOUT_MS): InspectorSource {
  assertChannelName(name, 'mountInspector');
  const channel = new BroadcastChannel(name);
  const pending = new Map<string, Pending>();
  const listeners = new Set<ChangeListener>();
  let closed = false;

  channel.onmessage = (event: MessageEvent) => {
    const notice = parseNotice(event.data);
    if (notice) {
      // A store exposed after these requests were sent never saw them: ask it again.
      if (notice.events === 0) for (const request of pending.values()) channel.postMessage(request.message);
      for (const listener of [...listeners]) listener(notice.changes);
      return;
    }
    const response = parseResponse(event.data);
    const request = response && pending.get(response.id);
    if (!response || !request) return;
    if (response.ok && !isAnswer[request.op](response.value)) return; // malformed: wait for a valid answer
    pending.delete(response.id);
    clearTimeout(request.timer);
    if (response.ok) request.resolve(response.value);
    else request.reject(fromWireError(response.error));
  };

  function ask<T>(message: RequestBody): Promise<T> {
    if (closed) return Promise.reject(new Error(`The inspector's channel "${name}" is closed`));
    const id = requestId();
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(
          new Error(
            `No store answered on channel "${name}" within ${timeoutMs} ms: call ` +
              `exposeToInspector(store, { channel: "${name}" }) in the window that holds the store`,
          ),
        );
      }, timeoutMs);
      const request = { protocol: PROTOCOL, kind: 'request', id, ...message };
      pending.set(id, {
        op: message.op,
        message: request,
        resolve: resolve as (value: unknown) => void,
        reject,
        timer,
      });
      channel.postMessage(request);
    });
  }

  return {
    label: `channel "${name}"`,
    list: (threadId, keys) =>
      ask<StoredResultInfo[]>(
        threadId === undefined
          ? { op: 'list' }
          : // Too many keys for one request: the whole thread (the panel keeps the keys it asked for).
            keys && isKeyList(keys)
            ? { op: 'list', threadId, keys: [...keys] }
            : { op: 'list', threadId },
      ),
    evictions: (threadId) =>
      ask<EvictionRecord[]>(threadId === undefined ? { op: 'evictions' } : { op: 'evictions', threadId }),
    failures: (threadId) =>
      ask<StoreFailure[]>(threadId === undefined ? { op: 'failures' } : { op: 'failures', threadId }),
    unreadable: () => ask<UnreadableRecord[]>({ op: 'unreadable' }),
    totalBytes: (threadId) => ask<number>({ op: 'totalBytes', threadId }),
    read: (threadId, key) => ask<string>({ op: 'read', threadId, key }),
    info: () => ask<StoreInfo>({ op: 'info' }),
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close() {
      if (closed) return;
      closed = true;
      channel.close();
      listeners.clear();
      for (const request of pending.values()) {
        clearTimeout(request.timer);
        request.reject(new Error(`The inspector's channel "${name}" was closed`));
      }
      pending.clear();
    },
  };
}
