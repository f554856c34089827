import { type Tool, ToolOutcome, tool } from '../../lib/agent.js';
import type { AgentChrome, TabInfo } from './chrome.js';

/** How long read_active_tab waits for a page still loading before it reads what is there. */
const loadWaitMs = 10_000;
/** Characters read from a page at most (a few MB: the offload stores at most maxResultBytes of it anyway). */
const maxPageChars = 4_000_000;

interface PageText {
  title: string;
  url: string;
  text: string;
  /** Characters of the whole text, before the cut to maxChars. */
  total: number;
}

/**
 * Runs in the page (chrome.scripting serializes it: it must use nothing from outside): the page's
 * rendered text. It returns at once: an injected script still waiting holds back the page's load
 * event, so waiting for the load happens in the worker (loaded, below).
 */
function readPage(maxChars: number): PageText {
  // biome-ignore lint/performance/useDomNodeTextContent: the rendered text, in lines (textContent drops the breaks between blocks, keeps scripts)
  const text = document.body ? document.body.innerText : (document.documentElement?.textContent ?? '');
  return { title: document.title, url: location.href, text: text.slice(0, maxChars), total: text.length };
}

/** Waits until the tab has loaded (at most loadWaitMs, then its text is read as it is), so a page still loading is read whole. */
function loaded(chrome: AgentChrome, tabId: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      chrome.tabs.onUpdated.removeListener(onUpdated);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const onUpdated = (id: number, change: { status?: string }) => {
      if (id === tabId && change.status === 'complete') done();
    };
    const timer = setTimeout(done, loadWaitMs);
    signal.addEventListener('abort', done);
    chrome.tabs.onUpdated.addListener(onUpdated);
    // Read after subscribing, so a load in between is not missed.
    chrome.tabs.get(tabId).then((tab) => tab.status === 'complete' && done(), done);
  });
}

const isWebPage = (tab: TabInfo): boolean => /^https?:\/\//.test(tab.url ?? '');
/** A title or URL on one line: both come from the page, so neither may start a line of its own. */
const oneLine = (text: string | undefined): string => (text ?? '').replace(/\s+/g, ' ').trim();

/** Rejects when the run is aborted: chrome.scripting cannot be cancelled, so the tool stops waiting instead. */
function orAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const abort = () => reject(signal.reason);
    signal.addEventListener('abort', abort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

/**
 * The tab the user is looking at: the active tab of the focused window when it shows a web page,
 * else the web page tab used last (the side panel opened as a tab is not a web page).
 */
async function activeWebTab(chrome: AgentChrome): Promise<TabInfo | string> {
  const [active] = await chrome.tabs.query({ active: true, lastFocusedWindow: true });
  if (active && isWebPage(active)) return active;
  const web = (await chrome.tabs.query({})).filter(isWebPage);
  web.sort((a, b) => (b.lastAccessed ?? 0) - (a.lastAccessed ?? 0));
  return web[0] ?? 'read_active_tab: no tab shows a web page (http or https)';
}

async function tabById(chrome: AgentChrome, tabId: number): Promise<TabInfo | string> {
  const tab = await chrome.tabs.get(tabId).catch(() => undefined);
  if (!tab) return `read_active_tab: there is no tab ${tabId}; list_tabs shows the open tabs`;
  if (!isWebPage(tab))
    return `read_active_tab: tab ${tabId} does not show a web page (${oneLine(tab.url) || 'no URL'})`;
  return tab;
}

/** list_tabs and read_active_tab, over the browser's tabs. */
export function tabTools(chrome: AgentChrome): Tool[] {
  return [
    tool<Record<string, never>>({
      name: 'list_tabs',
      description: 'List the open browser tabs: id, window, whether active, title and URL.',
      parameters: { type: 'object', properties: {}, additionalProperties: false },
      async execute() {
        const tabs = await chrome.tabs.query({});
        if (tabs.length === 0) return 'No tabs are open.';
        return tabs
          .map((tab) => {
            const flags = [`window ${tab.windowId ?? '?'}`, ...(tab.active ? ['active'] : [])].join(', ');
            return `tab ${tab.id ?? '?'} (${flags}): ${oneLine(tab.title) || '(no title)'} — ${oneLine(tab.url) || '(no URL)'}`;
          })
          .join('\n');
      },
    }),
    tool<{ tabId?: number }>({
      name: 'read_active_tab',
      description:
        'Read the text of the web page the user is looking at (or of the tab given by id, from list_tabs). ' +
        'Pages are often hundreds of KB of text.',
      parameters: {
        type: 'object',
        properties: {
          tabId: { type: 'integer', minimum: 0, description: 'A tab id from list_tabs; default: the active tab.' },
        },
        additionalProperties: false,
      },
      async execute({ tabId }, { signal }) {
        const tab = tabId === undefined ? await activeWebTab(chrome) : await tabById(chrome, tabId);
        if (typeof tab === 'string') return ToolOutcome.error(tab);
        let page: PageText | undefined;
        try {
          await loaded(chrome, tab.id!, signal);
          const injected = chrome.scripting.executeScript({
            target: { tabId: tab.id! },
            func: readPage,
            args: [maxPageChars] as [number],
          });
          page = (await orAbort(injected, signal))[0]?.result;
        } catch (error) {
          if (signal.aborted) throw error;
          return ToolOutcome.error(
            `read_active_tab: tab ${tab.id} (${oneLine(tab.url)}) cannot be read: ${(error as Error).message}`,
          );
        }
        if (!page || typeof page.text !== 'string') {
          return ToolOutcome.error(`read_active_tab: tab ${tab.id} returned no text`);
        }
        const cut = page.total > page.text.length ? ` (the first ${page.text.length} are given)` : '';
        return [
          `Title: ${oneLine(page.title)}`,
          `URL: ${oneLine(page.url)}`,
          `Tab: ${tab.id}`,
          `Characters: ${page.total}${cut}`,
          '',
          page.text,
        ].join('\n');
      },
    }),
  ];
}
