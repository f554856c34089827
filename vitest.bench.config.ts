import { defineConfig } from 'vitest/config';
import { chromiumBrowser, chromiumProject } from './vitest.browser.js';

/**
 * Scripts that need a real browser but are not tests: `npm run bench` (bench/*.bench.ts measure and
 * record their figures) and `npm run docs:screenshots` (docs/*.shots.tsx).
 */
export default defineConfig({
  ...chromiumProject,
  server: {
    ...chromiumProject.server,
    // Cross-origin isolated, so performance.now() counts in 5 µs steps instead of 100 µs: the store's
    // figures are about a millisecond (https://w3c.github.io/hr-time/#dfn-coarsen-time).
    headers: { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' },
  },
  test: {
    name: 'bench',
    include: ['bench/**/*.bench.ts', 'docs/**/*.shots.tsx'],
    testTimeout: 600_000,
    fileParallelism: false,
    browser: chromiumBrowser,
  },
});
