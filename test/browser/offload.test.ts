// The offload's key scenarios end to end in Chromium, on its default store: IndexedDB.
import { afterEach, describe, expect, it } from 'vitest';
import { ToolOutputOffload } from '../../lib/offload/tool-output-offload.js';
import { block, type Middleware } from '../../lib/runtime/middleware.js';
import { estimateTokens, utf8Bytes } from '../../lib/shared/text.js';
import { IndexedDbOffloadStore } from '../../lib/store/indexeddb-store.js';
import { scriptedModel } from '../../lib/testing.js';
import { runTwoAgents } from '../node/fixtures/two-agents.js';
import { calls, lastToolText, linesOf, offloadAgent, pathIn, reply, toolMessagesOf } from '../node/offload-harness.js';

const opened: IndexedDbOffloadStore[] = [];
function idbStore(): IndexedDbOffloadStore {
  const store = new IndexedDbOffloadStore({ name: `offload-e2e-${crypto.randomUUID()}` });
  opened.push(store);
  return store;
}
afterEach(async () => {
  for (const store of opened.splice(0)) await store.deleteDatabase();
});

const size = utf8Bytes(linesOf(100));

describe('ToolOutputOffload in Chromium with IndexedDB', () => {
  it('defaults to an IndexedDbOffloadStore where indexedDB exists', async () => {
    // The default database is the README examples' too (readme-*.test.ts): this test opens nothing in it.
    const offload = new ToolOutputOffload();
    expect(offload.store).toBeInstanceOf(IndexedDbOffloadStore);
    await offload.close();
  });

  it('stores a large result, previews it, and reads it back page by page (O1, O6)', async () => {
    const model = scriptedModel([
      calls(['emit', { lines: 100, image: true }]),
      (request) => calls(['read_file', { path: pathIn(lastToolText(request)), offset: 98, limit: 5 }]),
      reply(),
    ]);
    const { agent, store } = offloadAgent(model, { offload: { thresholdTokens: 1000, store: idbStore() } });
    expect((await agent.run('go', { threadId: 'a' })).status).toBe('completed');
    const [message] = toolMessagesOf(model.requests[1]!.messages);
    const shown = (message!.content[0] as { text: string }).text;
    expect(estimateTokens(shown)).toBeLessThanOrEqual(1000);
    expect(message!.content[1]).toMatchObject({ type: 'image' }); // O5
    const [entry] = await store.list('a');
    expect(entry!.preview).toBe(shown);
    expect(lastToolText(model.requests[2]!)).toBe(
      `    99\t${linesOf(100).split('\n')[98]}\n   100\t${linesOf(100).split('\n')[99]}`,
    );
  });

  it('keeps the bound under a parallel batch and says "evicted" for an evicted path (O3, O4)', async () => {
    let first = '';
    const model = scriptedModel([
      calls(...[0, 1, 2, 3].map((i) => ['emit', { lines: 100, tag: `p${i}` }] as [string, unknown])),
      (request) => {
        const paths = toolMessagesOf(request.messages).map((m) => pathIn((m.content[0] as { text: string }).text));
        first = paths[0]!;
        return calls(...paths.map((path) => ['read_file', { path, limit: 1 }] as [string, unknown]));
      },
      reply(),
    ]);
    const store = idbStore();
    const { agent } = offloadAgent(model, { offload: { thresholdTokens: 1000, store, maxTotalBytes: 2 * size } });
    await agent.run('go', { threadId: 'a' });
    expect(await store.totalBytes('a')).toBe(2 * size);
    expect((await store.list('a')).reduce((sum, e) => sum + e.bytes, 0)).toBe(2 * size);
    const reads = toolMessagesOf(model.requests[2]!.messages).slice(-4);
    expect(reads.filter((m) => m.isError)).toHaveLength(2);
    expect(reads.filter((m) => !m.isError)).toHaveLength(2);
    const evicted = reads.find((m) => m.isError && (m.content[0] as { text: string }).text.includes(first));
    expect((evicted?.content[0] as { text: string } | undefined)?.text).toMatch(/was evicted to keep the thread's/);
  });

  it('restores a blocked turn byte for byte (O8)', async () => {
    const keeper = `${'é😀€'.repeat(2000)}\n${linesOf(20)}`;
    const guard: Middleware = {
      name: 'OutputGuard',
      afterAgent: (output) => (JSON.stringify(output.content).includes('SECRET') ? block('leak') : undefined),
    };
    const model = scriptedModel([
      calls(['emit', { text: keeper }]),
      reply('fine'),
      calls(['emit', { lines: 100 }], ['emit', { lines: 100, tag: 'x' }]),
      reply('SECRET'),
    ]);
    const store = idbStore();
    const { agent } = offloadAgent(model, {
      outer: [guard],
      offload: { thresholdTokens: 1000, store, maxTotalBytes: utf8Bytes(keeper) + size },
    });
    await agent.run('one', { threadId: 'a' });
    const before = await store.list('a');
    expect((await agent.run('two', { threadId: 'a' })).status).toBe('blocked');
    expect(await store.list('a')).toEqual(before);
    expect(await store.read('a', before[0]!.key)).toBe(keeper);
    expect(await store.totalBytes('a')).toBe(utf8Bytes(keeper));
  });

  it('cuts the result with a note when IndexedDB is over quota, keeping what was stored (S3)', async () => {
    const model = scriptedModel([
      calls(['emit', { lines: 100, tag: 'kept' }]),
      calls(['emit', { lines: 100 }]),
      reply(),
    ]);
    const store = idbStore();
    const { agent } = offloadAgent(model, { offload: { thresholdTokens: 1000, store } });
    const original = IDBObjectStore.prototype.put;
    let full = false;
    IDBObjectStore.prototype.put = function (this: IDBObjectStore, ...args: [unknown, IDBValidKey?]) {
      if (full && this.name === 'chunks') throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
      return original.apply(this, args);
    };
    const stage = store.stage.bind(store);
    store.stage = async (result) => {
      full = result.text.startsWith('line 0');
      return stage(result);
    };
    try {
      expect((await agent.run('go', { threadId: 'a' })).status).toBe('completed');
    } finally {
      IDBObjectStore.prototype.put = original;
    }
    const shown = lastToolText(model.requests[2]!);
    expect(shown).toContain('It could not be stored (QuotaExceededError');
    expect(shown).not.toContain('/large_tool_results/');
    expect(estimateTokens(shown)).toBeLessThanOrEqual(1000);
    const entries = await store.list('a');
    expect(entries).toHaveLength(1);
    expect(await store.read('a', entries[0]!.key)).toContain('kept 0');
    expect((await store.failures('a')).map((f) => f.error)).toEqual([expect.stringContaining('QuotaExceededError')]);
  });

  it("a second agent's turn on the same thread leaves a turn in flight alone (S3, R9, O8)", async () => {
    const { statusA, statusB, readByA, entries } = await runTwoAgents(idbStore());
    expect([statusA, statusB]).toEqual(['completed', 'completed']);
    expect(readByA.isError).toBe(false);
    expect((readByA.content[0] as { text: string }).text).toContain('mine 50');
    expect(entries).toHaveLength(2);
  });
});
