// Random sequences of stores, reruns, parallel batches, summarization drops, storage failures,
// failed runs and output Blocks, made by two writers (agents sharing one store, each its own turns) interleaved on
// the same threads — one writer's commits may land between another's commits and its Block —
// driven through the offload's hooks and state key and checked against a reference model after
// every applied update (O2, O3, O7, O8, S3), and what the store holds besides (undo copies only for
// turns that may still be blocked, staged texts only for commits still to come).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ToolOutputOffload } from '../../lib/offload/tool-output-offload.js';
import type { Message } from '../../lib/runtime/messages.js';
import type { StateKey, TurnEnd } from '../../lib/runtime/middleware.js';
import { joinText } from '../../lib/shared/content.js';
import { cutToBytes, utf8Bytes } from '../../lib/shared/text.js';
import { MemoryOffloadStore } from '../../lib/store/memory-store.js';
import { callTool, hookContext, middlewareOf } from './offload-fixtures.js';
import { ReferenceStore } from './offload-reference-model.js';

const threads = ['a', 'b'] as const;
const writers = ['A', 'B'] as const;
type Apply = () => Promise<void>;
/** A commit staged and not applied yet, and the bytes it staged. */
interface Held {
  apply: Apply;
  bytes: number;
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

/** Every step names its writer (A more often) and thread. */
const step = <T>(weight: number, fields: fc.Arbitrary<T>) => ({
  weight,
  arbitrary: fc
    .tuple(fields, fc.constantFrom(...threads), fc.constantFrom('A', 'A', 'B') as fc.Arbitrary<'A' | 'B'>)
    .map(([op, thread, writer]) => ({ ...op, thread, writer })),
});

const opArb = fc.oneof(
  step(4, fc.record({ op: fc.constant('store' as const), text: textArb })),
  step(2, fc.record({ op: fc.constant('rerun' as const), pick: fc.nat(), text: textArb })),
  step(
    2,
    fc.record({
      op: fc.constant('batch' as const),
      texts: fc.array(textArb, { minLength: 2, maxLength: 4 }),
      order: fc.array(fc.nat(), { minLength: 4, maxLength: 4 }),
    }),
  ),
  step(1, fc.record({ op: fc.constant('summarize' as const), picks: fc.array(fc.nat(), { maxLength: 3 }) })),
  step(1, fc.record({ op: fc.constant('quota' as const), text: textArb })),
  // Staged now, committed at a later 'release' of the same turn: other steps run while it is in flight.
  step(2, fc.record({ op: fc.constant('hold' as const), text: textArb })),
  step(1, fc.record({ op: fc.constant('release' as const) })),
  // The writer commits, the other writer commits on the same thread, then the writer's turn is blocked.
  step(
    2,
    fc.record({
      op: fc.constant('interleave' as const),
      own: fc.array(textArb, { minLength: 1, maxLength: 2 }),
      foreign: fc.array(textArb, { minLength: 1, maxLength: 2 }),
    }),
  ),
  step(1, fc.record({ op: fc.constant('newTurn' as const) })),
  step(1, fc.record({ op: fc.constant('block' as const) })),
  // The run fails (or is aborted): the turn goes on (recover) with the same id, and may still be blocked.
  step(2, fc.record({ op: fc.constant('fail' as const) })),
);
type Op = typeof opArb extends fc.Arbitrary<infer T> ? T : never;

/** One agent on the store: its own offload, its key's value per thread as its runtime keeps it, its turns. */
class Writer {
  readonly offload: ToolOutputOffload;
  readonly key: StateKey;
  readonly turn = new Map<string, number>(threads.map((t) => [t, 1]));
  readonly used = new Map<string, string[]>(threads.map((t) => [t, []]));
  /** Commits staged in the current turn whose update is not applied yet. */
  readonly held = new Map<string, Held[]>(threads.map((t) => [t, []]));
  readonly values: Map<string, unknown>;
  /** The key's value when the turn began, what a Block restores it to (R10). */
  readonly turnStartValues: Map<string, unknown>;

  constructor(
    readonly name: string,
    store: MemoryOffloadStore,
    maxResultBytes: number,
    maxTotalBytes: number,
  ) {
    this.offload = new ToolOutputOffload({ thresholdTokens: 1000, maxResultBytes, maxTotalBytes, store });
    this.key = middlewareOf(this.offload).writes[ToolOutputOffload.key] as StateKey;
    this.values = new Map(threads.map((t) => [t, this.key.initial]));
    this.turnStartValues = new Map(threads.map((t) => [t, this.key.initial]));
  }

  turnId(thread: string): string {
    return `${this.name}-${thread}-turn-${this.turn.get(thread)}`;
  }
  context(thread: string) {
    return { threadId: thread, turnId: this.turnId(thread) };
  }
  async apply(thread: string, update: unknown): Promise<void> {
    const value = await this.key.apply!(this.values.get(thread), update, hookContext(this.context(thread)));
    this.values.set(thread, value);
  }
  /** What the runtime tells the key when the turn's run ended (StateKey.endTurn). */
  async endTurn(thread: string, status: TurnEnd['status']): Promise<void> {
    const value = await this.key.endTurn!(this.values.get(thread), { status }, hookContext(this.context(thread)));
    this.values.set(thread, value);
  }
}

async function runScenario(maxResultBytes: number, maxTotalBytes: number, ops: Op[]): Promise<void> {
  const store = new MemoryOffloadStore();
  const agents = new Map(writers.map((name) => [name, new Writer(name, store, maxResultBytes, maxTotalBytes)]));
  const reference = new ReferenceStore(maxTotalBytes);
  /** The texts the model was shown for each call whose result was made live, by thread and call: what its tool messages hold. */
  const shownTexts = new Map<string, string[]>();
  let fresh = 0;
  let failStage = false;
  const realStage = store.stage.bind(store);
  store.stage = async (result) => {
    if (failStage) throw new DOMException('quota', 'QuotaExceededError');
    return realStage(result);
  };

  async function check(): Promise<void> {
    for (const thread of threads) {
      const listed = await store.list(thread);
      const total = await store.totalBytes(thread);
      expect(total).toBe(listed.reduce((sum, e) => sum + e.bytes, 0));
      expect(total).toBeLessThanOrEqual(maxTotalBytes);
      const expected = reference.live(thread);
      expect(listed.map((e) => e.key)).toEqual(expected.map((e) => e.key)); // oldest-first eviction
      expect(total).toBe(reference.total(thread));
      for (const [i, entry] of expected.entries()) {
        expect(await store.read(thread, entry.key)).toBe(entry.text);
        expect(listed[i]!.bytes).toBe(utf8Bytes(entry.text));
      }
      // Which entries went, why, and in what order ('bound' ones oldest first).
      const logged = (await store.evictions(thread)).map(({ key, reason }) => ({ key, reason }));
      expect(logged).toEqual(reference.evictions(thread).map(({ key, reason }) => ({ key, reason })));
      // Undo copies of the turns that may still be blocked, staged texts of the commits still held.
      const staged = [...agents.values()].flatMap((w) => w.held.get(thread)!).reduce((sum, h) => sum + h.bytes, 0);
      expect(await store.heldText(thread)).toEqual({ live: total, undo: reference.undoBytes(thread), staged });
    }
  }

  /** The writer's value says what the store held when its update was applied. */
  function expectValue(writer: Writer, thread: string): void {
    const value = writer.values.get(thread) as { entries: number; totalBytes: number };
    expect({ entries: value.entries, totalBytes: value.totalBytes }).toEqual({
      entries: reference.live(thread).length,
      totalBytes: reference.total(thread),
    });
  }

  /** Runs the call through wrapToolCall (staging it); returns how to apply it (and mirror it in the reference). */
  async function call(writer: Writer, thread: string, callKey: string, text: string): Promise<Held> {
    const outcome = await callTool(writer.offload, text, { ...writer.context(thread), key: callKey, callId: callKey });
    const update = outcome.type === 'success' ? outcome.update : undefined;
    expect(update).toBeDefined();
    const stored = cutToBytes(text, maxResultBytes);
    const apply = async () => {
      await writer.apply(thread, update![ToolOutputOffload.key]);
      reference.commit(thread, writer.turnId(thread), callKey, stored);
      const texts = shownTexts.get(`${thread}\n${callKey}`) ?? [];
      if (outcome.type === 'success') shownTexts.set(`${thread}\n${callKey}`, [...texts, joinText(outcome.content)]);
      if (!writer.used.get(thread)!.includes(callKey)) writer.used.get(thread)!.push(callKey);
      expectValue(writer, thread);
      await check();
    };
    return { apply, bytes: utf8Bytes(stored) };
  }

  async function summarize(writer: Writer, thread: string, picks: number[]): Promise<void> {
    const keys = writer.used.get(thread)!;
    const covered = keys.length > 0 ? picks.map((p) => keys[p % keys.length]!) : [];
    // Each call's result as every text it was shown as (a Block brings an earlier one back).
    const toolMessages = keys.flatMap((k) =>
      (shownTexts.get(`${thread}\n${k}`) ?? []).map((text, i) => ({
        role: 'tool' as const,
        id: `m-${k}-${i}`,
        toolCallId: k,
        toolName: 'emit',
        content: [{ type: 'text' as const, text }],
        isError: false,
      })),
    );
    const coveredIds = toolMessages.filter((m) => covered.includes(m.toolCallId)).map((m) => m.id);
    const messages: Message[] = toolMessages;
    const state = { summarization: { summary: 's', coveredMessageIds: coveredIds } };
    const reply = await middlewareOf(writer.offload).wrapModelCall(
      { systemPrompt: '', messages, tools: [] },
      async () => ({ content: 'ok' }),
      hookContext({ ...writer.context(thread), state, messages }),
    );
    const drop = reply.update?.[ToolOutputOffload.key];
    const live = reference.live(thread).map((e) => e.key);
    expect(drop === undefined).toBe(!covered.some((k) => live.includes(k)));
    if (drop !== undefined) await writer.apply(thread, drop);
    reference.drop(thread, writer.turnId(thread), covered);
    await check();
  }

  /**
   * Ends the writer's turn (blocked or not) as the runtime does, telling the key (endTurn), and
   * starts the next, whose beforeAgent settles the turns before that are still unsettled.
   */
  async function nextTurn(writer: Writer, thread: string, blocked: boolean): Promise<void> {
    // A turn's updates not applied by its end never are.
    writer.held.set(thread, []);
    if (blocked) {
      const before = writer.turnStartValues.get(thread);
      const restored = await writer.key.restore!(
        writer.values.get(thread),
        before,
        hookContext(writer.context(thread)),
      );
      writer.values.set(thread, restored);
      reference.restore(thread, writer.turnId(thread));
      expectValue(writer, thread);
    }
    await writer.endTurn(thread, blocked ? 'blocked' : 'completed');
    reference.settle(thread, [writer.turnId(thread)]);
    // A blocked turn restores byte for byte, and the thread fits the bound again; an ended turn
    // keeps no undo copy and no staged text, while the other writer's turn in flight keeps its own.
    await check();
    writer.turn.set(thread, writer.turn.get(thread)! + 1);
    writer.turnStartValues.set(thread, writer.values.get(thread));
    const unsettled = (writer.values.get(thread) as { turns: string[] }).turns;
    const state = { [ToolOutputOffload.key]: writer.values.get(thread) };
    const started = await middlewareOf(writer.offload).beforeAgent(
      [],
      hookContext({ ...writer.context(thread), state }),
    );
    // The writer's earlier turns that changed the store are settled by name, through the key.
    if (started) await writer.apply(thread, started.update[ToolOutputOffload.key]);
    expect((writer.values.get(thread) as { turns: string[] }).turns).toEqual([]);
    reference.settle(thread, unsettled);
    await check();
  }

  for (const op of ops) {
    const { thread } = op;
    const writer = agents.get(op.writer)!;
    const keys = writer.used.get(thread)!;
    const newKey = () => `${writer.name}k${fresh++}`;
    if (op.op === 'store') await (await call(writer, thread, newKey(), op.text)).apply();
    else if (op.op === 'rerun') {
      await (await call(writer, thread, keys.length ? keys[op.pick % keys.length]! : newKey(), op.text)).apply();
    } else if (op.op === 'batch') {
      // Staged together, then committed one at a time: the batch's other stagings count as held meanwhile.
      const batch = writer.held.get(thread)!;
      const staged = await Promise.all(op.texts.map((text) => call(writer, thread, newKey(), text)));
      batch.push(...staged);
      const order = staged.map((held, i) => ({ held, rank: op.order[i]! })).sort((x, y) => x.rank - y.rank);
      for (const { held } of order) {
        batch.splice(batch.indexOf(held), 1);
        await held.apply();
      }
    } else if (op.op === 'hold') writer.held.get(thread)!.push(await call(writer, thread, newKey(), op.text));
    else if (op.op === 'release') {
      const held = writer.held.get(thread)!;
      while (held.length > 0) await held.shift()!.apply();
    } else if (op.op === 'fail') {
      // The run's commits not applied by then never are; what the turn evicted goes for good.
      writer.held.set(thread, []);
      await writer.endTurn(thread, 'failed');
      reference.settle(thread, [writer.turnId(thread)], true);
      await check();
    } else if (op.op === 'quota') {
      failStage = true;
      const outcome = await callTool(writer.offload, op.text, { ...writer.context(thread), key: newKey() });
      failStage = false;
      expect(outcome.type === 'success' && outcome.update).toBeUndefined();
      await check(); // nothing stored is lost
    } else if (op.op === 'interleave') {
      const other = agents.get(writer.name === 'A' ? 'B' : 'A')!;
      for (const text of op.own) await (await call(writer, thread, newKey(), text)).apply();
      for (const text of op.foreign) await (await call(other, thread, `${other.name}k${fresh++}`, text)).apply();
      await nextTurn(writer, thread, true);
    } else if (op.op === 'summarize') await summarize(writer, thread, op.picks);
    else await nextTurn(writer, thread, op.op === 'block');
  }
}

describe('the offload against a reference model (property)', () => {
  it('keeps totals exact, within the bound, oldest-first, and restores blocked turns, with two writers on a thread', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 4000, max: 16_000 }),
        fc.integer({ min: 0, max: 40_000 }),
        fc.array(opArb, { minLength: 1, maxLength: 40 }),
        async (maxResultBytes, extra, ops) => runScenario(maxResultBytes, maxResultBytes + extra, ops),
      ),
      {
        numRuns: 300,
        // A failed run goes on: a Block after it still takes back what the turn stored before it failed.
        examples: [
          [
            5000,
            0,
            [
              { op: 'store', text: 'x'.repeat(4500), thread: 'a', writer: 'A' },
              { op: 'fail', thread: 'a', writer: 'A' },
              { op: 'block', thread: 'a', writer: 'A' },
            ],
          ],
        ],
      },
    );
  }, 600_000);
});
