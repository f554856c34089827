import type { ChromePort, MessageSender, RuntimeApi, TabsApi } from './chrome-api.js';
import {
  control,
  errorResponse,
  PAGE_PORT,
  PANEL_PORT,
  parseControlFromPage,
  parseFromPanel,
  RequestLedger,
} from './transport.js';

/** True when `sender` is this extension's panel page (not a content script, not another page). */
function isPanelSender(sender: MessageSender | undefined, extensionId: string): boolean {
  if (sender?.id !== extensionId || typeof sender.url !== 'string') return false;
  try {
    const url = new URL(sender.url);
    // Scheme and host, not `url.origin`: by the URL standard a chrome-extension: URL has an opaque
    // origin ("null"); only Chromium returns the scheme and host for it.
    return url.protocol === 'chrome-extension:' && url.host === extensionId && url.pathname === '/panel.html';
  } catch {
    return false;
  }
}

function post(port: ChromePort, message: unknown): void {
  try {
    port.postMessage(message);
  } catch {
    // The port closed meanwhile; its onDisconnect cleans up.
  }
}

/**
 * The service worker's part: each panel port names the tab it inspects (`attach`); the router
 * connects to that tab's content script and relays between the two, checking both directions.
 * Only the panel page may connect; responses pass only for requests this panel sent.
 */
export function startRouter(api: { runtime: RuntimeApi; tabs: TabsApi }): () => void {
  const panels = new Set<ChromePort>();
  const onConnect = (port: ChromePort) => {
    if (port.name !== PANEL_PORT || !isPanelSender(port.sender, api.runtime.id)) {
      port.disconnect();
      return;
    }
    panels.add(port);
    route(api, port, () => panels.delete(port));
  };
  api.runtime.onConnect.addListener(onConnect);
  return () => {
    api.runtime.onConnect.removeListener(onConnect);
    for (const port of panels) port.disconnect();
  };
}

function route(api: { runtime: RuntimeApi; tabs: TabsApi }, panel: ChromePort, done: () => void): void {
  const ledger = new RequestLedger('service worker');
  let page: ChromePort | undefined;
  let ready = false;

  const failOpen = (reason: string) => {
    for (const response of ledger.failAll(reason)) post(panel, response);
  };

  const drop = () => {
    const old = page;
    page = undefined;
    ready = false;
    old?.disconnect();
  };

  const attach = (tabId: number) => {
    drop();
    failOpen('The panel attached to the page again; ask again');
    const port = api.tabs.connect(tabId, { name: PAGE_PORT, frameId: 0 });
    page = port;
    port.onMessage.addListener((data) => {
      if (page !== port) return;
      const response = ledger.settle(data);
      if (response) return post(panel, response);
      const message = parseControlFromPage(data);
      if (!message) return;
      if (message.kind === 'ready') {
        ready = true;
        ledger.reconnected();
      }
      if (message.kind === 'changed' && !ledger.hear(message)) return;
      post(panel, message);
    });
    port.onDisconnect.addListener(() => {
      const why = api.runtime.lastError?.message; // read, so Chrome does not log it as unchecked
      if (page !== port) return;
      const reason = ready
        ? `The page in tab ${tabId} went away (reloaded, navigated or closed)`
        : `No content script answers in tab ${tabId}${why ? ` (${why})` : ''}: only http(s) pages are reached, ` +
          'and a page opened before the extension was loaded must be reloaded';
      page = undefined;
      ready = false;
      failOpen(reason);
      post(panel, control.detached(reason));
    });
  };

  panel.onMessage.addListener((data) => {
    const message = parseFromPanel(data);
    if (!message) return;
    if (message.kind === 'ping') return;
    if (message.kind === 'attach') return attach(message.tabId);
    if (!page || !ready) return post(panel, errorResponse(message.id, 'Error', 'The inspected page is not connected'));
    const verdict = ledger.open(message);
    if (verdict === 'drop') return;
    if (verdict !== 'send') return post(panel, verdict);
    post(page, message);
  });

  panel.onDisconnect.addListener(() => {
    void api.runtime.lastError;
    drop();
    ledger.failAll('The panel closed');
    done();
  });
}
