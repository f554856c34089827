import { defineConfig } from 'vitest/config';
import { chromiumBrowser, chromiumProject } from './vitest.browser.js';

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
        ...chromiumProject,
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.{ts,tsx}'],
          testTimeout: 30_000,
          browser: chromiumBrowser,
        },
      },
    ],
  },
});
