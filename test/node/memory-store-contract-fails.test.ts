import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startVitest } from 'vitest/node';

/**
 * `storeContract` is worth running only if it fails a store that breaks a rule: here a store that
 * keeps no bound (its commits pass the inner store a bound nothing reaches), one that reports the
 * latest writer's bound instead of the smallest, one that shows a staged result before its commit, and
 * one whose clearings outlive a Block of their turn (C7), and one that numbers a request outside its
 * atomic unit (two calls at once get one step), each run by a vitest of its own.
 */
const root = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'store-contract-fails-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The names of the tests that failed when the contract ran against the store `make` builds. */
async function failedTests(name: string, make: string): Promise<string[]> {
  const file = join(dir, `${name}.test.ts`);
  writeFileSync(
    file,
    `import { MemoryOffloadStore } from '${join(root, 'lib', 'index.ts')}';
import { storeContract } from '${join(root, 'lib', 'testing.ts')}';
storeContract(() => { ${make} }, { name: '${name}' });
`,
  );
  const vitest = await startVitest('test', [file], {
    root: dir,
    config: false,
    watch: false,
    reporters: [{}],
    silent: true,
    // The contract's own tests fail only by its assertions: vitest's 5 s default is a deadline a
    // busy machine misses (three CI runs at once), which would add failures no rule explains.
    testTimeout: 600_000,
    hookTimeout: 600_000,
  });
  try {
    return vitest.state
      .getFiles()
      .flatMap((task) => [...allTests(task)])
      .filter((test) => test.result?.state === 'fail')
      .map((test) => test.name);
  } finally {
    await vitest.close();
  }
}

type Task = { type: string; name: string; tasks?: Task[]; result?: { state?: string } };
function* allTests(task: Task): Generator<Task> {
  if (task.type === 'test') yield task;
  for (const child of task.tasks ?? []) yield* allTests(child);
}

describe('storeContract fails a store that breaks a rule', () => {
  it('a store that keeps no bound fails the bound tests', { timeout: 600_000 }, async () => {
    const failed = await failedTests(
      'unbounded',
      `const store = new MemoryOffloadStore();
      const apply = store.apply.bind(store);
      store.apply = (change) => apply(change.type === 'commit' ? { ...change, maxTotalBytes: 1e9 } : change);
      return store;`,
    );
    expect(failed).toContain(
      'evicts the oldest until the thread fits, logs why, and says so when an evicted path is read',
    );
    expect(failed).toContain(
      'fits a commit that brings the total to exactly maxTotalBytes without evicting; one byte over evicts one',
    );
  });

  it("a store that reports the latest writer's bound, not the smallest, fails the bound test", {
    timeout: 600_000,
  }, async () => {
    const failed = await failedTests(
      'latest-bound',
      `const store = new MemoryOffloadStore();
      const latest = new Map();
      const apply = store.apply.bind(store);
      store.apply = (change) => {
        if (change.type === 'commit') latest.set(change.threadId, change.maxTotalBytes);
        return apply(change);
      };
      store.bound = async (threadId) => latest.get(threadId);
      return store;`,
    );
    expect(failed).toEqual([
      'reports the bound a thread is held to, where it has bound(): the smallest of its writers, also in its events',
    ]);
  });

  it('a store that lists a staged result before its commit fails', { timeout: 600_000 }, async () => {
    const failed = await failedTests(
      'eager',
      `const store = new MemoryOffloadStore();
      const stage = store.stage.bind(store);
      store.stage = async (result) => {
        await stage(result);
        await store.apply({ type: 'commit', threadId: result.threadId, key: result.key, turnId: result.turnId, maxTotalBytes: 1e9 });
      };
      return store;`,
    );
    expect(failed).toContain('keeps a staged result out of sight until it is committed');
  });

  it('a store whose clearings a Block does not take back (C7) fails the Block test', { timeout: 600_000 }, async () => {
    const failed = await failedTests(
      'clearings-outlive-block',
      `const store = new MemoryOffloadStore();
      const recordRequest = store.recordRequest.bind(store);
      // A turn is dropped: nothing ties the clearings to it.
      store.recordRequest = (change) =>
        recordRequest(typeof change?.turnId === 'string' ? { ...change, turnId: undefined } : change);
      return store;`,
    );
    expect(failed).toEqual([
      'restoreTurn takes back the clearings of its turn (C7) and what it stored for them; settle keeps them',
    ]);
  });

  it('a store that numbers a request outside its atomic unit fails the concurrency test', {
    timeout: 600_000,
  }, async () => {
    const failed = await failedTests(
      'racy-steps',
      `const store = new MemoryOffloadStore();
      const counts = new Map();
      const recordRequest = store.recordRequest.bind(store);
      const clearThread = store.clearThread.bind(store);
      // Its own step counter, read before an await and written after it: passes every call made alone.
      store.recordRequest = async (change) => {
        const step = (counts.get(change?.threadId) ?? 0) + 1;
        const recorded = await recordRequest(change);
        counts.set(change.threadId, step);
        return { ...recorded, step };
      };
      store.clearThread = async (threadId) => {
        counts.delete(threadId);
        return clearThread(threadId);
      };
      return store;`,
    );
    expect(failed).toEqual([
      'numbers concurrent recordRequest calls apart and keeps every record and the first clearing (C4)',
    ]);
  });
});
