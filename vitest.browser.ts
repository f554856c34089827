import preact from '@preact/preset-vite';
import { playwright } from '@vitest/browser-playwright';
// @ts-expect-error plain ESM helper shared with the npm scripts
import { chromiumArgs, findChromium } from './scripts/browser.mjs';

const executablePath: string | undefined = await findChromium();

/** What every vitest project that runs in headless Chromium shares: tests, benches and doc screenshots. */
export const chromiumProject = {
  plugins: [preact()],
  server: { host: '127.0.0.1' },
  // Pre-bundled up front: discovering them mid-run makes vite reload the page under a running test.
  optimizeDeps: {
    include: ['idb', '@cfworker/json-schema', '@tanstack/virtual-core', 'fast-check', 'preact', 'preact/hooks'],
  },
};

export const chromiumBrowser = {
  enabled: true,
  headless: true,
  screenshotFailures: false,
  provider: playwright({ launchOptions: { executablePath, args: chromiumArgs } }),
  instances: [{ browser: 'chromium' as const }],
};
