// grep's engine (re2js) runs where eval is forbidden: a page with the CSP of the extension's pages.

import { chromium } from 'playwright';
import { afterAll, beforeAll, expect, it } from 'vitest';
// @ts-expect-error plain ESM helper shared with the npm scripts
import { chromiumArgs, findChromium } from '../../scripts/browser.mjs';
import type { CspPageResult } from './fixtures/csp-page.js';
import { hangMs } from './fixtures/deadlines.js';
import { startPageServer } from './fixtures/page-server.js';

declare const cspPage: Promise<CspPageResult>;
let server: Awaited<ReturnType<typeof startPageServer>>;
let browser: Awaited<ReturnType<typeof chromium.launch>>;

beforeAll(async () => {
  server = await startPageServer('csp-page.html');
  browser = await chromium.launch({ executablePath: await findChromium(), args: chromiumArgs });
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

it("greps and globs under script-src 'self' (no eval), with the catastrophic pattern, loading re2js at the first grep", {
  timeout: 600_000,
}, async () => {
  const page = await browser.newPage();
  page.setDefaultTimeout(hangMs);
  await page.goto(server.url);
  const result = await page.evaluate(() => cspPage);
  expect(result.evalRefused).toBe(true);
  expect(result.tool).toBe(`/page.html:2: ${'a'.repeat(32)}`);
  expect(result.stored).toEqual([2]);
  expect(result.glob).toEqual(['/page.html']);
  // re2js is fetched on the first grep, not before: ls and read_file do not need it.
  expect(result.re2jsLoaded).toEqual({ afterLsAndRead: false, afterGrep: true });
  // Only the control's refusal: nothing the library did.
  expect(result.violations).toEqual(['script-src']);
});
