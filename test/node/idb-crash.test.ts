import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeEngines } from './fixtures/engines.js';
import { startPageServer } from './fixtures/page-server.js';
import type { StorePageApi } from './fixtures/store-page.js';

/**
 * S2: a tab killed in the middle of writing leaves the store as it was before or after each
 * update. A page writes (stage, commit, drop, restore) without pause; the test kills its renderer
 * at a random moment, ten times, and after each kill checks the whole database in a new page. In
 * Chromium and in Firefox (each kills the tab its own way: see fixtures/engines.ts).
 */
const ROUNDS = 10;

declare const storePage: StorePageApi;

let server: Awaited<ReturnType<typeof startPageServer>>;
const engines = await nodeEngines();

beforeAll(async () => {
  server = await startPageServer();
}, 600_000);

afterAll(async () => {
  await server?.close();
});

async function openPage(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  await page.goto(server.url);
  await page.waitForFunction(() => 'storePage' in globalThis);
  return page;
}

describe.each(engines)('IndexedDbOffloadStore when its tab is killed mid-write (S2), in $name', (engine) => {
  it(`stays whole after ${ROUNDS} kills: totals exact, no partial entry, every commit kept`, async () => {
    const profile = mkdtempSync(join(tmpdir(), `offload-crash-${engine.name}-`));
    const context = await engine.launch(profile);
    try {
      const name = `crash-${Date.now()}`;
      const committed: string[] = [];
      /** Checks the database from a fresh page: whole, and holding every commit that was reported. */
      const checkFrom = async (page: Page, round: number) => {
        const report = await page.evaluate((name) => storePage.check(name), name);
        expect(report.problems, `after kill ${round}`).toEqual([]);
        expect(report.wrongText, `after kill ${round}`).toEqual([]);
        expect(report.totalBytes).toBeLessThanOrEqual(1_000_000);
        const known = new Set([...report.live, ...report.evicted]);
        expect(
          committed.filter((key) => !known.has(key)),
          `after kill ${round}`,
        ).toEqual([]);
      };
      for (let round = 0; round < ROUNDS; round++) {
        const page = await openPage(context);
        if (round > 0) await checkFrom(page, round - 1);
        const before = committed.length;
        page.on('console', (message) => {
          const text = message.text();
          if (text.startsWith('committed ')) committed.push(text.slice('committed '.length));
        });
        void page.evaluate(({ name, round }) => storePage.write(name, round), { name, round }).catch(() => {});
        // Mid-write: at least one commit of this round done, then a random moment within the next ones.
        await expect.poll(() => committed.length, { timeout: 60_000, interval: 10 }).toBeGreaterThan(before);
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 150));
        await engine.killTab(context, page);
        await page.close();
      }
      const last = await openPage(context);
      await checkFrom(last, ROUNDS - 1);
      expect(committed.length).toBeGreaterThan(ROUNDS);
    } finally {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    }
  }, 600_000);
});

if (engines.length === 0) it.skip('S2 needs Chromium or Firefox: BROWSERS names neither', () => {});
