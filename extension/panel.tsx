// The panel page's entry: finds the inspected tab and renders the panel.
import { render } from 'preact';
import { type ChromeApi, chromeApi } from './chrome-api.js';
import { inspectedTabId } from './panel-link.js';
import { PanelPage } from './panel-page.js';
import './panel.css';

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
  render(<PanelPage runtime={api.runtime} tabId={tabId} />, app);
}

start();
