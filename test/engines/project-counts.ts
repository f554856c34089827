import type { Reporter, TestModule } from 'vitest/node';

/**
 * Prints, after vitest's summary, one line of counts per project ("project browser (firefox): 130
 * passed, 0 failed, 2 skipped, 22 files"), so a run in three engines shows what each engine ran,
 * then the engines the run left out. A file that failed to load counts as one failed test.
 */
export class ProjectCounts implements Reporter {
  /** `skipped`: the browser engines this run leaves out, each with why (printed after the counts). */
  constructor(private readonly skipped: readonly string[] = []) {}

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const counts = new Map<string, { passed: number; failed: number; skipped: number; files: number }>();
    for (const module of testModules) {
      const name = module.project.name || 'default';
      const count = counts.get(name) ?? { passed: 0, failed: 0, skipped: 0, files: 0 };
      counts.set(name, count);
      count.files++;
      let tests = 0;
      for (const test of module.children.allTests()) {
        tests++;
        const state = test.result().state;
        if (state === 'passed') count.passed++;
        else if (state === 'failed') count.failed++;
        else count.skipped++;
      }
      if (tests === 0 && module.state() === 'failed') count.failed++;
    }
    const lines = [...counts].sort(([a], [b]) => a.localeCompare(b));
    for (const [name, { passed, failed, skipped, files }] of lines) {
      console.log(`project ${name}: ${passed} passed, ${failed} failed, ${skipped} skipped, ${files} files`);
    }
    for (const engine of this.skipped) console.log(`engine skipped: ${engine}`);
  }
}
