import { REQUEST_TIMEOUT_MS } from '../inspector/source/channel.js';
import { type RemoteSource, remoteSource } from '../inspector/source/remote-source.js';
import type { ChromeApi, ChromePort, RuntimeApi } from './chrome-api.js';
import { control, PANEL_PORT, parseControlFromWorker } from './transport.js';

/** How long the panel waits before attaching again after the page went away. */
const RETRY_MS = 1000;
/** How often the panel pings the service worker, which Chrome stops after 30 s without events. */
const KEEPALIVE_MS = 20_000;

/**
 * The inspected tab: DevTools says which. Opened as a plain page (tests, or by hand), the panel
 * takes it from `?tabId=` instead; that stand-in is ignored inside DevTools.
 */
export function inspectedTabId(api: ChromeApi, search: string): number | undefined {
  if (api.devtools) return api.devtools.inspectedWindow.tabId;
  const raw = new URLSearchParams(search).get('tabId');
  const tabId = raw === null || !/^\d+$/.test(raw) ? Number.NaN : Number(raw);
  return Number.isSafeInteger(tabId) ? tabId : undefined;
}

export type LinkStatus =
  | { state: 'connecting' }
  | { state: 'connected'; origin: string; warning?: string }
  | { state: 'detached'; reason: string; retrying: boolean };

export interface PanelLinkOptions {
  /** The inspected tab. */
  tabId: number;
  onStatus(status: LinkStatus): void;
  retryMs?: number;
  keepAliveMs?: number;
  /** How long a request waits for its answer; the content script says why first when the page is silent. */
  timeoutMs?: number;
}

interface PanelLink {
  /** The inspected page's store, for `mountInspector(target, { source })`. */
  source: RemoteSource;
  /** Closes the port and fails what is still pending. */
  stop(): void;
}

/**
 * The panel's part: a port to the service worker, attached to the inspected tab, and the
 * inspector's source over it. When the page goes away (reload, navigation) or the worker
 * restarts, it attaches again, and tells the inspector to read everything again once the page is
 * back.
 */
export function linkPanel(runtime: RuntimeApi, options: PanelLinkOptions): PanelLink {
  const retryMs = options.retryMs ?? RETRY_MS;
  const timeoutMs = options.timeoutMs ?? REQUEST_TIMEOUT_MS;
  let port: ChromePort | undefined;
  let connected = false;
  let detachedReason: string | undefined;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  let origin = '';

  const source = remoteSource({
    label: `DevTools · tab ${options.tabId}`,
    post(request) {
      if (!connected || !port)
        throw new Error(detachedReason ?? 'The panel is not connected to the inspected page yet');
      try {
        port.postMessage(request);
      } catch {
        // A disconnected port: its onDisconnect reattaches.
        throw new Error("The extension's service worker stopped; reconnecting");
      }
    },
    timeoutMs,
    noAnswer: `No answer came from tab ${options.tabId} through the extension within ${timeoutMs} ms`,
    closed: 'The DevTools panel was closed',
  });

  const status = (next: LinkStatus) => {
    if (!stopped) options.onStatus(next);
  };

  const detach = (reason: string, retrying: boolean) => {
    connected = false;
    detachedReason = reason;
    source.failAll(reason);
    status({ state: 'detached', reason, retrying });
    if (retrying) retry ??= setTimeout(attach, retryMs);
  };

  const onMessage = (data: unknown) => {
    const message = parseControlFromWorker(data);
    if (!message) return source.receive(data); // an answer: the source takes those it waits for
    if (message.kind === 'ready') {
      connected = true;
      detachedReason = undefined;
      origin = message.origin;
      status({ state: 'connected', origin });
      // The inspector asks again, once, whatever it is waiting for, and reads everything again.
      source.reconnected();
    } else if (message.kind === 'detached') {
      detach(message.reason, true);
    } else if (message.kind === 'warning') {
      if (connected) status({ state: 'connected', origin, warning: message.message });
    } else if (connected) {
      source.receive(message);
    }
  };

  const send = (message: unknown) => {
    try {
      port?.postMessage(message);
    } catch {
      // A disconnected port: its onDisconnect reattaches.
    }
  };

  function attach() {
    retry = undefined;
    if (stopped) return;
    if (!port) {
      try {
        port = runtime.connect({ name: PANEL_PORT });
      } catch (error) {
        // The extension was reloaded or removed: this page's chrome.runtime is gone for good.
        return detach(`The extension is not reachable (${String(error)}): close and reopen DevTools`, false);
      }
      const opened = port;
      opened.onMessage.addListener(onMessage);
      opened.onDisconnect.addListener(() => {
        void runtime.lastError;
        if (port !== opened) return;
        port = undefined;
        detach("The extension's service worker stopped; reconnecting", true);
      });
    }
    if (!connected) status({ state: 'connecting' });
    send(control.attach(options.tabId));
  }

  attach();
  const keepAlive = setInterval(() => send(control.ping()), options.keepAliveMs ?? KEEPALIVE_MS);
  return {
    source,
    stop() {
      stopped = true;
      clearInterval(keepAlive);
      clearTimeout(retry);
      const open = port;
      port = undefined;
      open?.disconnect();
      source.close();
    },
  };
}
