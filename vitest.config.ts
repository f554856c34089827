import { defineConfig } from 'vitest/config';
import { ProjectCounts } from './test/engines/project-counts.js';
import { chromiumProject, testBrowsers } from './vitest.browser.js';

const browsers = await testBrowsers();

export default defineConfig({
  test: {
    reporters: ['default', new ProjectCounts(browsers.skipped)],
    projects: [
      {
        test: {
          name: 'node',
          environment: 'node',
          include: ['test/node/**/*.test.ts'],
          // Deadlines are for hangs, not speed (timing goals live in the bench): CI machines are busy.
          testTimeout: 120_000,
          hookTimeout: 120_000,
          expect: { poll: { timeout: 30_000 } },
        },
      },
      {
        ...chromiumProject,
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.{ts,tsx}'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          expect: { poll: { timeout: 30_000 } },
          browser: browsers.browser,
        },
      },
    ],
  },
});
