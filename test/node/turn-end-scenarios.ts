// A turn's end and an abort at each point of a tool call, run end to end (agent, offload, store)
// against any store that reports what it holds (heldText): the memory store in Node and Chromium,
// IndexedDB in Chromium. Every abort point is reached through a gate on a tool or a store method,
// never a timer. Uses no Node API.
import { describe, expect, it, vi } from 'vitest';
import type { OffloadMiddleware } from '../../lib/agent/offload-middleware.js';
import type { Message } from '../../lib/runtime/messages.js';
import { block, type Middleware } from '../../lib/runtime/middleware.js';
import type { ToolOutcome } from '../../lib/runtime/outcome.js';
import { tool } from '../../lib/runtime/tool.js';
import { joinText } from '../../lib/shared/content.js';
import { utf8Bytes } from '../../lib/shared/text.js';
import type { HeldText, WritableOffloadStore } from '../../lib/store/offload-store.js';
import { scriptedModel } from '../../lib/testing.js';
import { calls, linesOf, offloadAgent, reply } from './offload-harness.js';
import { type Deferred, deferred } from './runtime-fixtures.js';

export type HoldingStore = WritableOffloadStore & { heldText(threadId: string): Promise<HeldText> };

export interface TurnEndStores {
  open(): Promise<HoldingStore>;
  dispose(store: HoldingStore): Promise<void>;
}

/** One emitted result's stored bytes; the bound holds two of them, so a third evicts the oldest. */
const size = utf8Bytes(linesOf(100));
const maxTotalBytes = 2 * size + 100;
const emit = (tag: string): [string, unknown] => ['emit', { lines: 100, tag }];

/** Holds the first call of `store[method]` after its work is done, until released; later calls pass. */
function holdFirst(store: HoldingStore, method: 'stage' | 'apply') {
  const entered = deferred();
  const release = deferred();
  const original = store[method].bind(store) as (...args: unknown[]) => Promise<unknown>;
  let held = false;
  (store as unknown as Record<string, unknown>)[method] = async (...args: unknown[]) => {
    const result = await original(...args);
    if (held) return result;
    held = true;
    entered.resolve();
    await release.promise;
    return result;
  };
  return { entered: entered.promise, release: () => release.resolve() };
}

/** Every outcome the offload's wrapToolCall returns, also one the runtime no longer waits for. */
function watchOutcomes(middleware: OffloadMiddleware): Array<Deferred<ToolOutcome>> {
  const outcomes = [deferred<ToolOutcome>(), deferred<ToolOutcome>()];
  const wrap = middleware.wrapToolCall.bind(middleware);
  let seen = 0;
  middleware.wrapToolCall = async (...args) => {
    const outcome = await wrap(...args);
    outcomes[seen++]?.resolve(outcome);
    return outcome;
  };
  return outcomes;
}

/** Every path named in the thread's messages. */
function namedPaths(messages: readonly Message[]): Set<string> {
  const text = messages.map((m) => joinText(m.content)).join('\n');
  return new Set(text.match(/\/large_tool_results\/[A-Za-z0-9_-]+/g) ?? []);
}

export function turnEndScenarios(name: string, stores: TurnEndStores): void {
  describe(`${name}: a turn's end drops its undo copies; an abort leaves nothing behind`, () => {
    async function withStore(body: (store: HoldingStore) => Promise<void>) {
      const store = await stores.open();
      try {
        await body(store);
      } finally {
        await stores.dispose(store);
      }
    }

    function agentOn(store: HoldingStore, model: ReturnType<typeof scriptedModel>) {
      const slowResult = deferred<string>();
      const slowSignal = deferred<AbortSignal>();
      // A tool that returns only when the test says, ignoring its signal.
      const slow = tool({
        name: 'slow',
        description: 'Returns a large result when released.',
        parameters: { type: 'object' },
        execute: (_args, context) => {
          slowSignal.resolve(context.signal);
          return slowResult.promise;
        },
      });
      const { agent, offload, middleware } = offloadAgent(model, {
        offload: { thresholdTokens: 1000, maxTotalBytes, store },
        tools: [slow],
        ownMiddleware: true,
      });
      return { agent, offload, outcomes: watchOutcomes(middleware), slowResult, slowSignal: slowSignal.promise };
    }

    /** The store and the thread's checkpoint agree: nothing staged, no undo copy, every live entry named. */
    async function expectAgreement(store: HoldingStore, messages: readonly Message[], threadId = 't') {
      const held = await store.heldText(threadId);
      expect(held).toEqual({ live: held.live, undo: 0, staged: 0 });
      expect(held.live).toBeLessThanOrEqual(maxTotalBytes);
      const named = namedPaths(messages);
      for (const entry of await store.list(threadId)) expect(named).toContain(entry.path);
      return held;
    }

    it('after a completed turn no undo copy remains, though the turn evicted', () =>
      withStore(async (store) => {
        const model = scriptedModel([calls(emit('a'), emit('b')), calls(emit('c')), reply()]);
        const { agent } = agentOn(store, model);
        const result = await agent.run('go', { threadId: 't' });
        expect(result.status).toBe('completed');
        expect((await store.evictions('t')).map((e) => e.reason)).toEqual(['bound']);
        expect(await expectAgreement(store, result.messages)).toEqual({ live: 2 * size, undo: 0, staged: 0 });
      }));

    it('after a blocked turn, restored byte for byte, no undo copy remains', () =>
      withStore(async (store) => {
        let blocking = false;
        const check: Middleware = { name: 'check', afterAgent: () => (blocking ? block('no') : undefined) };
        const model = scriptedModel([calls(emit('a'), emit('b')), reply(), calls(emit('c')), reply()]);
        const { agent } = offloadAgent(model, {
          offload: { thresholdTokens: 1000, maxTotalBytes, store },
          outer: [check],
        });
        await agent.run('first', { threadId: 't' });
        const before = await store.list('t');
        blocking = true;
        expect((await agent.run('second', { threadId: 't' })).status).toBe('blocked');
        expect((await store.list('t')).map((e) => e.key)).toEqual(before.map((e) => e.key));
        expect(await store.read('t', before[0]!.key)).toBe(linesOf(100, 80, 'a'));
        await expectAgreement(store, await agent.messages('t'));
      }));

    it('after a failed turn no undo copy remains; recovered and blocked, it still takes back what it stored', () =>
      withStore(async (store) => {
        let blocking = false;
        const check: Middleware = { name: 'check', afterAgent: () => (blocking ? block('no') : undefined) };
        const model = scriptedModel([
          calls(emit('a'), emit('b')),
          reply(),
          calls(emit('c')),
          () => {
            throw new Error('model down');
          },
          reply(),
        ]);
        const { agent } = offloadAgent(model, {
          offload: { thresholdTokens: 1000, maxTotalBytes, store },
          outer: [check],
        });
        await agent.run('first', { threadId: 't' });
        const failed = await agent.run('second', { threadId: 't' });
        expect(failed).toMatchObject({ status: 'failed', reason: expect.stringContaining('model down') });
        expect(await store.heldText('t')).toEqual({ live: 2 * size, undo: 0, staged: 0 });
        // The failed turn stored c (evicting a): a Block after recover takes c back; a stays evicted.
        blocking = true;
        expect((await agent.recover('t')).status).toBe('blocked');
        const left = await store.list('t');
        expect(left).toHaveLength(1);
        expect(await store.read('t', left[0]!.key)).toBe(linesOf(100, 80, 'b'));
        await expectAgreement(store, await agent.messages('t'));
      }));

    it('after reloads that lose the state, the text held stays within the bound', () =>
      withStore(async (store) => {
        for (let life = 0; life < 4; life++) {
          // A new agent with a new MemoryCheckpointer: the thread's state and turns are gone.
          const model = scriptedModel([calls(emit(`x${life}`), emit(`y${life}`)), reply()]);
          const { agent } = agentOn(store, model);
          const result = await agent.run('go', { threadId: 't' });
          expect(result.status).toBe('completed');
          const held = await store.heldText('t');
          expect(held.live + held.undo + held.staged).toBeLessThanOrEqual(maxTotalBytes);
        }
        expect((await store.evictions('t')).length).toBe(6);
      }));

    it("a turn cut off by a crash, its state lost: an hour on, the next turn drops the crashed turn's undo copies", () =>
      withStore(async (store) => {
        vi.useFakeTimers({ toFake: ['Date'] });
        try {
          const first = agentOn(store, scriptedModel([calls(emit('a'), emit('b')), reply()]));
          await first.agent.run('go', { threadId: 't' });
          // This run never ends (its tab is gone): it stored c, evicting a, and is never told its end.
          const crashed = agentOn(store, scriptedModel([calls(emit('c'), ['slow', {}])]));
          const stored = deferred();
          const unsubscribe = store.subscribe((event) => event.type === 'stored' && stored.resolve());
          void crashed.agent.run('go', { threadId: 't' });
          await stored.promise;
          unsubscribe();
          expect(await store.heldText('t')).toEqual({ live: 2 * size, undo: size, staged: 0 });
          vi.setSystemTime(Date.now() + 2 * 60 * 60 * 1000);
          const next = agentOn(store, scriptedModel([reply()]));
          expect((await next.agent.run('hello', { threadId: 't' })).status).toBe('completed');
          expect(await store.heldText('t')).toEqual({ live: 2 * size, undo: 0, staged: 0 });
        } finally {
          vi.useRealTimers();
        }
      }));

    it('a run aborted while a tool runs (ignoring its signal) stages nothing from it', () =>
      withStore(async (store) => {
        const model = scriptedModel([calls(emit('a'), ['slow', {}]), reply(), reply('again')]);
        const { agent, outcomes, slowResult, slowSignal } = agentOn(store, model);
        const controller = new AbortController();
        const stored = deferred();
        const unsubscribe = store.subscribe((event) => event.type === 'stored' && stored.resolve());
        const run = agent.run('go', { threadId: 't', signal: controller.signal });
        const signal = await slowSignal;
        await stored.promise; // emit's result is live
        unsubscribe();
        controller.abort();
        expect(await run).toMatchObject({ status: 'failed', reason: 'aborted' });
        expect(signal.aborted).toBe(true);
        slowResult.resolve(linesOf(100, 80, 'late'));
        // The late result passed through the offload untouched: not stored, no path named.
        const late = await outcomes[1]!.promise;
        expect(late).toMatchObject({ type: 'success', content: [{ type: 'text', text: linesOf(100, 80, 'late') }] });
        expect(await store.heldText('t')).toMatchObject({ undo: 0, staged: 0 });
        const next = await agent.run('again', { threadId: 't' });
        expect(next.status).toBe('completed');
        expect(joinText(next.messages.find((m) => m.role === 'tool' && m.toolName === 'slow')!.content)).toMatch(
          /^Interrupted/,
        );
        expect(await expectAgreement(store, next.messages)).toMatchObject({ live: size });
      }));

    it('a run aborted while a result is being staged leaves no staged text', () =>
      withStore(async (store) => {
        const staging = holdFirst(store, 'stage');
        const model = scriptedModel([calls(emit('a')), reply(), reply('again')]);
        const { agent } = agentOn(store, model);
        const controller = new AbortController();
        const run = agent.run('go', { threadId: 't', signal: controller.signal });
        await staging.entered;
        controller.abort();
        staging.release();
        expect(await run).toMatchObject({ status: 'failed', reason: 'aborted' });
        expect(await store.heldText('t')).toEqual({ live: 0, undo: 0, staged: 0 });
        const next = await agent.run('again', { threadId: 't' });
        expect(next.status).toBe('completed');
        expect(await expectAgreement(store, next.messages)).toEqual({ live: 0, undo: 0, staged: 0 });
      }));

    for (const evicting of [false, true]) {
      it(`a run aborted while its commit is applied${evicting ? ', evicting' : ''}: the entry is named, its undo copies go`, () =>
        withStore(async (store) => {
          const earlier = evicting ? [calls(emit('a'), emit('b')), reply()] : [];
          const model = scriptedModel([...earlier, calls(emit('c')), reply(), reply('again')]);
          const { agent } = agentOn(store, model);
          if (evicting) await agent.run('first', { threadId: 't' });
          const committing = holdFirst(store, 'apply');
          const controller = new AbortController();
          const run = agent.run('go', { threadId: 't', signal: controller.signal });
          await committing.entered;
          controller.abort();
          committing.release();
          expect(await run).toMatchObject({ status: 'failed', reason: 'aborted' });
          // The commit landed: the checkpoint records its call as done, and no undo copy is kept.
          expect(await store.heldText('t')).toEqual({ live: (evicting ? 2 : 1) * size, undo: 0, staged: 0 });
          const next = await agent.run('again', { threadId: 't' });
          expect(next.status).toBe('completed');
          const [stored] = (await store.list('t')).slice(-1);
          expect(await store.read('t', stored!.key)).toBe(linesOf(100, 80, 'c'));
          expect(
            next.messages.filter((m) => m.role === 'tool' && joinText(m.content).startsWith('Interrupted')),
          ).toEqual([]);
          await expectAgreement(store, next.messages);
          expect((await store.evictions('t')).map((e) => e.reason)).toEqual(evicting ? ['bound'] : []);
        }));
    }
  });
}
