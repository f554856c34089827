import { defineConfig } from 'vitest/config';
import { chromiumBrowser, chromiumProject } from './vitest.browser.js';

/**
 * Scripts that need a real browser but are not tests: `npm run bench` (bench/*.bench.ts measure and
 * record their figures) and `npm run docs:screenshots` (docs/*.shots.tsx).
 */
export default defineConfig({
  ...chromiumProject,
  test: {
    name: 'bench',
    include: ['bench/**/*.bench.ts', 'docs/**/*.shots.tsx'],
    testTimeout: 600_000,
    fileParallelism: false,
    browser: chromiumBrowser,
  },
});
