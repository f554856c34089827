import preact from '@preact/preset-vite';
import { playwright } from '@vitest/browser-playwright';
import type { BrowserInstanceOption } from 'vitest/node';
// @ts-expect-error plain ESM helper shared with the npm scripts
import { availableEngines, chromiumArgs, findChromium, installHint } from './scripts/browser.mjs';
import { firefoxBidi } from './test/engines/firefox-provider.js';
import { type WebKitPaths, webkitGtk } from './test/engines/webkit-provider.js';

const executablePath: string | undefined = await findChromium();

/** What every vitest project that runs in a browser shares: tests, benches and doc screenshots. */
export const chromiumProject = {
  plugins: [preact()],
  server: { host: '127.0.0.1' },
  // Pre-bundled up front: discovering them mid-run makes vite reload the page under a running test.
  optimizeDeps: {
    include: [
      'idb',
      '@cfworker/json-schema',
      '@tanstack/virtual-core',
      'fast-check',
      'preact',
      'preact/hooks',
      'langchain',
      '@langchain/core/messages',
      '@langchain/core/tools',
      '@langchain/langgraph',
      'ai',
      'ai/test',
      'zod',
    ],
  },
};

/** Headless Chromium alone: the benches and doc screenshots (their figures and images are Chromium's). */
export const chromiumBrowser = {
  enabled: true,
  headless: true,
  screenshotFailures: false,
  provider: playwright({ launchOptions: { executablePath, args: chromiumArgs } }),
  instances: [{ browser: 'chromium' as const }],
};

/**
 * The browser tests' engines: every installed one, or those named in BROWSERS (`BROWSERS=firefox`).
 * Each is a vitest project: `browser (chromium)`, `browser (firefox)`, `browser (webkit)`. `skipped`
 * names the requested engines that are not installed, with how to install them.
 */
export async function testBrowsers() {
  const { found, missing } = (await availableEngines()) as {
    found: { chromium?: string; firefox?: string; webkit?: WebKitPaths };
    missing: string[];
  };
  const instances: BrowserInstanceOption[] = [];
  if (found.chromium) {
    instances.push({
      browser: 'chromium',
      provider: playwright({ launchOptions: { executablePath: found.chromium, args: chromiumArgs } }),
    });
  }
  if (found.firefox) {
    instances.push({
      browser: 'firefox',
      provider: firefoxBidi(found.firefox),
      setupFiles: ['test/browser/setup/firefox-tester-transform.ts'],
    });
  }
  if (found.webkit) {
    // Vitest knows WebKit through webdriverio as 'safari'; MiniBrowser runs under the provider's own
    // Xvfb, so it is not headless as far as vitest knows.
    instances.push({ browser: 'safari', name: 'browser (webkit)', headless: false, provider: webkitGtk(found.webkit) });
  }
  const skipped = missing.map((name) => `${name} (not installed; install: \`${installHint(name)}\`)`);
  return { browser: { enabled: true, headless: true, screenshotFailures: false, instances }, skipped };
}
