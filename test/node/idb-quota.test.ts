import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright';
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM helper shared with the npm scripts
import { chromiumArgs, findChromium } from '../../scripts/browser.mjs';
import { startPageServer } from './fixtures/page-server.js';
import type { StorePageApi } from './fixtures/store-page.js';

/**
 * S3 with a real QuotaExceededError: Chromium's quota follows the free disk space, so its profile
 * lives on a 30 MB tmpfs that 2 MB results soon fill. Mounting needs root (as CI runs here); run
 * by anyone else, this test is reported as skipped.
 */
declare const storePage: StorePageApi;

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

describe('IndexedDbOffloadStore on a full disk (S3)', () => {
  it.runIf(isRoot)(
    'a real QuotaExceededError fails only the result being stored: stored data intact, the failure recorded',
    async () => {
      const disk = mkdtempSync(join(tmpdir(), 'offload-quota-'));
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=30m', 'tmpfs', disk]);
      const server = await startPageServer();
      try {
        mkdirSync(join(disk, 'profile'));
        const context = await chromium.launchPersistentContext(join(disk, 'profile'), {
          executablePath: await findChromium(),
          args: chromiumArgs,
        });
        try {
          const page = await context.newPage();
          await page.goto(server.url);
          await page.waitForFunction(() => 'storePage' in globalThis);
          const report = await page.evaluate(() => storePage.fillUntilQuota('quota-test'));
          expect(report.failure).toMatchObject({ name: 'QuotaExceededError', isDomException: true });
          // The 2 MB text is what no longer fits (seen: the tenth stage); a commit's small records could be too.
          expect(['stage', 'apply']).toContain(report.failure!.step);
          expect(report.stored).toBeGreaterThan(0);
          expect(report.keptIntact).toBe(true);
          expect(report.failures).toBe(1);
          expect(report.problems).toEqual([]);
          expect(report.wrongText).toEqual([]);
          expect(report.listed).toBe(report.stored + 1);
          expect(report.live).not.toContain(report.failure!.key);
        } finally {
          await context.close();
        }
      } finally {
        await server.close();
        execFileSync('umount', [disk]);
        rmSync(disk, { recursive: true, force: true });
      }
    },
    120_000,
  );
});
