import preact from '@preact/preset-vite';
import { playwright } from '@vitest/browser-playwright';
import { defineConfig } from 'vitest/config';
// @ts-expect-error plain ESM helper shared with the npm scripts
import { chromiumArgs, findChromium } from './scripts/browser.mjs';

const executablePath: string | undefined = await findChromium();

/**
 * Scripts that need a real browser but are not tests: `npm run bench` (bench/*.bench.ts measure and
 * record their figures) and `npm run docs:screenshots` (docs/*.shots.tsx).
 */
export default defineConfig({
  plugins: [preact()],
  server: { host: '127.0.0.1' },
  test: {
    name: 'bench',
    include: ['bench/**/*.bench.ts', 'docs/**/*.shots.tsx'],
    testTimeout: 600_000,
    fileParallelism: false,
    browser: {
      enabled: true,
      headless: true,
      screenshotFailures: false,
      provider: playwright({ launchOptions: { executablePath, args: chromiumArgs } }),
      instances: [{ browser: 'chromium' }],
    },
  },
});
