import { describe, expect, it } from 'vitest';
import { MemoryOffloadStore } from '../../lib/store/memory-store.js';
import { scriptedModel } from '../../lib/testing.js';
import { runTwoAgents } from './fixtures/two-agents.js';
import { calls, offloadAgent, reply } from './offload-harness.js';

describe('two agents on one thread sharing a store (S3, R9, O8)', () => {
  it("a second agent's turn leaves a turn in flight alone: its path reads back", async () => {
    const { statusA, statusB, readByA, entries } = await runTwoAgents(new MemoryOffloadStore());
    expect([statusA, statusB]).toEqual(['completed', 'completed']);
    expect(readByA.isError).toBe(false);
    expect((readByA.content[0] as { text: string }).text).toContain('mine 50');
    expect(entries.map((e) => e.toolName)).toEqual(['emit', 'emit']);
  });
});

describe('one bound per thread', () => {
  it('two agents bounded at 1 MB and 3 MB keep the thread within 1 MB', async () => {
    const store = new MemoryOffloadStore();
    const mb = 1_000_000;
    // Each result is about 300 KB (3,700 lines of 81 bytes).
    const emits = (tag: string) =>
      [1, 2, 3].map((n): [string, unknown] => ['emit', { lines: 3700, tag: `${tag}${n}` }]);
    const small = offloadAgent(scriptedModel([calls(...emits('s')), reply()]), {
      offload: { thresholdTokens: 1000, maxTotalBytes: mb, store },
    });
    const large = offloadAgent(scriptedModel([calls(...emits('a')), calls(...emits('b')), reply()]), {
      offload: { thresholdTokens: 1000, maxTotalBytes: 3 * mb, store },
    });
    expect((await small.agent.run('go', { threadId: 't' })).status).toBe('completed');
    const totals: number[] = [];
    store.subscribe((event) => {
      if ('totalBytes' in event) totals.push(event.totalBytes);
    });
    expect((await large.agent.run('go', { threadId: 't' })).status).toBe('completed');
    expect(totals.length).toBeGreaterThan(6);
    expect(Math.max(...totals)).toBeLessThanOrEqual(mb);
    const entries = await store.list('t');
    expect(entries.reduce((sum, entry) => sum + entry.bytes, 0)).toBeLessThanOrEqual(mb);
    // The large agent's own results are what is left: the bound evicted the oldest first.
    expect(entries.length).toBe(3);
  });
});
