import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { mountInspector } from '../inspector/index.js';
import { type ChromeApi, chromeApi } from './chrome-api.js';
import { inspectedTabId, type LinkStatus, linkPanel } from './panel-link.js';
import './panel.css';

function describe(status: LinkStatus, tabId: number): { tone: string; text: string } {
  switch (status.state) {
    case 'connecting':
      return { tone: 'wait', text: `Connecting to tab ${tabId}…` };
    case 'connected':
      return { tone: 'ok', text: `Connected to ${status.origin} (tab ${tabId})` };
    case 'detached':
      return { tone: 'off', text: `${status.reason}${status.retrying ? ' · retrying' : ''}` };
  }
}

function PanelPage({ api, tabId }: { api: ChromeApi; tabId: number }) {
  const [status, setStatus] = useState<LinkStatus>({ state: 'connecting' });
  const [reached, setReached] = useState(false);
  const host = useRef<HTMLDivElement>(null);
  // A channel of this page only (random, so two panels never hear each other).
  const [channel] = useState(() => `devtools · tab ${tabId} · ${crypto.randomUUID().slice(0, 6)}`);

  useEffect(
    () =>
      linkPanel(api.runtime, {
        tabId,
        channel,
        onStatus(next) {
          setStatus(next);
          if (next.state === 'connected') setReached(true);
        },
      }),
    [api, tabId, channel],
  );
  // Mounted once the page was first reached, so the inspector's first reads go straight through.
  useEffect(() => (reached ? mountInspector(host.current!, { channel }) : undefined), [reached, channel]);

  const { tone, text } = describe(status, tabId);
  const warning = status.state === 'connected' ? status.warning : undefined;
  return (
    <>
      <div class="status" data-state={status.state} role="status">
        <span class={`dot ${tone}`} aria-hidden="true" />
        <span>{text}</span>
        {warning && <span class="warning">{warning}</span>}
      </div>
      <div class="inspector" ref={host} />
    </>
  );
}

function start(): void {
  const app = document.getElementById('app')!;
  let api: ChromeApi;
  try {
    api = chromeApi('panel');
  } catch (error) {
    app.textContent = String(error);
    return;
  }
  const tabId = inspectedTabId(api, location.search);
  if (tabId === undefined) {
    app.textContent = 'No inspected tab: open this panel from DevTools (or pass ?tabId=<id> outside DevTools).';
    return;
  }
  render(<PanelPage api={api} tabId={tabId} />, app);
}

start();
