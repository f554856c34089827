import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright';
import { createServer, type ViteDevServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM helper shared with the npm scripts
import { chromiumArgs, findChromium } from '../../scripts/browser.mjs';
import type { ReloadPageApi, Scenario } from '../fixtures/reload/reload-page.js';
import { hangMs } from './fixtures/deadlines.js';

/**
 * Recovery across a reload (issue 5), in Chromium: an agent with IndexedDbCheckpointer,
 * IndexedDbOffloadStore and ToolOutputOffload is reloaded in the middle of a run, and the new page's
 * `agent.recover(threadId)` finishes it. The unfinished call runs again with the idempotency key
 * saved before it first ran, and the store ends with one entry for it, no orphan text, exact totals.
 */
declare const reloadPage: ReloadPageApi;

const root = fileURLToPath(new URL('../fixtures/reload', import.meta.url));
let server: ViteDevServer;
let browser: Browser;
let base: string;

beforeAll(async () => {
  server = await createServer({
    root,
    configFile: false,
    logLevel: 'error',
    cacheDir: fileURLToPath(new URL('../../node_modules/.vite/reload-fixture', import.meta.url)),
    // No file watching or HMR: an edit elsewhere in the tree must not reload the page behind the test.
    server: { host: '127.0.0.1', port: 0, hmr: false, watch: null },
    // Bundled before the first page, so no late dependency discovery reloads it either.
    optimizeDeps: { include: ['idb', '@cfworker/json-schema'], noDiscovery: true },
  });
  await server.listen();
  base = server.resolvedUrls!.local[0]!;
  browser = await chromium.launch({ executablePath: await findChromium(), args: chromiumArgs });
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function ready(page: Page, life: number): Promise<void> {
  await page.waitForFunction(() => 'reloadPage' in globalThis);
  expect(await page.evaluate(() => reloadPage.seen.life)).toBe(life);
}

/** A fresh tab (its own sessionStorage and databases) in its first life, and the errors its pages throw. */
async function openPage(scenario: Scenario): Promise<{ page: Page; errors: string[] }> {
  const page = await (await browser.newContext()).newPage();
  page.setDefaultTimeout(hangMs);
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${base}?db=reload-${scenario}-${Date.now()}&scenario=${scenario}`);
  await ready(page, 1);
  return { page, errors };
}

async function reload(page: Page): Promise<void> {
  await page.reload();
  await ready(page, 2);
}

function keyOf(calls: Array<{ tool: string; key: string }>, tool: string): string {
  const call = calls.find((c) => c.tool === tool);
  if (!call) throw new Error(`${tool} did not start; calls: ${JSON.stringify(calls)}`);
  return call.key;
}

/** What every recovered store must show: totals equal to its entries, every text referenced, nothing staged. */
function expectWhole(report: Awaited<ReturnType<ReloadPageApi['report']>>): void {
  expect(report.integrity.problems).toEqual([]);
  expect(report.raw.staged).toBe(0);
  expect(report.raw.thread?.totalBytes).toBe(report.raw.entryBytes);
  expect(report.raw.thread?.entries).toBe(report.raw.entries);
  expect(report.totalBytes).toBe(report.entries.reduce((sum, entry) => sum + entry.bytes, 0));
}

describe('recover after a reload (IndexedDbCheckpointer + IndexedDbOffloadStore + ToolOutputOffload)', () => {
  it('a reload while a tool runs: only that call runs again, with its key; one entry per call, no orphan text', async () => {
    const { page, errors } = await openPage('tool-running');
    await page.evaluate(() => reloadPage.start());
    // fetch_page has started (it never returns in this life); the parallel search call is done and saved.
    await page.waitForFunction(
      () =>
        reloadPage.seen.calls.some((c) => c.tool === 'fetch_page') &&
        reloadPage.seen.saves.some((statuses) => statuses.includes('done')),
    );
    const first = await page.evaluate(() => reloadPage.seen);
    const fetchKey = keyOf(first.calls, 'fetch_page');
    const searchKey = keyOf(first.calls, 'search');
    expect(first.stored).toEqual([searchKey]);

    await reload(page);
    const recovered = await page.evaluate(() => reloadPage.recover());
    expect(recovered).toMatchObject({ status: 'completed', output: 'Read 2 results.' });
    const second = await page.evaluate(() => reloadPage.seen);
    expect(second.calls).toEqual([{ tool: 'fetch_page', key: fetchKey }]);
    expect(second.stored).toEqual([fetchKey]);
    // The model was shown the preview naming the path of that same key.
    expect(recovered.tools.find((t) => t.name === 'fetch_page')?.text).toContain(`/large_tool_results/${fetchKey}`);

    const report = await page.evaluate(() => reloadPage.report());
    expect(report.entries.map((e) => e.key).sort()).toEqual([fetchKey, searchKey].sort());
    expect(report.entries.find((e) => e.key === fetchKey)?.firstLine).toContain(`${fetchKey} in life 2`);
    expect(report.entries.find((e) => e.key === searchKey)?.firstLine).toContain(`${searchKey} in life 1`);
    expect(report.evictions).toEqual([]);
    expect(report.raw.texts).toBe(2);
    expect(report.raw.entries).toBe(2);
    expectWhole(report);
    expect(errors).toEqual([]);
    await page.context().close();
  }, 600_000);

  it('a reload after the result was stored but before the checkpoint recorded it: the rerun replaces its own entry', async () => {
    const { page, errors } = await openPage('stored-not-saved');
    await page.evaluate(() => reloadPage.start());
    await page.waitForFunction(() => reloadPage.seen.stored.length > 0);
    const first = await page.evaluate(() => reloadPage.seen);
    const fetchKey = keyOf(first.calls, 'fetch_page');
    expect(first.stored).toEqual([fetchKey]);
    // The last checkpoint saved still has the call pending.
    expect(first.saves.at(-1)).toEqual(['pending']);
    const before = await page.evaluate(() => reloadPage.report());
    expect(before.entries.map((e) => e.firstLine)).toEqual([expect.stringContaining(`${fetchKey} in life 1`)]);

    await reload(page);
    const recovered = await page.evaluate(() => reloadPage.recover());
    expect(recovered).toMatchObject({ status: 'completed', output: 'Read 1 results.' });
    const second = await page.evaluate(() => reloadPage.seen);
    expect(second.calls).toEqual([{ tool: 'fetch_page', key: fetchKey }]);
    expect(second.stored).toEqual([fetchKey]);

    const report = await page.evaluate(() => reloadPage.report());
    expect(report.entries).toEqual([
      { key: fetchKey, bytes: before.entries[0]!.bytes, firstLine: expect.stringContaining(`${fetchKey} in life 2`) },
    ]);
    expect(report.evictions).toEqual([{ key: fetchKey, reason: 'replaced' }]);
    expect(report.totalBytes).toBe(before.totalBytes);
    // The recovered turn completed, so the replaced text, kept only to undo it (O8), is gone.
    expect(report.raw.texts).toBe(1);
    expectWhole(report);

    // The next turn changes nothing of it: the store holds exactly one text, its entry's.
    expect(await page.evaluate(() => reloadPage.run('thanks'))).toMatchObject({ status: 'completed' });
    const settled = await page.evaluate(() => reloadPage.report());
    expect(settled.entries.map((e) => e.key)).toEqual([fetchKey]);
    expect(settled.raw.texts).toBe(1);
    expect(settled.raw.entries).toBe(1);
    expectWhole(settled);
    expect(errors).toEqual([]);
    await page.context().close();
  }, 600_000);
});
