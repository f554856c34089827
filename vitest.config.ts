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
          // Deadlines are for hangs, not speed (timing goals live in the bench): CI machines are busy,
          // and a CPU-bound property test of 10 s took 122 s beside two other CI runs.
          testTimeout: 600_000,
          hookTimeout: 300_000,
          expect: { poll: { timeout: 120_000 } },
        },
      },
      {
        ...chromiumProject,
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.{ts,tsx}'],
          testTimeout: 300_000,
          hookTimeout: 300_000,
          expect: { poll: { timeout: 120_000 } },
          browser: browsers.browser,
        },
      },
    ],
  },
});
