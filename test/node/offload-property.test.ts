// Random sequences of stores, reruns, parallel batches, summarization drops, storage failures and
// output Blocks, driven through the offload's hooks and state key and checked against a reference
// model after every applied update (O2, O3, O7, O8, S3).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ToolOutputOffload } from '../../lib/offload/tool-output-offload.js';
import type { Message } from '../../lib/runtime/messages.js';
import type { StateKey } from '../../lib/runtime/middleware.js';
import { MemoryOffloadStore } from '../../lib/store/memory-store.js';
import { cutToBytes, utf8Bytes } from '../../lib/text.js';
import { callTool, hookContext } from './offload-fixtures.js';

type Entry = { key: string; text: string };
const threads = ['a', 'b'] as const;

/** What the store must hold: per thread, the live entries oldest first. */
class Reference {
  live = new Map<string, Entry[]>(threads.map((t) => [t, []]));
  turnStart = new Map<string, Entry[]>(threads.map((t) => [t, []]));
  constructor(readonly maxTotalBytes: number) {}

  commit(thread: string, entry: Entry): void {
    const entries = this.live.get(thread)!.filter((e) => e.key !== entry.key);
    entries.push(entry);
    while (entries.reduce((sum, e) => sum + utf8Bytes(e.text), 0) > this.maxTotalBytes) entries.shift();
    this.live.set(thread, entries);
  }
  drop(thread: string, keys: string[]): void {
    this.live.set(
      thread,
      this.live.get(thread)!.filter((e) => !keys.includes(e.key)),
    );
  }
  newTurn(thread: string): void {
    this.turnStart.set(thread, [...this.live.get(thread)!]);
  }
  block(thread: string): void {
    this.live.set(thread, [...this.turnStart.get(thread)!]);
  }
}

/** Texts over the threshold (1000 tokens), mixing 1-, 2-, 3- and 4-byte characters and newlines; cheap to shrink. */
const textArb = fc
  .record({
    length: fc.integer({ min: 4001, max: 9000 }),
    pattern: fc.array(fc.constantFrom('a', 'b', 'é', '€', '😀', '\n', 'xyz '), { minLength: 1, maxLength: 12 }),
  })
  .map(({ length, pattern }) => {
    const unit = pattern.join('');
    return unit.repeat(Math.ceil(length / unit.length) + 1).slice(0, length + 1);
  });

const opArb = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ op: fc.constant('store' as const), thread: fc.constantFrom(...threads), text: textArb }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('rerun' as const),
      thread: fc.constantFrom(...threads),
      pick: fc.nat(),
      text: textArb,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('batch' as const),
      thread: fc.constantFrom(...threads),
      texts: fc.array(textArb, { minLength: 2, maxLength: 4 }),
      order: fc.array(fc.nat(), { minLength: 4, maxLength: 4 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('summarize' as const),
      thread: fc.constantFrom(...threads),
      picks: fc.array(fc.nat(), { maxLength: 3 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant('quota' as const), thread: fc.constantFrom(...threads), text: textArb }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('newTurn' as const), thread: fc.constantFrom(...threads) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('block' as const), thread: fc.constantFrom(...threads) }) },
);
type Op = typeof opArb extends fc.Arbitrary<infer T> ? T : never;

async function runScenario(maxResultBytes: number, maxTotalBytes: number, ops: Op[]): Promise<void> {
  const store = new MemoryOffloadStore();
  const offload = new ToolOutputOffload({ thresholdTokens: 1000, maxResultBytes, maxTotalBytes, store });
  const key = offload.writes[ToolOutputOffload.key] as StateKey;
  const reference = new Reference(maxTotalBytes);
  const turn = new Map<string, number>(threads.map((t) => [t, 1]));
  const used = new Map<string, string[]>(threads.map((t) => [t, []]));
  let fresh = 0;
  let failStage = false;
  const realStage = store.stage.bind(store);
  store.stage = async (result) => {
    if (failStage) throw new DOMException('quota', 'QuotaExceededError');
    return realStage(result);
  };
  // The key's value per thread as the runtime would keep it, and its value when the turn began (R10).
  const values = new Map<string, unknown>(threads.map((t) => [t, key.initial]));
  const turnStartValues = new Map<string, unknown>(threads.map((t) => [t, key.initial]));
  const applyKey = async (thread: string, update: unknown) =>
    values.set(thread, await key.apply!(values.get(thread), update, hookContext(context(thread))));
  const turnId = (thread: string) => `${thread}-turn-${turn.get(thread)}`;
  const context = (thread: string) => ({ threadId: thread, turnId: turnId(thread) });

  async function check(): Promise<void> {
    for (const thread of threads) {
      const listed = await store.list(thread);
      const total = await store.totalBytes(thread);
      expect(total).toBe(listed.reduce((sum, e) => sum + e.bytes, 0));
      expect(total).toBeLessThanOrEqual(maxTotalBytes);
      const expected = reference.live.get(thread)!;
      expect(listed.map((e) => e.key)).toEqual(expected.map((e) => e.key)); // oldest-first eviction
      for (const [i, entry] of expected.entries()) {
        expect(await store.read(thread, entry.key)).toBe(entry.text);
        expect(listed[i]!.bytes).toBe(utf8Bytes(entry.text));
      }
    }
  }

  /** Runs the call through wrapToolCall; returns how to apply it (and mirror it in the reference). */
  async function call(thread: string, callKey: string, text: string) {
    const outcome = await callTool(offload, text, { ...context(thread), key: callKey });
    const update = outcome.type === 'success' ? outcome.update : undefined;
    return async () => {
      if (!update) return;
      await applyKey(thread, update[ToolOutputOffload.key]);
      reference.commit(thread, { key: callKey, text: cutToBytes(text, maxResultBytes) });
      if (!used.get(thread)!.includes(callKey)) used.get(thread)!.push(callKey);
      await check();
    };
  }

  for (const op of ops) {
    const thread = op.thread;
    const keys = used.get(thread)!;
    if (op.op === 'store') await (await call(thread, `k${fresh++}`, op.text))();
    else if (op.op === 'rerun') {
      await (await call(thread, keys.length ? keys[op.pick % keys.length]! : `k${fresh++}`, op.text))();
    } else if (op.op === 'batch') {
      const applies = await Promise.all(op.texts.map((text) => call(thread, `k${fresh++}`, text)));
      const order = applies.map((apply, i) => ({ apply, rank: op.order[i]! })).sort((x, y) => x.rank - y.rank);
      for (const { apply } of order) await apply();
    } else if (op.op === 'quota') {
      failStage = true;
      const outcome = await callTool(offload, op.text, { ...context(thread), key: `k${fresh++}` });
      failStage = false;
      expect(outcome.type === 'success' && outcome.update).toBeUndefined();
      await check(); // nothing stored is lost
    } else if (op.op === 'summarize') {
      const covered = keys.length > 0 ? op.picks.map((p) => keys[p % keys.length]!) : [];
      const messages: Message[] = keys.map((k) => ({
        role: 'tool',
        id: `m-${k}`,
        toolCallId: k,
        toolName: 'emit',
        content: [{ type: 'text', text: `Path: /large_tool_results/${k}\n…` }],
        isError: false,
      }));
      const state = { summarization: { summary: 's', coveredMessageIds: covered.map((k) => `m-${k}`) } };
      const reply = await offload.wrapModelCall(
        { systemPrompt: '', messages, tools: [] },
        async () => ({ content: 'ok' }),
        hookContext({ ...context(thread), state, messages }),
      );
      const drop = reply.update?.[ToolOutputOffload.key];
      const live = reference.live.get(thread)!.map((e) => e.key);
      expect(drop === undefined).toBe(!covered.some((k) => live.includes(k)));
      if (drop !== undefined) await applyKey(thread, drop);
      reference.drop(thread, covered);
      await check();
    } else if (op.op === 'newTurn' || op.op === 'block') {
      if (op.op === 'block') {
        const before = turnStartValues.get(thread);
        values.set(thread, await key.restore!(values.get(thread), before, hookContext(context(thread))));
        reference.block(thread);
        await check(); // a blocked turn restores byte for byte
      }
      turn.set(thread, turn.get(thread)! + 1);
      turnStartValues.set(thread, values.get(thread));
      const state = { [ToolOutputOffload.key]: values.get(thread) };
      const started = await offload.beforeAgent([], hookContext({ ...context(thread), state }));
      // The earlier turns that changed the store are settled by name, through the key.
      if (started) await applyKey(thread, started.update[ToolOutputOffload.key]);
      expect((values.get(thread) as { turns: string[] }).turns).toEqual([]);
      reference.newTurn(thread);
      await check();
    }
  }
}

describe('the offload against a reference model (property)', () => {
  it('keeps totals exact, within the bound, oldest-first, and restores blocked turns', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 4000, max: 16_000 }),
        fc.integer({ min: 0, max: 40_000 }),
        fc.array(opArb, { minLength: 1, maxLength: 25 }),
        async (maxResultBytes, extra, ops) => runScenario(maxResultBytes, maxResultBytes + extra, ops),
      ),
      { numRuns: 60 },
    );
  }, 120_000);
});
