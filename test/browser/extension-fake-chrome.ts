import type { ChromeEvent, ChromePort, MessageSender, RuntimeApi, TabsApi } from '../../extension/chrome-api.js';

/**
 * A stand-in for the parts of `chrome.*` the extension uses, with Chrome's observable behaviour:
 * messages are copied as JSON and delivered later, in order; `disconnect()` fires onDisconnect on
 * the other end only; connecting to a tab without a content script disconnects with lastError set.
 * Every message that crosses a port is recorded in `traffic`.
 */

export const EXTENSION_ID = 'abcdefghijklmnopabcdefghijklmnop';
const NO_RECEIVER = 'Could not establish connection. Receiving end does not exist.';

class FakeEvent<Args extends unknown[]> implements ChromeEvent<Args> {
  readonly listeners = new Set<(...args: Args) => void>();
  addListener(listener: (...args: Args) => void): void {
    this.listeners.add(listener);
  }
  removeListener(listener: (...args: Args) => void): void {
    this.listeners.delete(listener);
  }
  dispatch(...args: Args): void {
    for (const listener of [...this.listeners]) listener(...args);
  }
}

class FakeRuntime implements RuntimeApi {
  lastError?: { message?: string };
  readonly onConnect = new FakeEvent<[ChromePort]>();
  constructor(
    readonly id: string,
    readonly connect: (info: { name: string }) => ChromePort,
  ) {}
}

export class FakePort implements ChromePort {
  other!: FakePort;
  connected = true;
  readonly onMessage = new FakeEvent<[unknown, ChromePort]>();
  readonly onDisconnect = new FakeEvent<[ChromePort]>();
  constructor(
    readonly name: string,
    readonly sender: MessageSender | undefined,
    /** The runtime of this end's context, whose lastError Chrome sets during onDisconnect. */
    readonly runtime: FakeRuntime,
    private readonly traffic: unknown[],
  ) {}

  postMessage(message: unknown): void {
    if (!this.connected) throw new Error('Attempting to use a disconnected port object');
    const copy = JSON.parse(JSON.stringify(message)) as unknown;
    this.traffic.push(copy);
    const other = this.other;
    setTimeout(() => {
      if (other.connected) other.onMessage.dispatch(copy, other);
    });
  }

  disconnect(error?: string): void {
    if (!this.connected) return;
    this.connected = false;
    this.other.connected = false;
    const other = this.other;
    setTimeout(() => {
      other.runtime.lastError = error === undefined ? undefined : { message: error };
      other.onDisconnect.dispatch(other);
      other.runtime.lastError = undefined;
    });
  }
}

function pair(
  name: string,
  near: FakeRuntime,
  far: FakeRuntime,
  farSender: MessageSender,
  traffic: unknown[],
): [FakePort, FakePort] {
  const a = new FakePort(name, undefined, near, traffic);
  const b = new FakePort(name, farSender, far, traffic);
  a.other = b;
  b.other = a;
  return [a, b];
}

export interface FakeChrome {
  /** The service worker's APIs. */
  worker: { runtime: FakeRuntime; tabs: TabsApi };
  /** A page of the extension (the panel by default) connecting to the worker. */
  extensionPage(path?: string): FakeRuntime;
  /** The content script's runtime in tab `tabId`; `url` is the page's. */
  contentScript(tabId: number, url?: string): FakeRuntime;
  /** Removes tab `tabId`'s content script (the page navigates away), disconnecting its ports. */
  unload(tabId: number): void;
  /** Every port the worker opened or accepted, in order. */
  workerPorts: FakePort[];
  /** Every message posted on any port, as delivered. */
  traffic: unknown[];
}

export function fakeChrome(id = EXTENSION_ID): FakeChrome {
  const traffic: unknown[] = [];
  const workerPorts: FakePort[] = [];
  const tabs = new Map<number, { runtime: FakeRuntime; ports: FakePort[] }>();
  const workerRuntime = new FakeRuntime(id, () => {
    throw new Error('the worker connects to tabs, not to itself');
  });
  const workerSender = { id, url: `chrome-extension://${id}/service-worker.js` };

  const worker = {
    runtime: workerRuntime,
    tabs: {
      connect(tabId: number, info: { name: string }): ChromePort {
        const tab = tabs.get(tabId);
        const far = tab?.runtime ?? new FakeRuntime(id, workerRuntime.connect);
        const [near, remote] = pair(info.name, workerRuntime, far, workerSender, traffic);
        workerPorts.push(near);
        if (!tab) {
          setTimeout(() => remote.disconnect(NO_RECEIVER));
        } else {
          tab.ports.push(remote);
          setTimeout(() => tab.runtime.onConnect.dispatch(remote));
        }
        return near;
      },
    },
  };

  const connector = (sender: () => MessageSender, runtime: () => FakeRuntime) => (info: { name: string }) => {
    const [near, far] = pair(info.name, runtime(), workerRuntime, sender(), traffic);
    workerPorts.push(far);
    setTimeout(() => workerRuntime.onConnect.dispatch(far));
    return near;
  };

  return {
    worker,
    workerPorts,
    traffic,
    extensionPage(path = '/panel.html') {
      const runtime: FakeRuntime = new FakeRuntime(
        id,
        connector(
          () => ({ id, url: `chrome-extension://${id}${path}` }),
          () => runtime,
        ),
      );
      return runtime;
    },
    contentScript(tabId, url = 'http://127.0.0.1:5173/app.html') {
      const runtime: FakeRuntime = new FakeRuntime(
        id,
        connector(
          () => ({ id, url, frameId: 0, tab: { id: tabId } }),
          () => runtime,
        ),
      );
      tabs.set(tabId, { runtime, ports: [] });
      return runtime;
    },
    unload(tabId) {
      const tab = tabs.get(tabId);
      tabs.delete(tabId);
      for (const port of tab?.ports ?? []) port.disconnect();
    },
  };
}
