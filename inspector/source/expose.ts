import { assertChannelName } from './channel.js';
import {
  type ChangeNotice,
  DEFAULT_CHANNEL,
  type InspectorResponse,
  LATER_CHANGE_TYPES,
  MAX_NOTICE_CHANGES,
  PROTOCOL,
  parseRequest,
  toWireError,
} from './channel-protocol.js';
import { assertInspectableStore, exposedAnswer } from './read-ops.js';
import { type InspectableStore, type SourceChange, toSourceChange } from './source.js';
import { assertBound, assertOptionNames } from './store-info.js';

/** Store events within this window become one change notice. */
const NOTICE_BATCH_MS = 50;
/**
 * Request ids remembered as answered (oldest forgotten first): a panel sends one again only within
 * its request timeout, a few requests a second, so a repeat falls well within these.
 */
const REMEMBERED_IDS = 4096;

/** A random id for one exposeToInspector call: its notices name it (ChangeNotice.instance). */
function instanceId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** The options of `exposeToInspector(store, options)`. */
export interface ExposeOptions {
  /**
   * The BroadcastChannel to serve on.
   * @default 'tool-output-offload'
   */
  channel?: string;
  /**
   * The offload's `maxTotalBytes`, for panels mounted with `{ channel }`: their gauges' fallback
   * for a store that does not report each thread's bound (the built-in stores do:
   * `OffloadStore.bound`, so they need no `bound` here).
   */
  bound?: number;
}

/**
 * Serves `store` to inspectors mounted with `{ channel }` in any window of this origin: answers
 * their requests (with `bound` and the origin's storage when they ask for 'info') and pushes a
 * change notice, batched, after store events; a stored text crosses the channel only when a panel
 * asks for it (I2). Returns a function that stops serving and closes the channel.
 */
export function exposeToInspector(store: InspectableStore, options: ExposeOptions = {}): () => void {
  assertInspectableStore(store, 'exposeToInspector');
  if (typeof options !== 'object' || options === null) {
    throw new TypeError('exposeToInspector: options must be an object like { channel: "name", bound: 8 << 20 }');
  }
  assertOptionNames(options, ['channel', 'bound'], 'exposeToInspector');
  const name = options.channel ?? DEFAULT_CHANNEL;
  assertChannelName(name, 'exposeToInspector');
  const bound = options.bound;
  assertBound(bound, 'exposeToInspector');

  const channel = new BroadcastChannel(name);
  const instance = instanceId();
  // Each request id is answered once: a repeat (a panel asking again after a notice, or a script
  // of the origin replaying one) costs reading the message, not a store read and an answer.
  const seen = new Set<string>();
  let closed = false;
  // Two batches: the context ledger's 'request' changes (and 'thread-cleared') go in notices of their
  // own, since a panel of an older version drops a notice naming a type it does not know, and would
  // miss the others.
  // Each batch's changes, so panels read only the threads they name; undefined once there are too many.
  const batches = [0, 1].map(() => ({ events: 0, changes: [] as SourceChange[] | undefined }));
  let timer: ReturnType<typeof setTimeout> | undefined;

  const post = (message: InspectorResponse | ChangeNotice) => {
    if (!closed) channel.postMessage(message);
  };
  const notify = (events: number, changed?: SourceChange[]) =>
    post({ protocol: PROTOCOL, kind: 'changed', events, ...(changed ? { changes: changed } : {}), instance });

  channel.onmessage = (event: MessageEvent) => {
    const request = parseRequest(event.data);
    if (!request || seen.has(request.id)) return;
    seen.add(request.id);
    if (seen.size > REMEMBERED_IDS) seen.delete(seen.values().next().value as string);
    const fail = (error: unknown) =>
      post({ protocol: PROTOCOL, kind: 'response', id: request.id, ok: false, error: toWireError(error) });
    exposedAnswer(request.op, store, request, bound).then((value) => {
      try {
        post({ protocol: PROTOCOL, kind: 'response', id: request.id, ok: true, value });
      } catch (error) {
        fail(error); // e.g. a DataCloneError from a custom store's records
      }
    }, fail);
  };

  const unsubscribe = store.subscribe((event) => {
    const change = toSourceChange(event);
    const batch = batches[change && LATER_CHANGE_TYPES.has(change.type) ? 1 : 0]!;
    batch.events += 1;
    if (change && batch.changes && batch.changes.length < MAX_NOTICE_CHANGES) batch.changes.push(change);
    else batch.changes = undefined;
    timer ??= setTimeout(() => {
      timer = undefined;
      for (const each of batches) {
        if (each.events === 0) continue;
        const { events, changes } = each;
        each.events = 0;
        each.changes = [];
        notify(events, changes);
      }
    }, NOTICE_BATCH_MS);
  });

  // A panel that opened first (and is waiting) loads as soon as the store appears.
  notify(0);

  return () => {
    if (closed) return;
    closed = true;
    unsubscribe();
    clearTimeout(timer);
    channel.close();
  };
}
