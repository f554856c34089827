import { render } from 'preact';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ChromeApi } from '../../extension/chrome-api.js';
import { startContentRelay } from '../../extension/content-relay.js';
import { inspectedTabId } from '../../extension/panel-link.js';
import { PanelPage, type PanelPageProps } from '../../extension/panel-page.js';
import { startRouter } from '../../extension/router.js';
import { PAGE_PORT, PANEL_PORT } from '../../extension/transport.js';
import { exposeToInspector } from '../../inspector/source/expose.js';
import { MemoryOffloadStore } from '../../lib/store/memory-store.js';
import { fakeChrome } from './extension-fake-chrome.js';
import { inspectorRoot, put, sampleStore, until } from './inspector-fixtures.js';

/**
 * The panel page over the whole chain, in Chromium with a fake `chrome`: panel ⇄ router ⇄
 * content script relay ⇄ a store exposed with exposeToInspector. The real DevTools window is not
 * involved; the load test in test/node runs the built extension in Chromium.
 */

const ORIGIN = 'http://127.0.0.1:5173';
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});
const later = (stop: () => void) => cleanups.push(stop);

/** The inspected page: its store exposed on its own channel, relayed by its content script. */
function page(fake: ReturnType<typeof fakeChrome>, channel: string, store: MemoryOffloadStore, bound?: number) {
  const stopExposing = exposeToInspector(store, { channel, bound });
  const stopRelay = startContentRelay(fake.contentScript(7), { origin: ORIGIN, channel });
  const unload = () => {
    stopExposing();
    stopRelay();
    fake.unload(7);
  };
  later(unload);
  return unload;
}

function openPanel(fake: ReturnType<typeof fakeChrome>, timing: PanelPageProps['timing'] = { retryMs: 30 }) {
  const container = document.createElement('div');
  container.style.cssText = 'width: 1000px; height: 600px; display: flex; flex-direction: column;';
  document.body.append(container);
  render(<PanelPage runtime={fake.extensionPage()} tabId={7} timing={timing} />, container);
  later(() => {
    render(null, container);
    container.remove();
  });
  const status = () => container.querySelector('[data-state]')?.textContent ?? '';
  const paths = () => {
    const host = container.querySelector('.inspector');
    if (!host?.querySelector('[data-tool-output-offload-inspector]')) return [];
    return [...inspectorRoot(host).querySelectorAll('tbody tr.row')].map((row) => row.querySelector('td')?.textContent);
  };
  const root = () => inspectorRoot(container.querySelector('.inspector')!);
  return { container, status, paths, root };
}

function setup() {
  const fake = fakeChrome();
  later(startRouter(fake.worker));
  return { fake, channel: `extension-panel-test-${crypto.randomUUID()}` };
}

describe('the panel page', () => {
  it("shows the page's store through the extension, and carries a stored text only when it is opened", async () => {
    const { fake, channel } = setup();
    const store = await sampleStore();
    const read = vi.spyOn(store, 'read');
    page(fake, channel, store);
    const panel = openPanel(fake);

    await until(() => expect(panel.status()).toBe(`Connected to ${ORIGIN} (tab 7)`));
    await until(() => expect(panel.paths()).toHaveLength(3));
    const bravoText = 'line one\nline two\nline three';
    expect(JSON.stringify(fake.traffic)).not.toContain('line two');
    expect(read).not.toHaveBeenCalled();

    panel.root().querySelectorAll<HTMLElement>('tbody tr.row')[1]!.click();
    await until(() =>
      expect([...panel.root().querySelectorAll('.lt')].map((line) => line.textContent)).toEqual(bravoText.split('\n')),
    );
    expect(read).toHaveBeenCalledTimes(1);
    // content script → worker, worker → panel: the one answer, on its two hops.
    const carrying = fake.traffic.filter((message) => JSON.stringify(message).includes('line two'));
    expect(carrying).toEqual([
      expect.objectContaining({ kind: 'response', ok: true, value: bravoText }),
      expect.objectContaining({ kind: 'response', ok: true, value: bravoText }),
    ]);

    await put(store, 'chat-3', 'echo', 'new result');
    await until(() => expect(panel.paths()).toContain('/large_tool_results/echo'));
  });

  it("names the tab in the inspector's header, and gauges each thread's bound and the origin storage through every hop", async () => {
    const { fake, channel } = setup();
    const store = await sampleStore();
    Object.assign(store, {
      estimate: async (): Promise<StorageEstimate> => ({ usage: 12.3 * 2 ** 20, quota: 1.2 * 2 ** 30 }),
      persisted: async () => false,
    });
    page(fake, channel, store);
    const panel = openPanel(fake);
    await until(() => expect(panel.paths()).toHaveLength(3));
    const title = () => panel.root().querySelector('.title')?.textContent ?? '';
    expect(title()).toContain('· DevTools · tab 7');
    expect(title()).not.toMatch(/channel|devtools · tab 7 ·/);
    await until(() =>
      expect(title()).toContain('whole site on disk (browser quota): 12 MiB of 1.2 GiB · not persisted'),
    );
    await until(() => expect(panel.root().querySelectorAll('meter')).toHaveLength(2));
    // Each thread's own bound, as the page's store reports it (chat-2's writers gave 150 and 1 GiB).
    const meter = (thread: string) =>
      panel.root().querySelector<HTMLMeterElement>(`meter[aria-label="Thread ${thread}: stored bytes"]`)!;
    await until(() => expect(meter('chat-2').getAttribute('aria-valuetext')).toBe('120 B of 150 B (80%)'));
    expect(meter('chat-1').max).toBe(2 ** 30);
    expect(panel.root().querySelector('.gauges')?.textContent).not.toContain('bound unknown');
  });

  it('waits for a page that has no content script yet, then attaches; after a reload it reads the new store', async () => {
    const { fake, channel } = setup();
    const panel = openPanel(fake);
    await until(() => expect(panel.status()).toMatch(/^No content script answers in tab 7 .* · retrying$/));
    expect(panel.paths()).toEqual([]);

    const unload = page(fake, channel, await sampleStore());
    await until(() => expect(panel.status()).toBe(`Connected to ${ORIGIN} (tab 7)`));
    await until(() => expect(panel.paths()).toHaveLength(3));

    unload();
    await until(() => expect(panel.status()).toMatch(/^(The page in tab 7 went away|No content script answers)/));
    const reloaded = new MemoryOffloadStore();
    await put(reloaded, 'chat-9', 'after-reload', 'fresh');
    page(fake, channel, reloaded);
    await until(() => expect(panel.paths()).toEqual(['/large_tool_results/after-reload']));
    expect(panel.status()).toBe(`Connected to ${ORIGIN} (tab 7)`);
  });

  it('reconnects when the service worker stops (its ports close), and keeps following the store', async () => {
    const { fake, channel } = setup();
    const store = await sampleStore();
    page(fake, channel, store);
    const panel = openPanel(fake);
    await until(() => expect(panel.paths()).toHaveLength(3));
    const before = fake.workerPorts.filter((port) => port.name === PANEL_PORT).length;

    for (const port of fake.workerPorts) port.disconnect(); // what Chrome does when it stops the worker
    await until(() => expect(fake.workerPorts.filter((port) => port.name === PANEL_PORT).length).toBe(before + 1));
    await until(() => expect(panel.status()).toBe(`Connected to ${ORIGIN} (tab 7)`));
    await put(store, 'chat-3', 'after-restart', 'still here');
    await until(() => expect(panel.paths()).toContain('/large_tool_results/after-restart'));
  });

  it('reads through its port: the panel page opens no BroadcastChannel of its own', async () => {
    const opened: string[] = [];
    const Original = globalThis.BroadcastChannel;
    globalThis.BroadcastChannel = class extends Original {
      constructor(name: string) {
        super(name);
        opened.push(name);
      }
    };
    later(() => {
      globalThis.BroadcastChannel = Original;
    });
    const { fake, channel } = setup();
    page(fake, channel, await sampleStore());
    const panel = openPanel(fake);
    await until(() => expect(panel.paths()).toHaveLength(3));
    panel.root().querySelectorAll<HTMLElement>('tbody tr.row')[1]!.click();
    await until(() => expect(panel.root().querySelectorAll('.lt')).toHaveLength(3));
    // The page's: exposeToInspector's and the content script's relay, both on the page's channel.
    expect(opened).toEqual([channel, channel]);
  });

  it('pings the worker while open, and closes its port when it goes', async () => {
    const { fake, channel } = setup();
    page(fake, channel, await sampleStore());
    const panel = openPanel(fake, { retryMs: 30, keepAliveMs: 20 });
    const pings = () => fake.traffic.filter((message) => (message as { kind?: string }).kind === 'ping').length;
    await until(() => expect(pings()).toBeGreaterThanOrEqual(3));
    const port = fake.workerPorts.find((p) => p.name === PANEL_PORT)!;
    render(null, panel.container);
    await until(() => expect(port.connected).toBe(false));
    const after = pings();
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(pings()).toBe(after);
    expect(fake.workerPorts.filter((p) => p.name === PAGE_PORT).every((p) => !p.connected)).toBe(true);
  });
});

describe('the panel page reads what changed', () => {
  it('a change on one thread asks the page for the changed entry only, through every hop', async () => {
    const { fake, channel } = setup();
    const store = new MemoryOffloadStore();
    for (let t = 0; t < 20; t++) await put(store, `t${t}`, `k${t}`, `text ${t}`);
    page(fake, channel, store);
    const panel = openPanel(fake);
    await until(() => expect(panel.paths()).toHaveLength(20));
    await new Promise((resolve) => setTimeout(resolve, 150)); // the first reads are over
    const list = vi.spyOn(store, 'list');
    const evictions = vi.spyOn(store, 'evictions');

    await put(store, 't4', 'k4-new', 'new on t4', { createdAt: Date.now() + 1000 });
    await until(() => expect(panel.paths()[0]).toBe('/large_tool_results/k4-new'));
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(list.mock.calls).toEqual([['t4', { keys: ['k4-new'] }]]);
    expect(evictions).not.toHaveBeenCalled();

    // An eviction: of the log, the page is asked for the records of the keys it named only.
    await put(store, 't9', 'k9-big', 'y'.repeat(20), { createdAt: Date.now() + 2000 }, 20); // evicts k9
    await until(() => expect(panel.paths()[0]).toBe('/large_tool_results/k9-big'));
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(evictions.mock.calls).toEqual([['t9', { keys: ['k9', 'k9-big'] }]]);
  });
});

describe('inspectedTabId', () => {
  const api = (devtools?: ChromeApi['devtools']) => ({ runtime: fakeChrome().extensionPage(), devtools });

  it("is DevTools' inspected tab inside DevTools, whatever the URL says", () => {
    const devtools = { inspectedWindow: { tabId: 12 }, panels: { create() {} } };
    expect(inspectedTabId(api(devtools), '?tabId=99')).toBe(12);
  });

  it('is ?tabId= outside DevTools (tests, or the page opened by hand), and undefined when that is not a tab id', () => {
    expect(inspectedTabId(api(), '?tabId=99')).toBe(99);
    for (const search of [
      '',
      '?tabId=',
      '?tabId=-1',
      '?tabId=1.5',
      '?tabId=abc',
      '?tabId=1e3',
      '?tabId=99999999999999999',
    ]) {
      expect(inspectedTabId(api(), search), search).toBeUndefined();
    }
  });
});
