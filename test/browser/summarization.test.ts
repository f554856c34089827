// O7 in Chromium: Summarization + ToolOutputOffload over IndexedDB, in both stack orders.
import { afterEach, describe, expect, it } from 'vitest';
import { ToolOutputOffload } from '../../lib/offload/tool-output-offload.js';
import { IndexedDbCheckpointer } from '../../lib/runtime/indexeddb-checkpointer.js';
import { joinText } from '../../lib/shared/content.js';
import { IndexedDbOffloadStore } from '../../lib/store/indexeddb-store.js';
import { Summarization } from '../../lib/summarization/summarization.js';
import { cleanupScenario, type StackOrder } from '../node/summarization-fixtures.js';

const opened: Array<IndexedDbOffloadStore | IndexedDbCheckpointer> = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((db) => db.deleteDatabase()));
});

function databases() {
  const id = crypto.randomUUID();
  const store = new IndexedDbOffloadStore({ name: `summarization-${id}` });
  const checkpointer = new IndexedDbCheckpointer({ name: `summarization-checkpoints-${id}` });
  opened.push(store, checkpointer);
  return { store, checkpointer };
}

describe.each<StackOrder>(['offload-first', 'summarization-first'])('O7 over IndexedDB, stack %s', (order) => {
  it('drops the covered result at the next model step, for good, and keeps the history whole', async () => {
    const { store, checkpointer } = databases();
    const seen = await cleanupScenario(store, order, { checkpointer });
    expect(seen.result.status).toBe('completed');
    expect(seen.liveAtStep3).toEqual([seen.key]);
    expect(seen.live).toEqual([]);
    expect(seen.evictions).toEqual([expect.objectContaining({ key: seen.key, reason: 'summarized' })]);
    expect(seen.readBack.isError).toBe(true);
    expect(joinText(seen.readBack.content)).toContain(`/large_tool_results/${seen.key} was evicted`);
    expect(seen.history).toHaveLength(10);

    // A second connection (another tab, or the page reloaded) sees the same: the text is gone, the
    // checkpoint holds the summary and the whole history.
    const reopened = new IndexedDbOffloadStore({ name: store.name });
    try {
      await expect(new ToolOutputOffload({ store: reopened }).backend('t1').read(`/${seen.key}`)).rejects.toMatchObject(
        { code: 'evicted' },
      );
      expect(await reopened.totalBytes('t1')).toBe(0);
    } finally {
      await reopened.close();
    }
    const saved = (await checkpointer.load('t1')) as { messages: unknown[]; state: Record<string, unknown> };
    expect(saved.messages).toHaveLength(10);
    const summary = saved.state[Summarization.key] as { summary: string; coveredMessageIds: string[] };
    expect(summary.summary).toMatch(/^summary \d$/);
    expect(summary.coveredMessageIds).toContain(seen.history[2]!.id); // the stored result's tool message
  });
});
