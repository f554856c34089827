// Rules O1–O6 end to end: createAgent + scriptedModel + file tools through a CompositeBackend.
import { describe, expect, it } from 'vitest';
import { MemoryCheckpointer } from '../../lib/runtime/checkpoint.js';
import type { ModelRequest } from '../../lib/runtime/model.js';
import { estimateTokens, utf8Bytes } from '../../lib/shared/text.js';
import type { StoreEvent } from '../../lib/store/offload-store.js';
import { scriptedModel } from '../../lib/testing.js';
import { calls, lastToolText, linesOf, offloadAgent, pathIn, reply, toolMessagesOf } from './offload-harness.js';

describe('O1: a large Success is stored and the model sees a header and the first lines', () => {
  it('stores, previews, and reads back with read_file offset/limit', async () => {
    let shown = '';
    const model = scriptedModel([
      calls(['emit', { lines: 100 }]),
      (request) => {
        shown = lastToolText(request);
        return calls(['read_file', { path: pathIn(shown), offset: 10, limit: 3 }]);
      },
      reply(),
    ]);
    const { agent, store } = offloadAgent(model);
    const result = await agent.run('go', { threadId: 'a' });
    expect(result.status).toBe('completed');

    const [entry] = await store.list('a');
    expect(shown).toContain(`Path: /large_tool_results/${entry!.key}`);
    expect(shown).toContain('First 10 of 100 lines:');
    expect(shown).toContain(linesOf(10));
    expect(estimateTokens(shown)).toBeLessThanOrEqual(1000);
    expect(entry!.preview).toBe(shown); // the entry records exactly what the model saw
    expect(await store.read('a', entry!.key)).toBe(linesOf(100));
    expect(await agent.state('a')).toMatchObject({
      toolOutputOffload: { entries: 1, totalBytes: utf8Bytes(linesOf(100)) },
    });

    const page = lastToolText(model.requests[2]!);
    expect(page).toContain(`    11\t${linesOf(11).split('\n')[10]}`);
    expect(page).toContain(
      `[lines 11-13 of 100; continue with read_file {"path":"/large_tool_results/${entry!.key}","offset":13,"limit":450}]`,
    );
  });
});

describe('O2: identity is the idempotency key', () => {
  it('a reused provider call id cannot make an older path name newer content', async () => {
    const model = scriptedModel([
      calls(['emit', { lines: 100, tag: 'first' }, 'toolu_same']),
      calls(['emit', { lines: 100, tag: 'second' }, 'toolu_same']),
      (request) => calls(['read_file', { path: pathIn(lastToolText(request, 2)), limit: 1 }]),
      reply(),
    ]);
    const { agent } = offloadAgent(model);
    await agent.run('go', { threadId: 'a' });
    const first = pathIn(lastToolText(model.requests[1]!));
    const second = pathIn(lastToolText(model.requests[2]!));
    expect(first).not.toBe(second);
    expect(first).not.toContain('toolu_same');
    expect(lastToolText(model.requests[3]!)).toContain('first 0 ');
  });

  it('recover reruns an unfinished call with the same key, which replaces its own entry', async () => {
    const checkpointer = new MemoryCheckpointer();
    let crashed = false;
    const dying = {
      load: (id: string) => checkpointer.load(id),
      save: async (id: string, checkpoint: unknown) => {
        if (crashed) throw new Error('the tab closed');
        await checkpointer.save(id, checkpoint);
      },
    };
    const crashAfterStore = {
      name: 'CrashAfterStore',
      async wrapToolCall(request: never, next: (r: never) => Promise<never>) {
        const outcome = await next(request);
        crashed = true; // the result is committed next; no checkpoint after that survives
        return outcome;
      },
    };
    const first = offloadAgent(scriptedModel([calls(['emit', { lines: 100, tag: 'run1' }])]), {
      outer: [crashAfterStore],
      agent: { checkpointer: dying },
    });
    expect((await first.agent.run('go', { threadId: 'a' })).status).toBe('failed');
    const [stored] = await first.store.list('a');
    expect(await first.store.read('a', stored!.key)).toContain('run1 0');

    const second = offloadAgent(scriptedModel([reply()]), {
      offload: { thresholdTokens: 1000, store: first.store },
      agent: { checkpointer },
    });
    expect((await second.agent.recover('a')).status).toBe('completed');
    const entries = await first.store.list('a');
    expect(entries.map((e) => e.key)).toEqual([stored!.key]);
    expect((await first.store.evictions('a')).map((e) => [e.key, e.reason])).toEqual([[stored!.key, 'replaced']]);
  });
});

describe('O3: the bound holds after every applied update, also in a parallel batch', () => {
  it('evicts the oldest until the thread fits, in commit order', async () => {
    const size = utf8Bytes(linesOf(100));
    const events: Exclude<StoreEvent, { type: 'request' | 'thread-cleared' }>[] = [];
    const model = scriptedModel([
      calls(...[0, 1, 2, 3].map((i) => ['emit', { lines: 100, tag: `p${i}` }] as [string, unknown])),
      reply(),
    ]);
    const { agent, store } = offloadAgent(model, { offload: { maxTotalBytes: 2 * size + 10, maxResultBytes: size } });
    store.subscribe((event) => {
      if ('key' in event) events.push(event);
    });
    await agent.run('go', { threadId: 'a' });
    const entries = await store.list('a');
    expect(entries).toHaveLength(2);
    expect(await store.totalBytes('a')).toBe(2 * size);
    for (const event of events) expect(event.totalBytes).toBeLessThanOrEqual(2 * size + 10);
    const evicted = await store.evictions('a');
    expect(evicted.map((e) => e.reason)).toEqual(['bound', 'bound']);
    // The evicted are the two committed first: every eviction is older than every survivor.
    const committed = events.filter((e) => e.type === 'stored').map((e) => e.key);
    expect(evicted.map((e) => e.key)).toEqual(committed.slice(0, 2));
    expect(entries.map((e) => e.key)).toEqual(committed.slice(2));
  });
});

describe('O4: evicted and missing paths are tool errors that say so', () => {
  it('answers "evicted" with the path and why, and "not found", without ending the run', async () => {
    const size = utf8Bytes(linesOf(100));
    let evictedPath = '';
    const model = scriptedModel([
      calls(['emit', { lines: 100, tag: 'old' }]),
      (request) => {
        evictedPath = pathIn(lastToolText(request));
        return calls(['emit', { lines: 100, tag: 'new' }]);
      },
      () => calls(['read_file', { path: evictedPath }], ['read_file', { path: '/large_tool_results/never_was' }]),
      reply(),
    ]);
    const { agent } = offloadAgent(model, { offload: { maxTotalBytes: size + 10, maxResultBytes: size } });
    expect((await agent.run('go', { threadId: 'a' })).status).toBe('completed');
    const [evicted, missing] = toolMessagesOf(model.requests[3]!.messages).slice(-2);
    expect(evicted!.isError).toBe(true);
    expect(evicted!.content[0]).toEqual({
      type: 'text',
      text: `${evictedPath} was evicted to keep the thread's stored results within maxTotalBytes (the oldest results go first).`,
    });
    expect(missing!.isError).toBe(true);
    expect((missing!.content[0] as { text: string }).text).toContain('/large_tool_results/never_was not found');
  });
});

describe('O5: only text is offloaded', () => {
  it('passes media parts on after the preview', async () => {
    const model = scriptedModel([calls(['emit', { lines: 100, image: true }]), reply()]);
    const { agent } = offloadAgent(model);
    await agent.run('go', { threadId: 'a' });
    const [message] = toolMessagesOf(model.requests[1]!.messages);
    expect(message!.content).toHaveLength(2);
    expect(message!.content[0]!.type).toBe('text');
    expect(message!.content[1]).toEqual({ type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' });
  });
});

describe('O6: the mount is read-only and per thread', () => {
  it('serves ls, grep and glob; refuses write_file and edit_file; hides other threads', async () => {
    const texts = (request: ModelRequest, n: number) =>
      toolMessagesOf(request.messages)
        .slice(-n)
        .map((m) => [(m.content[0] as { text: string }).text, m.isError] as const);
    let path = '';
    const model = scriptedModel([
      calls(['emit', { lines: 100, tag: 'zebra' }]),
      (request) => {
        path = pathIn(lastToolText(request));
        return calls(
          ['ls', { path: '/large_tool_results/' }],
          ['grep', { pattern: 'zebra 42 ', path: '/large_tool_results' }],
          ['glob', { pattern: '**', path: '/large_tool_results' }],
          ['write_file', { path, content: 'x' }],
          ['edit_file', { path, old_text: 'zebra', new_text: 'horse' }],
        );
      },
      reply(),
    ]);
    const { agent, store } = offloadAgent(model);
    await agent.run('go', { threadId: 'a' });
    const [ls, grep, glob, write, edit] = texts(model.requests[2]!, 5);
    expect(ls).toEqual([expect.stringContaining(path), false]);
    expect(grep![0]).toContain(`${path}:43:`);
    expect(glob![0]).toContain(path);
    expect(write).toEqual([expect.stringContaining('is read-only'), true]);
    expect(edit).toEqual([expect.stringContaining('is read-only'), true]);
    expect(await store.read('a', path.split('/').at(-1)!)).toBe(linesOf(100, 80, 'zebra'));

    const other = scriptedModel([calls(['read_file', { path }], ['ls', { path: '/large_tool_results' }]), reply()]);
    const { agent: second } = offloadAgent(other, { offload: { thresholdTokens: 1000, store } });
    await second.run('peek', { threadId: 'b' });
    const [read, list] = texts(other.requests[1]!, 2);
    expect(read).toEqual([expect.stringContaining('not found'), true]);
    expect(list![0]).not.toContain(path);
  });
});
