import {
  type ChangeNotice,
  DEFAULT_CHANNEL,
  mergeNotices,
  parseNotice,
  parseResponse,
} from '../inspector/source/channel-protocol.js';
import type { ChromePort, RuntimeApi } from './chrome-api.js';
import { control, errorResponse, PAGE_PORT, parseSmallRequest, RequestLedger } from './transport.js';

/**
 * How long the page may take to answer before the panel is told why nothing came: well within the
 * inspector's own request timeout, so the panel shows this hop's reason rather than its own.
 */
const PAGE_TIMEOUT_MS = 3000;
/** Change notices within this window reach the panel as one. */
const NOTICE_INTERVAL_MS = 100;
/** How many answered request ids are remembered, to notice a second store answering the same request. */
const REMEMBERED = 256;

interface ContentRelayOptions {
  /** The page's origin, shown in the panel. */
  origin: string;
  /** The BroadcastChannel `exposeToInspector` serves on; default 'tool-output-offload'. */
  channel?: string;
  timeoutMs?: number;
  noticeIntervalMs?: number;
}

/**
 * The content script's part: when the service worker connects a port (the panel is open for this
 * tab), it joins the page's BroadcastChannel (an isolated world shares the page's origin, so it
 * reaches a store exposed in the page or in any Worker of it) and relays between the two. Nothing
 * happens until the panel connects, and nothing is read unless the page called exposeToInspector.
 */
export function startContentRelay(runtime: RuntimeApi, options: ContentRelayOptions): () => void {
  const relays = new Set<() => void>();
  const onConnect = (port: ChromePort) => {
    if (port.name !== PAGE_PORT) return;
    if (port.sender?.id !== runtime.id) {
      port.disconnect();
      return;
    }
    const stop = relay(port, options, () => relays.delete(stop));
    relays.add(stop);
  };
  runtime.onConnect.addListener(onConnect);
  return () => {
    runtime.onConnect.removeListener(onConnect);
    for (const stop of relays) stop();
  };
}

/** Relays one panel's port (each has its own channel object, so panels never see each other's answers). */
function relay(port: ChromePort, options: ContentRelayOptions, onClosed: () => void): () => void {
  const name = options.channel ?? DEFAULT_CHANNEL;
  const timeoutMs = options.timeoutMs ?? PAGE_TIMEOUT_MS;
  const noticeIntervalMs = options.noticeIntervalMs ?? NOTICE_INTERVAL_MS;
  const channel = new BroadcastChannel(name);
  // Requests posted more than once (the panel asked again) may be answered more than once.
  const repeated = new Set<string>();
  const answered: string[] = [];
  let warned = false;
  let closed = false;

  const send = (message: unknown) => {
    if (closed) return;
    try {
      port.postMessage(message);
    } catch {
      close(); // the port is gone; onDisconnect may not fire on this side
    }
  };

  const ledger = new RequestLedger('content script', {
    timeoutMs,
    onTimeout(id) {
      repeated.delete(id);
      const message =
        `No store answered on channel "${name}" in this page within ${timeoutMs} ms: call ` +
        `exposeToInspector(store) in the page or in a Worker of it`;
      send(errorResponse(id, 'Error', message));
    },
  });

  // Notices: the first goes at once, later ones within the interval are merged into one (keeping
  // the meaning of a 0, and the changes that say which threads to read again while they fit).
  let cooling: ReturnType<typeof setTimeout> | undefined;
  let merged: ChangeNotice | undefined;
  const notify = (notice: ChangeNotice) => {
    if (cooling === undefined) {
      send(notice);
      cooling = setTimeout(cooled, noticeIntervalMs);
      return;
    }
    merged = merged === undefined ? notice : mergeNotices(merged, notice);
  };
  const cooled = () => {
    cooling = undefined;
    if (merged === undefined) return;
    const notice = merged;
    merged = undefined;
    notify(notice);
  };

  const finish = (id: string) => {
    if (repeated.delete(id)) return;
    answered.push(id);
    if (answered.length > REMEMBERED) answered.shift();
  };

  port.onMessage.addListener((data) => {
    const request = parseSmallRequest(data);
    if (!request) return;
    const again = ledger.has(request.id);
    const verdict = ledger.open(request);
    if (verdict === 'drop') return;
    if (verdict !== 'send') return send(verdict);
    if (again) repeated.add(request.id);
    channel.postMessage(request);
  });

  channel.onmessage = (event: MessageEvent) => {
    const response = ledger.settle(event.data);
    if (response) {
      finish(response.id);
      return send(response);
    }
    const notice = parseNotice(event.data);
    if (notice) {
      if (ledger.hear(notice)) notify(notice);
      return;
    }
    const late = parseResponse(event.data);
    if (late && !warned && answered.includes(late.id)) {
      warned = true;
      send(
        control.warning(
          `More than one store answers on channel "${name}" (another tab or window of this origin exposes one ` +
            'too); the panel shows the first to answer',
        ),
      );
    }
  };

  const close = () => {
    if (closed) return;
    closed = true;
    onClosed();
    channel.close();
    clearTimeout(cooling);
    ledger.failAll('The content script stopped relaying');
  };
  port.onDisconnect.addListener(close);

  send(control.ready(options.origin));
  return () => {
    close();
    port.disconnect();
  };
}
