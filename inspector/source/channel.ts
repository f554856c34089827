import { type RemoteSource, remoteSource } from './remote-source.js';

/** How long a request waits for the exposing window before it fails with a clear error. */
export const REQUEST_TIMEOUT_MS = 5000;

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
 * `close()` closes the channel and fails what is still pending.
 */
export function channelSource(name: string, timeoutMs = REQUEST_TIMEOUT_MS): RemoteSource {
  assertChannelName(name, 'mountInspector');
  const channel = new BroadcastChannel(name);
  const source = remoteSource({
    label: `channel "${name}"`,
    post: (request) => channel.postMessage(request),
    timeoutMs,
    noAnswer:
      `No store answered on channel "${name}" within ${timeoutMs} ms: call ` +
      `exposeToInspector(store, { channel: "${name}" }) in the window that holds the store`,
    closed: `The inspector's channel "${name}" was closed`,
  });
  channel.onmessage = (event: MessageEvent) => source.receive(event.data);
  return {
    ...source,
    close() {
      source.close();
      channel.close();
    },
  };
}
