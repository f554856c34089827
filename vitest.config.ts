import preact from '@preact/preset-vite';
import { playwright } from '@vitest/browser-playwright';
import { defineConfig } from 'vitest/config';
// @ts-expect-error plain ESM helper shared with the npm scripts
import { chromiumArgs, findChromium } from './scripts/browser.mjs';

const executablePath: string | undefined = await findChromium();

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'node',
          environment: 'node',
          include: ['test/node/**/*.test.ts'],
        },
      },
      {
        plugins: [preact()],
        server: { host: '127.0.0.1' },
        // Pre-bundled up front: discovering them mid-run makes vite reload the page under a running test.
        optimizeDeps: {
          include: ['idb', '@cfworker/json-schema', '@tanstack/virtual-core', 'fast-check', 'preact', 'preact/hooks'],
        },
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.{ts,tsx}'],
          testTimeout: 30_000,
          browser: {
            enabled: true,
            headless: true,
            screenshotFailures: false,
            provider: playwright({ launchOptions: { executablePath, args: chromiumArgs } }),
            instances: [{ browser: 'chromium' }],
          },
        },
      },
    ],
  },
});
