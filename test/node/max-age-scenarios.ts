// The age limit (maxAgeMs) end to end (agent or offloadResult, offload, store) against any store
// that reports what it holds: the memory store in Node and in the browsers, IndexedDB in the
// browsers. The clock is vitest's fake Date (the offload and the stores read Date.now()), moved
// by the test or by a tool; never a timer. Uses no Node API.
import { describe, expect, it, vi } from 'vitest';
import { ToolOutputOffload } from '../../lib/offload/tool-output-offload.js';
import { block, type Middleware } from '../../lib/runtime/middleware.js';
import type { ModelRequest } from '../../lib/runtime/model.js';
import { tool } from '../../lib/runtime/tool.js';
import { joinText } from '../../lib/shared/content.js';
import { utf8Bytes } from '../../lib/shared/text.js';
import type { StoreChange } from '../../lib/store/offload-store.js';
import { scriptedModel } from '../../lib/testing.js';
import { calls, linesOf, offloadAgent, pathIn, reply, toolMessagesOf } from './offload-harness.js';
import type { HoldingStore, TurnEndStores } from './turn-end-scenarios.js';

const day = 24 * 60 * 60 * 1000;
const size = utf8Bytes(linesOf(100));
/** Room for two results: a third evicts the oldest for the bound. */
const maxTotalBytes = 2 * size + 100;
const emit = (tag: string): [string, unknown] => ['emit', { lines: 100, tag }];

/** A tool that moves the fake clock on by `ms` (args.ms): time passes in the middle of a turn. */
const waitTool = tool<{ ms: number }>({
  name: 'wait',
  description: 'Lets time pass.',
  parameters: { type: 'object', properties: { ms: { type: 'integer' } }, required: ['ms'] },
  execute: ({ ms }) => {
    vi.setSystemTime(Date.now() + ms);
    return 'waited';
  },
});

/** The store's changes as applied, to see which transaction expired what. */
function recordChanges(store: HoldingStore): StoreChange[] {
  const changes: StoreChange[] = [];
  const apply = store.apply.bind(store);
  store.apply = (change) => {
    changes.push(change);
    return apply(change);
  };
  return changes;
}

export function maxAgeScenarios(name: string, stores: TurnEndStores): void {
  describe(`${name}: maxAgeMs expires stored results`, () => {
    async function withStore(body: (store: HoldingStore) => Promise<void>) {
      const store = await stores.open();
      vi.useFakeTimers({ toFake: ['Date'] });
      try {
        await body(store);
      } finally {
        vi.useRealTimers();
        await stores.dispose(store);
      }
    }

    function agentOn(
      store: HoldingStore,
      script: Parameters<typeof scriptedModel>[0],
      maxAgeMs?: number,
      outer?: Middleware[],
    ) {
      return offloadAgent(scriptedModel(script), {
        offload: { thresholdTokens: 1000, maxTotalBytes, store, ...(maxAgeMs === undefined ? {} : { maxAgeMs }) },
        tools: [waitTool],
        outer,
      });
    }

    /** Live bytes match the entries listed, and nothing is held but them. */
    async function expectExactTotals(store: HoldingStore) {
      const entries = await store.list('t');
      const live = entries.reduce((sum, entry) => sum + entry.bytes, 0);
      expect(await store.totalBytes('t')).toBe(live);
      expect(await store.heldText('t')).toEqual({ live, undo: 0, staged: 0 });
      expect(live).toBeLessThanOrEqual(maxTotalBytes);
      return entries;
    }

    it('at the next turn, results older than maxAgeMs are evicted (reason expired), texts and all', () =>
      withStore(async (store) => {
        const { agent } = agentOn(store, [calls(emit('a'), emit('b')), reply(), reply(), reply()], day);
        await agent.run('first', { threadId: 't' });
        const stored = await store.list('t');
        expect(stored).toHaveLength(2);
        // Exactly a day old is not older than a day: kept.
        vi.setSystemTime(Date.now() + day);
        await agent.run('second', { threadId: 't' });
        expect(await store.list('t')).toHaveLength(2);
        vi.setSystemTime(Date.now() + 1);
        await agent.run('third', { threadId: 't' });
        expect(await store.list('t')).toEqual([]);
        const evictions = await store.evictions('t');
        expect(evictions.map((e) => [e.path, e.reason])).toEqual(stored.map((e) => [e.path, 'expired']));
        expect(evictions.every((e) => e.at === Date.now())).toBe(true);
        await expectExactTotals(store);
        expect(await store.totalBytes('t')).toBe(0);
        // The checkpoint's summary of the store follows.
        expect((await agent.state('t'))[ToolOutputOffload.key]).toMatchObject({ entries: 0, totalBytes: 0 });
      }));

    it('at the next update (a commit in the same turn), in the same transaction; the bound still holds', () =>
      withStore(async (store) => {
        const { agent } = agentOn(
          store,
          [
            calls(emit('a')),
            reply(),
            calls(emit('b')),
            calls(['wait', { ms: 12 * 60 * 60 * 1000 }]),
            calls(emit('c'), emit('d')),
            reply(),
          ],
          day,
        );
        await agent.run('first', { threadId: 't' });
        const [a] = await store.list('t');
        vi.setSystemTime(Date.now() + 13 * 60 * 60 * 1000);
        const changes = recordChanges(store);
        // At the turn's start a is 13 hours old: kept. Then b is stored, half a day passes (a is
        // 25 hours old), and c's commit expires a; d's evicts b for the bound.
        await agent.run('second', { threadId: 't' });
        expect(changes.some((change) => change.type === 'expire')).toBe(false);
        const evictions = await store.evictions('t');
        expect(evictions.map((e) => e.reason)).toEqual(['expired', 'bound']);
        expect(evictions[0]!.path).toBe(a!.path);
        const entries = await expectExactTotals(store);
        expect(entries.map((e) => [e.preview.includes('c 0 '), e.preview.includes('d 0 ')])).toEqual([
          [true, false],
          [false, true],
        ]);
      }));

    it('reading an expired result says it expired, with its path and when', () =>
      withStore(async (store) => {
        // The second turn reads the path its first tool result's header named.
        const readIt = (request: ModelRequest) =>
          calls(['read_file', { path: pathIn(joinText(toolMessagesOf(request.messages)[0]!.content)) }]);
        const { agent, offload } = agentOn(store, [calls(emit('a')), reply(), readIt, reply()], day);
        await agent.run('first', { threadId: 't' });
        const [entry] = await store.list('t');
        vi.setSystemTime(Date.now() + 2 * day);
        await agent.run('second', { threadId: 't' });
        const read = toolMessagesOf(await agent.messages('t')).at(-1)!;
        const text = joinText(read.content);
        expect(text).toContain(entry!.path);
        expect(text).toContain('expired');
        expect(text).toContain('maxAgeMs');
        expect(text).toContain(new Date(Date.now()).toISOString());
        await expect(offload.backend('t').read(`/${entry!.key}`)).rejects.toThrow(/expired/);
        await expect(store.read('t', entry!.key)).rejects.toMatchObject({ code: 'evicted' });
      }));

    it('a Block of the turn that expired results does not bring them back (their texts are deleted)', () =>
      withStore(async (store) => {
        let blocking = false;
        const check: Middleware = { name: 'check', afterAgent: () => (blocking ? block('no') : undefined) };
        const script = [calls(emit('a')), reply(), calls(['wait', { ms: 2 * day }]), calls(emit('b')), reply()];
        const { agent } = agentOn(store, script, day, [check]);
        await agent.run('first', { threadId: 't' });
        const [a] = await store.list('t');
        blocking = true;
        expect((await agent.run('second', { threadId: 't' })).status).toBe('blocked');
        expect(await store.list('t')).toEqual([]);
        expect((await store.evictions('t')).map((e) => e.reason)).toEqual(['expired', 'blocked']);
        await expect(store.read('t', a!.key)).rejects.toThrow(/expired/);
        await expectExactTotals(store);
      }));

    it('with maxAgeMs unset, nothing expires, however old', () =>
      withStore(async (store) => {
        const { agent } = agentOn(store, [calls(emit('a')), reply(), calls(emit('b')), reply()]);
        await agent.run('first', { threadId: 't' });
        vi.setSystemTime(Date.now() + 20 * 365 * day);
        await agent.run('second', { threadId: 't' });
        expect(await store.list('t')).toHaveLength(2);
        expect(await store.evictions('t')).toEqual([]);
      }));

    it('offloadResult: the next call on the thread expires, stored or not; a commit does it in its own transaction', () =>
      withStore(async (store) => {
        const { offload } = agentOn(store, [], day);
        const big = (tag: string) => linesOf(100, 80, tag);
        const first = await offload.offloadResult({ threadId: 't', callId: 'c1', toolName: 'emit', content: big('a') });
        expect(first.stored).toBe(true);
        vi.setSystemTime(Date.now() + day + 1);
        // A result kept whole is still an update of the thread.
        const small = await offload.offloadResult({ threadId: 't', callId: 'c2', toolName: 'emit', content: 'short' });
        expect(small.text).toBe('short');
        expect(await store.list('t')).toEqual([]);
        expect((await store.evictions('t')).map((e) => [e.path, e.reason])).toEqual([[first.path, 'expired']]);

        const second = await offload.offloadResult({
          threadId: 't',
          callId: 'c3',
          toolName: 'emit',
          content: big('b'),
        });
        vi.setSystemTime(Date.now() + day + 1);
        const changes = recordChanges(store);
        const third = await offload.offloadResult({ threadId: 't', callId: 'c4', toolName: 'emit', content: big('c') });
        expect(changes.map((change) => change.type)).toEqual(['commit']);
        expect((await store.evictions('t')).at(-1)).toMatchObject({ path: second.path, reason: 'expired' });
        expect((await store.list('t')).map((e) => e.path)).toEqual([third.path]);
        expect(await store.totalBytes('t')).toBe((await store.list('t'))[0]!.bytes);
        // Offered again once expired: the same replacement, nothing stored again.
        const again = await offload.offloadResult({ threadId: 't', callId: 'c3', toolName: 'emit', content: big('b') });
        expect(again).toMatchObject({ stored: false, path: second.path, text: second.text });
        await expect(offload.backend('t').read(second.path!.slice(ToolOutputOffload.mount.length - 1))).rejects.toThrow(
          /expired/,
        );
      }));
  });
}
