import { fromWireError, type InspectorRequest, PROTOCOL, parseNotice, parseResponse } from './channel-protocol.js';
import { ExposedSides, PendingRequests } from './pending-requests.js';
import { isAnswer, type ReadOpName, remoteReads } from './read-ops.js';
import type { ChangeListener, PanelSource } from './source.js';

interface RemoteSourceOptions {
  /** Names the source in the panel's header. */
  label: string;
  /** Sends a request to the side that holds the store; a throw fails that request with its error. */
  post(request: InspectorRequest): void;
  /** How long a request waits for its answer. */
  timeoutMs: number;
  /** The message of a request's error when no answer came within `timeoutMs`. */
  noAnswer: string;
  /** The message of a request's error when the source was closed before it was answered. */
  closed: string;
}

/** A source over the inspector's protocol: requests out through `post`, answers and notices in through `receive`. */
export interface RemoteSource extends PanelSource {
  /** Takes a message from the other side: an answer to a pending request, or a change notice; anything else is ignored. */
  receive(data: unknown): void;
  /**
   * The link to the other side was made again (the transport knows it, e.g. the DevTools port's
   * "ready"): what is pending is sent again, once, and everything is read again.
   */
  reconnected(): void;
  /** Fails every request still waiting (the other side went away) with `reason`. */
  failAll(reason: string): void;
  /** Fails what is pending, forgets the listeners, and fails every later request. */
  close(): void;
}

interface Waiting {
  op: ReadOpName;
  request: InspectorRequest;
  resolve(value: unknown): void;
  reject(error: Error): void;
}

let counter = 0;
function requestId(): string {
  counter += 1;
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}-${counter}`;
}

/**
 * The panel's side of the inspector's protocol, whatever carries it (a BroadcastChannel, the
 * DevTools extension's port). Answers that fail validation are ignored (a valid one may follow);
 * a request nobody answers fails after `timeoutMs`.
 */
export function remoteSource(options: RemoteSourceOptions): RemoteSource {
  const pending = new PendingRequests<Waiting>(options.timeoutMs, (_id, waiting) =>
    waiting.reject(new Error(options.noAnswer)),
  );
  const listeners = new Set<ChangeListener>();
  const sides = new ExposedSides();
  let closed = false;

  function ask(op: ReadOpName, args: Record<string, unknown>): Promise<unknown> {
    if (closed) return Promise.reject(new Error(options.closed));
    const id = requestId();
    const request: InspectorRequest = { ...args, protocol: PROTOCOL, kind: 'request', id, op };
    return new Promise((resolve, reject) => {
      const waiting = { op, request, resolve, reject };
      pending.add(id, waiting);
      send(waiting);
    });
  }

  const failAll = (reason: string) => {
    for (const [, waiting] of pending.takeAll()) waiting.reject(new Error(reason));
  };
  /** Posts a pending request; a throw fails it. */
  const send = (waiting: Waiting) => {
    try {
      options.post(waiting.request);
    } catch (error) {
      pending.take(waiting.request.id);
      waiting.reject(error as Error);
    }
  };

  /** Sends again, once for this reconnect, what is pending. */
  const resendPending = () => {
    pending.reconnected();
    for (const [id, waiting] of pending.entries()) if (pending.claimResend(id)) send(waiting);
  };

  return {
    label: options.label,
    // Each read a request, its answer checked by the operation (inspector/source/read-ops.ts).
    ...remoteReads(ask),
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    receive(data) {
      if (closed) return;
      const notice = parseNotice(data);
      if (notice) {
        if (notice.events === 0) {
          // A repeat of an exposing side already heard (any script of the origin can post one):
          // nothing to ask again, nothing new to read.
          if (!sides.isNew(notice)) return;
          // A store exposed after these requests were sent never saw them: ask it again.
          resendPending();
        }
        for (const listener of [...listeners]) listener(notice.changes);
        return;
      }
      const response = parseResponse(data);
      const waiting = response && pending.get(response.id);
      if (!response || !waiting) return;
      if (response.ok && !isAnswer(waiting.op, response.value)) return; // malformed: wait for a valid answer
      pending.take(response.id);
      if (response.ok) waiting.resolve(response.value);
      else waiting.reject(fromWireError(response.error));
    },
    reconnected() {
      if (closed) return;
      resendPending();
      for (const listener of [...listeners]) listener(undefined);
    },
    failAll,
    close() {
      if (closed) return;
      closed = true;
      listeners.clear();
      failAll(options.closed);
    },
  };
}
