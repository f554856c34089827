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
        },
      },
      {
        ...chromiumProject,
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.{ts,tsx}'],
          testTimeout: 30_000,
          browser: browsers.browser,
        },
      },
    ],
  },
});
