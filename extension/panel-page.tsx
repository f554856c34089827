import { useEffect, useRef, useState } from 'preact/hooks';
import { type InspectorSource, mountInspector } from '../inspector/index.js';
import type { RuntimeApi } from './chrome-api.js';
import { type LinkStatus, linkPanel, type PanelLinkOptions } from './panel-link.js';

export interface PanelPageProps {
  runtime: RuntimeApi;
  tabId: number;
  /** Retry and keep-alive intervals; the defaults suit DevTools. */
  timing?: Pick<PanelLinkOptions, 'retryMs' | 'keepAliveMs'>;
}

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

/** The panel: a status line for the link to the inspected page, and the inspector below it. */
export function PanelPage({ runtime, tabId, timing }: PanelPageProps) {
  const [status, setStatus] = useState<LinkStatus>({ state: 'connecting' });
  const [reached, setReached] = useState(false);
  const [source, setSource] = useState<InspectorSource | undefined>(undefined);
  const host = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const link = linkPanel(runtime, {
      ...timing,
      tabId,
      onStatus(next) {
        setStatus(next);
        if (next.state === 'connected') setReached(true);
      },
    });
    setSource(link.source);
    return link.stop;
  }, [runtime, tabId]);
  // Mounted once the page was first reached, so the inspector's first reads go straight through.
  // The source is labelled by the tab ("DevTools · tab 12").
  useEffect(() => (reached && source ? mountInspector(host.current!, { source }) : undefined), [reached, source]);

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
