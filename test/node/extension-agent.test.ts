import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { integrityOf, type OffloadDump } from '../browser/fixtures/idb-integrity.js';
import { eventuallyMs } from './fixtures/deadlines.js';
import { buildExtension, expectCspSafeExtension, launchWithExtension } from './fixtures/extension-build.js';
import { searchedWord, startLargePageServer } from './fixtures/large-page-server.js';

/**
 * The extension agent (examples/extension-agent), built and loaded into headless Chromium. The
 * side panel is opened as a tab by its chrome-extension:// URL (headless has no side panel UI);
 * everything else is the real thing: the agent in the service worker, chrome.scripting reading a
 * large page served from 127.0.0.1, IndexedDB, the inspector. The worker is stopped mid-run by
 * closing its DevTools target, as Chrome stops an idle or over-budget worker.
 */

const repo = fileURLToPath(new URL('../..', import.meta.url));
const storeName = 'extension-agent-results';
const checkpointsName = 'extension-agent-threads';

let outDir: string;
let profileDir: string;
let server: Awaited<ReturnType<typeof startLargePageServer>>;
let context: BrowserContext;
let extensionId: string;
let panel: Page;

beforeAll(async () => {
  outDir = mkdtempSync(join(tmpdir(), 'extension-agent-'));
  profileDir = mkdtempSync(join(tmpdir(), 'extension-agent-profile-'));
  buildExtension('examples/extension-agent/vite.config.ts', outDir);
  server = await startLargePageServer();
  ({ context, extensionId } = await launchWithExtension(outDir, profileDir));
}, 600_000);

afterAll(async () => {
  await context?.close();
  await server?.close();
  for (const dir of [outDir, profileDir]) if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Polls until the assertion holds: every hop is asynchronous (and the machine may be busy). */
const eventually = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: eventuallyMs, interval: 50 });
const link = () => panel.locator('.link[data-state]');
const workerId = () => link().getAttribute('data-worker');
const threadId = async () => (await panel.locator('.link .thread').textContent()) ?? '';
const runStatus = () => panel.locator('.status[data-run]');
const answers = () => panel.locator('article.bubble.assistant p');
const toolResults = () => panel.locator('article.tool-result');

/** Stops the extension's service worker by closing its target, as the DevTools protocol allows. */
async function stopWorker(): Promise<void> {
  const cdp = await context.browser()!.newBrowserCDPSession();
  try {
    const { targetInfos } = await cdp.send('Target.getTargets');
    const target = targetInfos.find(
      (t) => t.type === 'service_worker' && t.url.startsWith(`chrome-extension://${extensionId}/`),
    );
    if (!target) throw new Error('the extension has no running service worker');
    await cdp.send('Target.closeTarget', { targetId: target.targetId });
  } finally {
    await cdp.detach();
  }
}

async function send(text: string): Promise<void> {
  await panel.locator('#message').fill(text);
  await panel.getByRole('button', { name: 'Send' }).click();
}

/** The whole offload database, read in the panel (same origin as the worker) in one transaction. */
function dumpStore(): Promise<OffloadDump> {
  return panel.evaluate(async (name) => {
    const request = <T>(r: IDBRequest<T>) =>
      new Promise<T>((resolve, reject) => {
        r.onsuccess = () => resolve(r.result);
        r.onerror = () => reject(r.error);
      });
    const database = await request(indexedDB.open(name));
    try {
      const stores = ['threads', 'entries', 'chunks', 'staged', 'undo', 'evictions'];
      const tx = database.transaction(stores, 'readonly');
      const all = (store: string) => request(tx.objectStore(store).getAll());
      const [threads, entries, chunkKeys, chunks, staged, undo, evictions] = await Promise.all([
        all('threads'),
        all('entries'),
        request(tx.objectStore('chunks').getAllKeys()),
        all('chunks'),
        all('staged'),
        all('undo'),
        all('evictions'),
      ]);
      return { threads, entries, chunkKeys, chunks, staged, undo, evictions } as never;
    } finally {
      database.close();
    }
  }, storeName);
}

/** The idempotency key the thread's checkpoint saved for its pending call of `tool` (R9: before it ran). */
function savedKey(thread: string, tool: string): Promise<string | undefined> {
  return panel.evaluate(
    async ({ name, thread, tool }) => {
      const database = await new Promise<IDBDatabase>((resolve, reject) => {
        const open = indexedDB.open(name);
        open.onsuccess = () => resolve(open.result);
        open.onerror = () => reject(open.error);
      });
      try {
        const read = database.transaction('checkpoints').objectStore('checkpoints').get(thread);
        const checkpoint = await new Promise<{
          turn?: { calls: Array<{ call: { name: string }; idempotencyKey: string; status: string }> };
        }>((resolve, reject) => {
          read.onsuccess = () => resolve(read.result);
          read.onerror = () => reject(read.error);
        });
        return checkpoint?.turn?.calls.find((c) => c.call.name === tool && c.status === 'pending')?.idempotencyKey;
      } finally {
        database.close();
      }
    },
    { name: checkpointsName, thread, tool },
  );
}

/**
 * The thread's stored keys, after checking the whole database: no problem (totals equal entries,
 * every chunk referenced), nothing left staged, no eviction in the thread.
 */
async function storedKeys(thread: string): Promise<string[]> {
  const dump = await dumpStore();
  expect(integrityOf(dump).problems).toEqual([]);
  expect(dump.staged).toEqual([]);
  const entries = dump.entries.filter((entry) => entry.threadId === thread);
  const record = dump.threads.find((t) => t.threadId === thread)!;
  expect(record.totalBytes).toBe(entries.reduce((sum, entry) => sum + entry.bytes, 0));
  expect(record.entries).toBe(entries.length);
  expect(dump.evictions.filter((eviction) => eviction.threadId === thread)).toEqual([]);
  return entries.map((entry) => entry.key);
}

/** Opens a new chat in the panel and returns its thread id. */
async function newChat(): Promise<string> {
  const before = await threadId();
  await panel.getByRole('button', { name: 'New chat' }).click();
  await eventually(threadId).not.toBe(before);
  // The worker's first answer for the new thread (the panel shows no worker until it comes).
  await eventually(workerId).not.toBe('');
  return threadId();
}

/** Opens the page still loading (its image held) and makes it the active tab. */
async function openHeldPage(): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${server.base}/held.html`, { waitUntil: 'domcontentloaded' });
  await page.bringToFront();
  return page;
}

/** The thread on screen: one user message, each tool once, nothing interrupted, a final answer. */
async function expectCompleteThread(): Promise<string> {
  expect(await panel.locator('article.bubble.user').count()).toBe(1);
  const tools = await toolResults().evaluateAll((nodes) => nodes.map((n) => n.getAttribute('aria-label')));
  expect(tools.sort()).toEqual(
    ['Result of grep', 'Result of list_tabs', 'Result of read_active_tab', 'Result of read_file'].sort(),
  );
  expect(await toolResults().allTextContents()).not.toContainEqual(expect.stringMatching(/Interrupted/));
  const stored = await panel.locator('.tool-result.stored .badge.stored').allTextContents();
  expect(stored).toHaveLength(1);
  return stored[0]!.replace('offloaded → ', '');
}

describe('the extension agent', { timeout: 600_000 }, () => {
  it('passes the same CSP and no-eval checks as the DevTools panel; the side panel and agent are declared', () => {
    expect(expectCspSafeExtension(outDir)).toEqual(['sidepanel.html']);
    const manifest = JSON.parse(readFileSync(join(outDir, 'manifest.json'), 'utf8'));
    expect(manifest.background).toEqual({ service_worker: 'service-worker.js', type: 'module' });
    expect(manifest.side_panel).toEqual({ default_path: 'sidepanel.html' });
    expect(manifest.permissions.sort()).toEqual(['scripting', 'sidePanel', 'storage', 'tabs']);
  });

  it('reads a large page: the result is offloaded, read back, listed in the inspector, and each model request drawn in its Context tab', async () => {
    panel = await context.newPage();
    await panel.setViewportSize({ width: 480, height: 900 }); // a side panel's width
    await panel.goto(`chrome-extension://${extensionId}/sidepanel.html`);
    await eventually(() => link().getAttribute('data-state')).toBe('connected');
    const page = await context.newPage();
    await page.goto(`${server.base}/large.html`);
    await page.bringToFront();

    await send(`What does this page say about "${searchedWord}"?`);
    await eventually(() => answers().last().textContent()).toContain('grep found');
    const path = await expectCompleteThread();
    expect(path).toMatch(/^\/large_tool_results\/[A-Za-z0-9_-]+$/);
    const answer = (await answers().last().textContent()) ?? '';
    expect(answer).toContain('The page "Harbour report"');
    expect(answer).toContain(`stored at ${path}`);
    // The read-back: line 1 of the stored text, and grep's first hit (every 97th line names the bird).
    expect(answer).toContain('line 1 is "Title: Harbour report"');
    expect(answer).toMatch(
      new RegExp(`grep found 61 lines matching "${searchedWord}", the first: ${path}:\\d+: .*${searchedWord}`),
    );
    const readBack = panel.locator('article[aria-label="Result of read_file"]');
    expect(await readBack.locator('pre').first().textContent()).toMatch(
      /^\s+1\tTitle: Harbour report\n\s+2\tURL: http:\/\/127\.0\.0\.1:\d+\/large\.html/,
    );
    // A page read back is never stored again (O11).
    expect(await readBack.locator('.badge').textContent()).toBe('in context');

    const shot = process.env.EXTENSION_AGENT_SCREENSHOT;
    if (shot) await panel.screenshot({ path: join(repo, shot) });

    await panel.getByRole('tab', { name: 'Inspector' }).click();
    const rows = panel.locator('tbody tr.row td:first-child');
    await eventually(() => rows.allTextContents()).toEqual([path]);
    // The Context tab draws the worker's ledger: a bar for each model request of the run, read from
    // the store the worker wrote (the panel has the worker's origin), named by step and tokens.
    await panel.getByRole('tab', { name: /^Context/ }).click();
    const steps = panel.getByRole('option', { name: /^step \d+: [\d,]+ tokens$/ });
    await eventually(() => steps.count()).toBeGreaterThanOrEqual(3);
    expect(await steps.first().getAttribute('aria-label')).toMatch(/^step 1: /);
    await panel.getByRole('tab', { name: /^Entries/ }).click();
    await panel.getByRole('tab', { name: 'Chat' }).click();
    await page.close();
  });

  it('continues a run whose worker is stopped mid-tool: the panel reconnects, the call runs again with its key, one entry', async () => {
    // Still loading (an image is held), so read_active_tab waits for it until the test releases it.
    const page = await openHeldPage();
    const thread = await newChat();

    await send(`Is there a "${searchedWord}" in the report?`);
    await eventually(() => runStatus().getAttribute('data-tools')).toContain('read_active_tab');
    const firstWorker = await workerId();
    const key = await savedKey(thread, 'read_active_tab');
    expect(key).toMatch(/^[A-Za-z0-9_-]{1,64}$/);

    await stopWorker();
    // The port dropped mid-run: the panel connects again, which starts a new worker; that worker
    // finds the unfinished run and continues it. The page is still loading, so the run cannot end yet.
    await eventually(workerId).not.toBe(firstWorker);
    await eventually(() => runStatus().textContent()).toContain('Continuing the run a stopped worker left unfinished');
    await eventually(() => runStatus().getAttribute('data-tools')).toContain('read_active_tab');
    expect(await link().getAttribute('data-state')).toBe('connected');
    const secondWorker = await workerId();

    server.release();
    await eventually(() => answers().last().textContent()).toContain('grep found');
    expect(await workerId()).toBe(secondWorker);
    const path = await expectCompleteThread();
    expect(path).toBe(`/large_tool_results/${key}`);
    expect(await answers().last().textContent()).toContain('The page "Harbour report (loading)"');

    expect(await storedKeys(thread)).toEqual([key]);
    await page.close();
  });

  it('lets an idle worker sleep when its port drops, and wakes it with the next message', async () => {
    const page = await context.newPage();
    await page.goto(`${server.base}/large.html`);
    await page.bringToFront();
    await newChat();
    await eventually(() => runStatus().count()).toBe(0);
    const idleWorker = await workerId();
    await stopWorker();
    await eventually(() => link().getAttribute('data-state')).toBe('asleep');
    expect(await workerId()).toBe(idleWorker);

    await send(`And "${searchedWord}" here?`);
    await eventually(() => answers().last().textContent()).toContain('grep found');
    expect(await link().getAttribute('data-state')).toBe('connected');
    expect(await workerId()).not.toBe(idleWorker);
    await expectCompleteThread();
    await page.close();
  });

  it('leaves a run whose worker was stopped three times to the user, and continues it on "Continue"', async () => {
    server.hold();
    const page = await openHeldPage();
    const thread = await newChat();
    await send(`Any "${searchedWord}" today?`);
    await eventually(() => runStatus().getAttribute('data-tools')).toContain('read_active_tab');
    const key = await savedKey(thread, 'read_active_tab');
    for (let death = 1; death <= 3; death++) {
      const worker = await workerId();
      await stopWorker();
      // Each new worker shows itself once it has taken the run over (or, the third time, left it).
      await eventually(workerId).not.toBe(worker);
    }
    await eventually(() => runStatus().getAttribute('data-run')).toBe('stalled');
    expect(await runStatus().textContent()).toContain("the extension's worker was stopped 3 times during this run");

    server.release();
    await panel.getByRole('button', { name: 'Continue' }).click();
    await eventually(() => answers().last().textContent()).toContain('grep found');
    const path = await expectCompleteThread();
    expect(path).toBe(`/large_tool_results/${key}`);
    expect(await storedKeys(thread)).toEqual([key]);
    await page.close();
  });
});
