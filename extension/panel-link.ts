import { PROTOCOL } from '../inspector/channel-protocol.js';
import type { ChromeApi, ChromePort, RuntimeApi } from './chrome-api.js';
import {
  control,
  errorResponse,
  PANEL_PORT,
  parseControlFromWorker,
  parseSmallRequest,
  RequestLedger,
} from './transport.js';

/** How long the panel waits before attaching again after the page went away. */
export const RETRY_MS = 1000;
/** How often the panel pings the service worker, which Chrome stops after 30 s without events. */
export const KEEPALIVE_MS = 20_000;

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
  /** A BroadcastChannel name of the panel's own page, where its inspector is mounted with `{ channel }`. */
  channel: string;
  onStatus(status: LinkStatus): void;
  retryMs?: number;
  keepAliveMs?: number;
}

/**
 * The panel's part: relays between the inspector mounted in the panel (on a channel of the
 * panel's own origin) and a port to the service worker, attached to the inspected tab. When the
 * page goes away (reload, navigation) or the worker restarts, it attaches again, and tells the
 * inspector to re-read once the page is back.
 */
export function linkPanel(runtime: RuntimeApi, options: PanelLinkOptions): () => void {
  const retryMs = options.retryMs ?? RETRY_MS;
  const channel = new BroadcastChannel(options.channel);
  const ledger = new RequestLedger('devtools panel');
  let port: ChromePort | undefined;
  let connected = false;
  let detachedReason: string | undefined;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  let origin = '';

  const status = (next: LinkStatus) => {
    if (!stopped) options.onStatus(next);
  };

  const detach = (reason: string, retrying: boolean) => {
    connected = false;
    detachedReason = reason;
    for (const response of ledger.failAll(reason)) channel.postMessage(response);
    status({ state: 'detached', reason, retrying });
    if (retrying) retry ??= setTimeout(attach, retryMs);
  };

  const onMessage = (data: unknown) => {
    const response = ledger.settle(data);
    if (response) return channel.postMessage(response);
    const message = parseControlFromWorker(data);
    if (!message) return;
    if (message.kind === 'ready') {
      connected = true;
      detachedReason = undefined;
      origin = message.origin;
      status({ state: 'connected', origin });
      // A notice of 0 events makes the inspector ask again whatever it is waiting for, and re-read.
      channel.postMessage({ protocol: PROTOCOL, kind: 'changed', events: 0 });
    } else if (message.kind === 'detached') {
      detach(message.reason, true);
    } else if (message.kind === 'warning') {
      if (connected) status({ state: 'connected', origin, warning: message.message });
    } else if (connected) {
      channel.postMessage(message);
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

  channel.onmessage = (event: MessageEvent) => {
    const request = parseSmallRequest(event.data);
    if (!request) return;
    if (!connected || !port) {
      const reason = detachedReason ?? 'The panel is not connected to the inspected page yet';
      return channel.postMessage(errorResponse(request.id, 'Error', reason));
    }
    const refused = ledger.open(request);
    if (refused) return channel.postMessage(refused);
    send(request);
  };

  attach();
  const keepAlive = setInterval(() => send(control.ping()), options.keepAliveMs ?? KEEPALIVE_MS);
  return () => {
    stopped = true;
    clearInterval(keepAlive);
    clearTimeout(retry);
    const open = port;
    port = undefined;
    open?.disconnect();
    channel.close();
  };
}
