// O7: with Summarization in the stack, stored results named in a covered tool message are dropped
// (reason 'summarized') at the next model step, in either stack order; the bound never depends on it.
import { describe, expect, it } from 'vitest';
import { ToolOutputOffload } from '../../lib/offload/tool-output-offload.js';
import type { ModelReply } from '../../lib/runtime/model.js';
import { joinText } from '../../lib/shared/content.js';
import { utf8Bytes } from '../../lib/shared/text.js';
import { MemoryOffloadStore } from '../../lib/store/memory-store.js';
import type { SummarizationEvent } from '../../lib/summarization/summarization.js';
import type { ScriptedStep } from '../../lib/testing.js';
import { cleanupAgent, cleanupScenario, pageText, type StackOrder, toolCall } from './summarization-fixtures.js';

const orders: StackOrder[] = ['offload-first', 'summarization-first'];

describe.each(orders)('O7 cleanup with the stack %s', (order) => {
  it('drops a result whose tool message a summary covers, at the next model step', async () => {
    const store = new MemoryOffloadStore();
    const seen = await cleanupScenario(store, order);
    expect(seen.result.status).toBe('completed');
    expect(seen.key).not.toBe('');
    // Still live when the model was called at the step whose summary covered it.
    expect(seen.liveAtStep3).toEqual([seen.key]);
    expect(seen.live).toEqual([]);
    expect(seen.evictions).toEqual([
      expect.objectContaining({ key: seen.key, path: `/large_tool_results/${seen.key}`, reason: 'summarized' }),
    ]);
    expect(seen.evictions[0]!.bytes).toBe(utf8Bytes(pageText(1)));
    expect(seen.readBack.isError).toBe(true);
    expect(joinText(seen.readBack.content)).toContain(`/large_tool_results/${seen.key} was evicted`);
    expect(joinText(seen.readBack.content)).toContain('summary');
    expect(await store.totalBytes('t1')).toBe(0);
  });

  it('keeps the thread history whole: the covered tool message and its preview are still there', async () => {
    const seen = await cleanupScenario(new MemoryOffloadStore(), order);
    const roles = seen.history.map((m) => (m.role === 'tool' ? `tool ${m.toolName}` : m.role));
    expect(roles).toEqual([
      'user',
      'assistant',
      'tool fetch_page',
      'assistant',
      'tool note',
      'assistant',
      'tool note',
      'assistant',
      'tool read_file',
      'assistant',
    ]);
    expect(joinText(seen.history[2]!.content)).toContain(`/large_tool_results/${seen.key}`);
  });

  it('leaves alone a covered path that another thread stored', async () => {
    const store = new MemoryOffloadStore();
    const other = cleanupAgent(store, order, [toolCall('fetch_page', { page: 9 }), { content: 'ok' }]);
    await other.agent.run('fetch page 9', { threadId: 'other' });
    const [foreign] = await store.list('other');
    const foreignPath = `${ToolOutputOffload.mount}${foreign!.key}`;

    // Thread t1 stores its own result and, in the same step, gets a tool message naming the other thread's path.
    const { agent } = cleanupAgent(store, order, [
      {
        content: '',
        toolCalls: [
          { id: 'c1', name: 'fetch_page', args: { page: 1 } },
          { id: 'c2', name: 'note', args: { text: `see ${foreignPath} ${'x'.repeat(400)}` } },
        ],
      },
      toolCall('note', { text: 'one' }),
      toolCall('note', { text: 'two' }),
      toolCall('note', { text: 'three' }),
      { content: 'done' },
    ]);
    const result = await agent.run('go', { threadId: 't1' });
    expect(result.status).toBe('completed');
    const state = (await agent.state('t1')).summarization as { coveredMessageIds: string[] };
    const history = await agent.messages('t1');
    const noteMessage = history.find((m) => m.role === 'tool' && joinText(m.content).includes(foreignPath))!;
    expect(state.coveredMessageIds).toContain(noteMessage.id);
    // t1's own covered result went; the other thread's entry, named in the same covered step, stayed.
    expect(await store.evictions('t1')).toEqual([expect.objectContaining({ threadId: 't1', reason: 'summarized' })]);
    expect(await store.list('t1')).toEqual([]);
    expect((await store.list('other')).map((e) => e.key)).toEqual([foreign!.key]);
    expect(await store.evictions('other')).toEqual([]);
    expect(await other.offload.backend('other').read(`/${foreign!.key}`)).toBe(pageText(9));
  });
});

describe('O7 without Summarization', () => {
  it('drops nothing: the result stays readable', async () => {
    const store = new MemoryOffloadStore();
    const seen = await cleanupScenario(store, 'offload-only');
    expect(seen.result.status).toBe('completed');
    expect(seen.live).toEqual([seen.key]);
    expect(seen.evictions).toEqual([]);
    expect(seen.readBack.isError).toBe(false);
    expect(joinText(seen.readBack.content)).toContain('page 1 line 0');
  });
});

describe.each<StackOrder>(['offload-only', ...orders])('O3 bound with the stack %s', (order) => {
  it('keeps every thread total within maxTotalBytes after every update, dropping the oldest', async () => {
    const maxTotalBytes = 40_000; // two pages of ~16 KB fit, three do not
    const store = new MemoryOffloadStore();
    const totals: number[] = [];
    store.subscribe((event) => {
      if (event.type === 'stored') totals.push(event.totalBytes);
    });
    const atSteps: number[] = [];
    const step =
      (reply: ModelReply): ScriptedStep =>
      async () => {
        atSteps.push(await store.totalBytes('t1'));
        return reply;
      };
    const events: SummarizationEvent[] = [];
    const { agent } = cleanupAgent(
      store,
      order,
      [1, 2, 3, 4, 5].map((page) => step(toolCall('fetch_page', { page }))).concat(step({ content: 'done' })),
      { maxTotalBytes, events },
    );
    const result = await agent.run('fetch five pages', { threadId: 't1' });
    expect(result.status).toBe('completed');
    expect(totals).toHaveLength(5);
    for (const total of [...totals, ...atSteps]) expect(total).toBeLessThanOrEqual(maxTotalBytes);
    const live = await store.list('t1');
    expect(await store.totalBytes('t1')).toBe(live.reduce((sum, e) => sum + e.bytes, 0));
    expect(await store.totalBytes('t1')).toBeLessThanOrEqual(maxTotalBytes);
    // The newest page is always kept; the first ones went for the bound (or, with a summary, for it).
    expect(live.at(-1)!.bytes).toBe(utf8Bytes(pageText(5)));
    const evictions = await store.evictions('t1');
    expect(evictions.length).toBe(5 - live.length);
    expect(evictions.some((e) => e.reason === 'bound')).toBe(true);
    if (order === 'offload-only') expect(events).toEqual([]);
    else expect(events.some((e) => e.type === 'summarized')).toBe(true);
  });
});
