import { describe, expect, it } from 'vitest';
import { MemoryOffloadStore } from '../../lib/store/memory-store.js';
import { runTwoAgents } from './fixtures/two-agents.js';

describe('two agents on one thread sharing a store (S3, R9, O8)', () => {
  it("a second agent's turn leaves a turn in flight alone: its path reads back", async () => {
    const { statusA, statusB, readByA, entries } = await runTwoAgents(new MemoryOffloadStore());
    expect([statusA, statusB]).toEqual(['completed', 'completed']);
    expect(readByA.isError).toBe(false);
    expect((readByA.content[0] as { text: string }).text).toContain('mine 50');
    expect(entries.map((e) => e.toolName)).toEqual(['emit', 'emit']);
  });
});
