import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page, Worker } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventuallyMs } from './fixtures/deadlines.js';
import { buildExtension, expectCspSafeExtension, launchWithExtension } from './fixtures/extension-build.js';
import type { ExtensionPageApi } from './fixtures/extension-page.js';
import { startPageServer } from './fixtures/page-server.js';

/**
 * The built extension, loaded into headless Chromium. Headless, the DevTools window itself cannot
 * be driven, so the panel page is opened as a tab (chrome-extension://<id>/panel.html?tabId=N);
 * everything else is the real thing: the service worker, the content script in the inspected
 * page, chrome.runtime ports, and a store exposed with exposeToInspector in the page or a Worker.
 */

const repo = fileURLToPath(new URL('../..', import.meta.url));
declare const extensionPage: ExtensionPageApi;
declare const chrome: { tabs: { query(info: object): Promise<Array<{ id?: number }>> } };

let outDir: string;
let profileDir: string;
let server: Awaited<ReturnType<typeof startPageServer>>;
let context: BrowserContext;
let worker: Worker;
let extensionId: string;

beforeAll(async () => {
  outDir = mkdtempSync(join(tmpdir(), 'offload-extension-'));
  profileDir = mkdtempSync(join(tmpdir(), 'offload-profile-'));
  buildExtension('extension/vite.config.ts', outDir);
  server = await startPageServer();
  ({ context, worker, extensionId } = await launchWithExtension(outDir, profileDir));
}, 600_000);

afterAll(async () => {
  await context?.close();
  await server?.close();
  for (const dir of [outDir, profileDir]) if (dir) rmSync(dir, { recursive: true, force: true });
});

const origin = () => new URL(server.url).origin;
const tabIds = () => worker.evaluate(async () => (await chrome.tabs.query({})).map((tab) => tab.id ?? -1));

/** Opens the fixture page (`where`: page, worker, none) and returns it with its tab id. */
async function openInspected(where: string): Promise<{ page: Page; tabId: number }> {
  const before = new Set(await tabIds());
  const page = await context.newPage();
  await page.goto(new URL(`extension-page.html?where=${where}`, server.url).href);
  if (where !== 'none') await page.evaluate(() => extensionPage.ready);
  const added = (await tabIds()).filter((id) => !before.has(id));
  expect(added).toHaveLength(1);
  return { page, tabId: added[0]! };
}

async function openPanel(tabId: number): Promise<Page> {
  const panel = await context.newPage();
  await panel.setViewportSize({ width: 1200, height: 760 });
  await panel.goto(`chrome-extension://${extensionId}/panel.html?tabId=${tabId}`);
  return panel;
}

/** Polls until the assertion holds: the panel is asynchronous at every hop (and the machine may be busy). */
const eventually = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: eventuallyMs, interval: 50 });
const paths = (panel: Page) => panel.locator('tbody tr.row td:first-child');
/** The text of the first element `selector` matches, or '' while there is none. */
const textOf = (panel: Page, selector: string) => async () =>
  (await panel.locator(selector).count()) > 0 ? ((await panel.locator(selector).first().textContent()) ?? '') : '';

describe('the built extension', { timeout: 600_000 }, () => {
  it('is an MV3 extension whose pages load only their own module scripts (no inline script, no eval)', () => {
    expect(expectCspSafeExtension(outDir)).toEqual(['devtools.html', 'panel.html']);
    const manifest = JSON.parse(readFileSync(join(outDir, 'manifest.json'), 'utf8'));
    expect(manifest.devtools_page).toBe('devtools.html');
    expect(manifest.background).toEqual({ service_worker: 'service-worker.js', type: 'module' });
    expect(manifest.content_scripts[0].js).toEqual(['content-script.js']);
    // A content script is a classic script: no import statements.
    expect(readFileSync(join(outDir, 'content-script.js'), 'utf8')).not.toMatch(/^\s*import\b|\bimport\s*\{/m);
  });

  it("shows the entries of a store exposed in the page, reads a stored text on demand, and follows the page's changes", async () => {
    const { page, tabId } = await openInspected('page');
    const panel = await openPanel(tabId);
    await eventually(() => panel.locator('.status[data-state]').textContent()).toContain(`Connected to ${origin()}`);
    await expect
      .poll(() => paths(panel).allTextContents())
      .toEqual(
        expect.arrayContaining([
          '/large_tool_results/call_fetch_changelog',
          '/large_tool_results/call_search_logs',
          '/large_tool_results/call_list_bucket',
        ]),
      );
    // The header names the tab, not the panel's private channel; the gauges show each thread's bound,
    // as the page's store reports it (the page passes none).
    await eventually(textOf(panel, '.title')).toContain(`· DevTools · tab ${tabId}`);
    expect(await textOf(panel, '.title')()).not.toContain('channel');
    await eventually(() => panel.locator('meter').count()).toBe(2);
    expect(await panel.locator('.gauges').textContent()).toContain('of 586 KiB');
    await paths(panel).filter({ hasText: 'call_fetch_changelog' }).click();
    await eventually(textOf(panel, 'section.lines .lt')).toBe('page: v3.0.0 fixed item 0');
    await eventually(textOf(panel, 'pre.preview')).toContain('Path: /large_tool_results/call_fetch_changelog');

    await page.evaluate(() => extensionPage.add('chat-3', 'call_read_db', 'read_db', 'row 1\nrow 2'));
    await eventually(() => paths(panel).allTextContents()).toContain('/large_tool_results/call_read_db');
    const shot = process.env.EXTENSION_SCREENSHOT;
    if (shot) {
      await panel.mouse.move(0, 0); // no row under the pointer: hover would look like a second highlight
      await panel.screenshot({ path: join(repo, shot) });
    }

    // A reload of the inspected page: the panel attaches to the new page and reads its store again.
    await page.reload();
    await page.evaluate(() => extensionPage.ready);
    await eventually(() => paths(panel).allTextContents()).not.toContain('/large_tool_results/call_read_db');
    await eventually(() => paths(panel).count()).toBe(3);
    await eventually(textOf(panel, '.status[data-state]')).toContain('Connected to');
    await panel.close();
    await page.close();
  });

  it('shows the entries of a store that lives in a Web Worker of the page', async () => {
    const { page, tabId } = await openInspected('worker');
    const panel = await openPanel(tabId);
    await eventually(() => paths(panel).count()).toBe(3);
    await paths(panel).filter({ hasText: 'call_search_logs' }).click();
    await eventually(textOf(panel, 'section.lines .lt')).toContain('ERROR worker-0 timeout');
    await paths(panel).filter({ hasText: 'call_fetch_changelog' }).click();
    await eventually(textOf(panel, 'section.lines .lt')).toBe('worker: v3.0.0 fixed item 0');
    await page.evaluate(() => extensionPage.add('chat-1', 'call_worker_more', 'fetch_page', 'more'));
    await eventually(() => paths(panel).allTextContents()).toContain('/large_tool_results/call_worker_more');
    await panel.close();
    await page.close();
  });

  it('shows nothing of a page that exposes no store, and says why', async () => {
    const { page, tabId } = await openInspected('none');
    const panel = await openPanel(tabId);
    await eventually(textOf(panel, '.status[data-state]')).toContain(`Connected to ${origin()}`);
    await eventually(textOf(panel, '[role=alert]')).toContain(
      'No store answered on channel "tool-output-offload" in this page within 3000 ms: call exposeToInspector(store)',
    );
    expect(await paths(panel).count()).toBe(0);
    await panel.close();
    await page.close();
  });

  it('says when the inspected tab has no content script (not an http(s) page)', async () => {
    const { page, tabId } = await openInspected('none');
    await page.goto('about:blank');
    const panel = await openPanel(tabId);
    await eventually(textOf(panel, '.status[data-state]')).toContain(`No content script answers in tab ${tabId}`);
    await eventually(textOf(panel, '.status[data-state]')).toContain('retrying');
    await panel.close();
    await page.close();
  });
});
