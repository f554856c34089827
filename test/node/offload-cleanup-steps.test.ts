// O7's cost: after a summary, the cleanup runs at every model step, but asks the store only while a
// covered message names a result that may still be live; and a new turn asks again, since an output
// Block may have brought back what an earlier drop removed.
import { describe, expect, it, vi } from 'vitest';
import { block, type Middleware } from '../../lib/runtime/middleware.js';
import { MemoryOffloadStore } from '../../lib/store/memory-store.js';
import { scriptedModel } from '../../lib/testing.js';
import { calls, fakeSummarization, offloadAgent, reply, toolMessagesOf } from './offload-harness.js';
import { cleanupAgent, type StackOrder, toolCall } from './summarization-fixtures.js';

describe.each<StackOrder>(['offload-first', 'summarization-first'])('O7 cleanup cost with the stack %s', (order) => {
  it('lists the store at most twice over 12 steps after the summary that covers a stored result', async () => {
    const store = new MemoryOffloadStore();
    const notes = Array.from({ length: 12 }, (_, i) => toolCall('note', { text: `note ${i}` }));
    const { agent } = cleanupAgent(store, order, [toolCall('fetch_page', { page: 1 }), ...notes, { content: 'done' }]);
    const list = vi.spyOn(store, 'list');

    const result = await agent.run('fetch page 1', { threadId: 't1' });

    expect(result.status).toBe('completed');
    // The summary covered the stored result and the cleanup dropped it ...
    expect(await store.evictions('t1')).toEqual([expect.objectContaining({ reason: 'summarized' })]);
    // ... asking the store once to find it live and once to see it gone, not at every later step
    // (a list of named keys is the context budget looking up a preview it has not seen, C1).
    const listsOfThread = list.mock.calls.filter(([threadId, options]) => threadId === 't1' && !options?.keys);
    expect(listsOfThread.length).toBeGreaterThanOrEqual(1);
    expect(listsOfThread.length).toBeLessThanOrEqual(2);
  });
});

describe('O7 cleanup across turns', () => {
  it('drops again in the next turn what an output Block brought back', async () => {
    let blockNext = false;
    const blocker: Middleware = {
      name: 'Blocker',
      afterAgent: () => (blockNext ? block('not this answer') : undefined),
    };
    // Every tool message so far is covered by the summary written at the end of each turn.
    const summarization = fakeSummarization((messages) => toolMessagesOf(messages).map((m) => m.id));
    const model = scriptedModel([
      calls(['emit', { lines: 100, tag: 'first' }]),
      reply('turn 1'),
      calls(['emit', { text: 'small' }]),
      reply('turn 2'),
      calls(['emit', { text: 'small' }]),
      reply('turn 3'),
    ]);
    const { agent, store } = offloadAgent(model, { outer: [blocker, summarization] });

    await agent.run('one', { threadId: 'a' });
    const [stored] = await store.list('a');
    expect(stored).toBeDefined();

    blockNext = true;
    const second = await agent.run('two', { threadId: 'a' });
    expect(second.status).toBe('blocked');
    expect(second.events.filter((e) => e.type === 'summarized-drop')).toHaveLength(1);
    // The Block undid the drop: the result is live again, and the summary still covers it.
    expect((await store.list('a')).map((entry) => entry.key)).toEqual([stored!.key]);

    blockNext = false;
    const third = await agent.run('three', { threadId: 'a' });
    expect(third.status).toBe('completed');
    expect(third.events.filter((e) => e.type === 'summarized-drop')).toEqual([
      expect.objectContaining({ keys: [stored!.key] }),
    ]);
    expect(await store.list('a')).toEqual([]);
  });
});
