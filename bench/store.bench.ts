import { deleteDB, openDB } from 'idb';
import { afterAll, expect, it } from 'vitest';
import { OFFLOAD_DB_VERSION, type OffloadDb, queueRange, upgradeOffloadDb } from '../lib/store/indexeddb-schema.js';
import { IndexedDbOffloadStore } from '../lib/store/indexeddb-store.js';
import type { StagedResult } from '../lib/store/offload-store.js';
import { type EntryRecord, newTextId, type ThreadRecord } from '../lib/store/store-records.js';
import { chunkText, defaultChunkChars } from '../lib/store/text-chunks.js';
import { result } from '../test/browser/fixtures/staged-result.js';
import { TextPool } from './random-text.js';
import { type BenchResult, interleaved, median, record, timed } from './record.js';

/**
 * The store against the physical limit: an applied update (stage, then a commit that evicts the
 * oldest entry) beside a bare idb transaction writing the same text, and the same update in a
 * thread of 10,000 entries beside one of 100. Medians of RUNS interleaved runs.
 */
const RUNS = 25;
const results: BenchResult[] = [];
const run = Date.now();
let made = 0;

afterAll(() => record('store', results));

/** A result as ToolOutputOffload stages it (with a real-sized preview), built before any clock starts. */
function staged(threadId: string, text: string): StagedResult {
  const key = `k${made++}`;
  return {
    ...result(threadId, key, text, `turn-${key}`),
    preview: `Stored at /large_tool_results/${key}\n${text.slice(0, 400)}`,
  };
}

/** Milliseconds of each half of the applied updates measured, when asked for. */
interface Split {
  stage: number[];
  commit: number[];
}

/** One applied update as the middleware makes it: stage in wrapToolCall, commit when the update is applied. */
async function applyUpdate(store: IndexedDbOffloadStore, result: StagedResult, maxTotalBytes: number, split?: Split) {
  const started = performance.now();
  await store.stage(result);
  const staged = performance.now();
  const { threadId, key, turnId } = result;
  const applied = await store.apply({ type: 'commit', threadId, key, turnId: turnId!, maxTotalBytes });
  split?.stage.push(staged - started);
  split?.commit.push(performance.now() - staged);
  if (applied.evicted.length !== 1) throw new Error(`expected one eviction, got ${applied.evicted.length}`);
}

/**
 * `count` entries of `chars` characters written straight into the database in one transaction,
 * requests not awaited one by one (the store's own path, two transactions each, would take minutes).
 */
async function fill(name: string, threadId: string, count: number, chars: number): Promise<void> {
  const pool = new TextPool(chars);
  const database = await openDB<OffloadDb>(name, OFFLOAD_DB_VERSION, { upgrade: upgradeOffloadDb });
  const tx = database.transaction(['threads', 'entries', 'chunks'], 'readwrite');
  const writes: Promise<unknown>[] = [];
  let totalBytes = 0;
  for (let seq = 1; seq <= count; seq++) {
    const { text, turnId: _turnId, ...info } = staged(threadId, pool.next());
    const { chunks, layout } = chunkText(text, defaultChunkChars);
    const entry: EntryRecord = { ...info, ...layout, seq, textId: newTextId() };
    writes.push(...chunks.map((chunk, i) => tx.objectStore('chunks').put(chunk, [entry.textId, i])));
    writes.push(tx.objectStore('entries').put(entry));
    totalBytes += entry.bytes;
  }
  const thread: ThreadRecord = { threadId, totalBytes, nextSeq: count + 1, entries: count };
  writes.push(tx.objectStore('threads').put(thread), tx.done);
  await Promise.all(writes);
  database.close();
}

/**
 * The requests of a commit that evicts one entry, by hand over raw idb on a database of the
 * store's schema, no store code: what the store's commit asks at least. Staged by hand first (not
 * timed); returns the commit's milliseconds. Reads, all at once: the thread, the turn's undo log,
 * the staged record, the key's live entry, the oldest entry (one index seek); then writes, all at
 * once: the evicted entry out, its eviction logged, the entry in, the staged record out, the
 * thread, the undo log (the evicted entry's copy).
 */
async function commitByHand(name: string, threadId: string, pool: TextPool, keep: number) {
  const database = await openDB<OffloadDb>(name, OFFLOAD_DB_VERSION, { upgrade: upgradeOffloadDb });
  let seq = 1;
  const stageOne = async () => {
    const { text, ...info } = staged(threadId, pool.next());
    const { chunks, layout } = chunkText(text, defaultChunkChars);
    const record = { ...info, ...layout, textId: newTextId() };
    const tx = database.transaction(['staged', 'chunks'], 'readwrite', { durability: 'strict' });
    await Promise.all([
      tx.objectStore('staged').put(record),
      ...chunks.map((chunk, i) => tx.objectStore('chunks').put(chunk, [record.textId, i])),
      tx.done,
    ]);
    return record;
  };
  const commitOne = async () => {
    const record = await stageOne();
    const started = performance.now();
    const tx = database.transaction(
      ['threads', 'entries', 'staged', 'chunks', 'evictions', 'undo', 'seen'],
      'readwrite',
      {
        durability: 'strict',
      },
    );
    const entries = tx.objectStore('entries');
    const [, , stagedRecord, , cursor] = await Promise.all([
      tx.objectStore('threads').get(threadId),
      tx.objectStore('undo').get([threadId, record.turnId!]),
      tx.objectStore('staged').get([threadId, record.key]),
      entries.get([threadId, record.key]),
      entries.index('bySeq').openCursor(queueRange(threadId)),
    ]);
    const { turnId, ...info } = stagedRecord!;
    const writes: Promise<unknown>[] = [tx.objectStore('staged').delete([threadId, record.key])];
    const oldest = cursor?.value;
    if (oldest) {
      const { key, path, bytes } = oldest;
      writes.push(
        entries.delete([threadId, key]),
        tx
          .objectStore('evictions')
          .add({ threadId, key, path, bytes, at: 1, reason: 'bound', turnId: turnId!, seq: oldest.seq } as never),
      );
    }
    writes.push(
      entries.put({ ...info, seq: seq++ }),
      tx.objectStore('threads').put({ threadId, totalBytes: keep * pool.chars, nextSeq: seq, entries: keep }),
      tx.objectStore('undo').put({
        threadId,
        turnId: turnId!,
        steps: [
          ...(oldest ? [{ kind: 'evicted' as const, entry: oldest }] : []),
          { kind: 'stored', key: record.key, seq },
        ],
        at: 1,
      }),
    );
    await Promise.all([...writes, tx.done]);
    return performance.now() - started;
  };
  for (let i = 0; i < keep; i++) await commitOne();
  return {
    commit: commitOne,
    close: () => database.close(),
  };
}

it('offload-write-vs-raw-idb: an applied update of 256 KiB that evicts one entry vs one raw idb put', async () => {
  const chars = 256 * 1024;
  const keep = 8;
  const store = new IndexedDbOffloadStore({ name: `bench-write-${run}` });
  const pool = new TextPool(chars);
  // Full at `keep` entries, so every further commit evicts exactly one.
  const maxTotalBytes = keep * chars;
  for (let i = 0; i < keep; i++) await store.apply(await stagedIn(store, staged('t', pool.next()), maxTotalBytes));
  const raw = await openDB(`bench-raw-${run}`, 1, {
    upgrade: (db) => {
      db.createObjectStore('texts');
      db.createObjectStore('small');
    },
  });
  const texts = Array.from({ length: RUNS + 3 }, () => pool.next());
  const updates = texts.map((text) => staged('t', text));
  const split: Split = { stage: [], commit: [] };
  let i = 0;
  let j = 0;
  // The store commits with durability 'strict'; so does the raw transaction, so both wait for the disk alike.
  const rawPut = async (value: unknown, store: 'texts' | 'small') => {
    const tx = raw.transaction(store, 'readwrite', { durability: 'strict' });
    await tx.store.put(value, `raw-${j++}`);
    await tx.done;
  };
  const measured = await interleaved(
    RUNS,
    () => applyUpdate(store, updates[i++]!, maxTotalBytes, split),
    () => rawPut(texts[j], 'texts'),
  );
  // The least a second transaction costs: one small record, committed the same way.
  const smallTransaction = await timed(RUNS, () => rawPut({ key: 'k', bytes: 1 }, 'small'));
  // The commit's own requests by hand: its floor over this schema.
  const byHand = await commitByHand(`bench-write-by-hand-${run}`, 'hand', pool, keep);
  const handTimes: number[] = [];
  for (let k = 0; k < RUNS + 3; k++) handTimes.push(await byHand.commit());
  byHand.close();
  const handCommit = median(handTimes.slice(3));
  // The update through an instance with a subscriber (an inspector open) beside this one with none,
  // alternately, on the same thread: with one, the change channel stays open; with none, each
  // change opens a channel to post through and closes it.
  const listened = new IndexedDbOffloadStore({ name: store.name });
  const unsubscribe = listened.subscribe(() => {});
  const heardUpdates = Array.from({ length: 2 * (RUNS + 3) }, () => staged('t', pool.next()));
  const heard = await interleaved(
    RUNS,
    () => applyUpdate(listened, heardUpdates.pop()!, maxTotalBytes),
    () => applyUpdate(store, heardUpdates.pop()!, maxTotalBytes),
  );
  unsubscribe();
  await listened.close();
  expect(await store.totalBytes('t')).toBe(maxTotalBytes);
  raw.close();
  await store.deleteDatabase();
  await deleteDB(`bench-write-by-hand-${run}`);
  const ratio = measured.a / measured.b;
  const [stage, commit] = [median(split.stage), median(split.commit)];
  results.push({
    name: 'offload-write-vs-raw-idb',
    value: round(ratio),
    unit: 'x',
    ratio: round(ratio),
    goal: '<= 1.5',
    detail:
      `median applied update ${round(measured.a)} ms (stage ${round(stage)} ms + commit evicting one ` +
      `${round(commit)} ms) vs one raw idb put ${round(measured.b)} ms, 256 KiB random text, durability ` +
      `'strict', ${RUNS} interleaved runs; a readwrite transaction putting one small record takes ${round(smallTransaction)} ms; ` +
      `the update through an instance with a subscriber (its change channel open) ${round(heard.a)} ms vs with ` +
      `none ${round(heard.b)} ms, alternately. The commit part by part: its requests by hand over raw idb on a database ` +
      `of the store's schema (five reads at once, then six writes at once) ${round(handCommit)} ms; the rest, ` +
      `${round(commit - handCommit)} ms, is the store's own: the checks of every record read, the plan, the events and ` +
      `their notice to other instances (with no listener, a BroadcastChannel opened for each change: the subscriber ` +
      `figure above)`,
    unmet:
      `${round(ratio - 1.5)}x over the goal. Two transactions by design (S3: the text is written before the model is ` +
      `shown its path): the stage (${round(stage)} ms, stage-vs-raw-idb) alone is ${round(stage / measured.b)}x the raw ` +
      `put, and the least commit possible (one small transaction, ${round(smallTransaction)} ms) would bring the update ` +
      `to ${round((stage + smallTransaction) / measured.b)}x. The commit took ${round(commit)} ms, of which its requests ` +
      `by hand ${round(handCommit)} ms (the floor of this schema: every read and write is needed — the thread, the ` +
      `turn's undo log, the staged record, the key's live entry, the oldest entry; the entry out and in, the eviction ` +
      `log, the staged record, the thread, the undo log). Tried: a cheaper ` +
      `stage (stage-vs-raw-idb); fewer commit requests, durability 'relaxed', IDBTransaction.commit() (bench/README.md: ` +
      `0.1 ms at most each); the oldest entry by an index get instead of a cursor (no difference); a channel kept open ` +
      `to post through while no one listens (0.2-0.5 ms less a change), not kept: an instance holds its change channel ` +
      `open only while someone subscribes (docs/stores.md; test/browser/store-lifecycle.test.ts). Left: the undo log ` +
      `(a read and a write a commit of a turn) is the built-in agent's only (O8); one object store for a turn's steps ` +
      `would make it a write only, a new schema version.`,
  });
});

it('stage-vs-raw-idb: staging a result of 256 KiB vs one raw idb put of the same text', async () => {
  const store = new IndexedDbOffloadStore({ name: `bench-stage-${run}` });
  const raw = await openDB(`bench-stage-raw-${run}`, 1, {
    upgrade: (db) => {
      db.createObjectStore('texts');
      db.createObjectStore('records', { keyPath: ['threadId', 'key'] });
    },
  });
  let rawKey = 0;
  // The same durability as the store's transactions.
  const rawPut = async (text: string) => {
    const tx = raw.transaction('texts', 'readwrite', { durability: 'strict' });
    await tx.store.put(text, rawKey++);
    await tx.done;
  };
  /** What a stage must ask at least, by hand: the read of an earlier staging, the staged record and the text. */
  const stageByHand = async ({ text, ...info }: StagedResult) => {
    const { chunks, layout } = chunkText(text, defaultChunkChars);
    const tx = raw.transaction(['texts', 'records'], 'readwrite', { durability: 'strict' });
    const textId = newTextId();
    await Promise.all([
      tx.objectStore('records').get([info.threadId, info.key]),
      tx.objectStore('records').put({ ...info, ...layout, textId }),
      ...chunks.map((chunk, i) => tx.objectStore('texts').put(chunk, [textId, i])),
    ]);
    await tx.done;
  };
  /** Medians of `stage` and of a raw put of the same texts, interleaved; each stage a new key, as each tool call is. */
  const besideRawPut = async (chars: number, stage: (result: StagedResult) => Promise<void>) => {
    const pool = new TextPool(chars);
    const updates = Array.from({ length: RUNS + 3 }, () => staged('t', pool.next()));
    let i = 0;
    let j = 0;
    return interleaved(
      RUNS,
      () => stage(updates[i++]!),
      () => rawPut(updates[j++]!.text),
    );
  };
  const measured = await besideRawPut(256 * 1024, (result) => store.stage(result));
  const floor = await besideRawPut(256 * 1024, stageByHand);
  // The chunk size before this figure existed: 256 KiB went in two values.
  const halves = new IndexedDbOffloadStore({ name: `bench-stage-halves-${run}`, chunkChars: 131_072 });
  const former = await besideRawPut(256 * 1024, (result) => halves.stage(result));
  await halves.deleteDatabase();
  const mebibyte = await besideRawPut(1024 * 1024, (result) => store.stage(result));
  expect((await store.heldText('t')).staged).toBe((RUNS + 3) * (256 + 1024) * 1024);
  raw.close();
  await store.deleteDatabase();
  const ratio = measured.a / measured.b;
  results.push({
    name: 'stage-vs-raw-idb',
    value: round(ratio),
    unit: 'x',
    ratio: round(ratio),
    goal: '<= 1.15',
    detail:
      `median IndexedDbOffloadStore.stage ${round(measured.a)} ms vs one raw idb put of the same text ` +
      `${round(measured.b)} ms, 256 KiB random text, durability 'strict', ${RUNS} interleaved runs; ` +
      `1 MiB the same way: ${round(mebibyte.a)} ms vs ${round(mebibyte.b)} ms (${round(mebibyte.a / mebibyte.b)}x); ` +
      `256 KiB with chunks of 131,072 code units (two values, the size before): ${round(former.a)} ms vs ` +
      `${round(former.b)} ms (${round(former.a / former.b)}x)`,
    unmet:
      `A stage makes three requests where the raw put makes one: the read of an earlier staging of the key (whose text ` +
      `it replaces), the staged record (info, preview, layout) and the text. The same three requests by hand over raw ` +
      `idb, no store code, took ${round(floor.a)} ms vs ${round(floor.b)} ms (${round(floor.a / floor.b)}x) in this run. ` +
      `Tried (bench/README.md): chunks of 262,144 code units, so 256 KiB is one value, not two (see detail); ` +
      `IDBTransaction.commit() once every request is made (no gain); durability 'relaxed' (no difference). The record ` +
      `and the text as one value would make the commit copy the text.`,
  });
});

/** Stages `pending` and returns the commit that makes it live. */
async function stagedIn(store: IndexedDbOffloadStore, pending: StagedResult, maxTotalBytes: number) {
  await store.stage(pending);
  return {
    type: 'commit' as const,
    threadId: pending.threadId,
    key: pending.key,
    turnId: pending.turnId!,
    maxTotalBytes,
  };
}

it('update-cost-10k-vs-100: an applied update in a thread of 10,000 entries vs one of 100', async () => {
  const chars = 2048;
  const name = `bench-size-${run}`;
  await fill(name, 'big', 10_000, chars);
  await fill(name, 'small', 100, chars);
  const store = new IndexedDbOffloadStore({ name });
  const pool = new TextPool(chars);
  const measured = await interleaved(
    RUNS,
    () => applyUpdate(store, staged('big', pool.next()), 10_000 * chars),
    () => applyUpdate(store, staged('small', pool.next()), 100 * chars),
  );
  expect((await store.list('big')).length).toBe(10_000);
  expect((await store.list('small')).length).toBe(100);
  await store.deleteDatabase();
  const ratio = measured.a / measured.b;
  results.push({
    name: 'update-cost-10k-vs-100',
    value: round(ratio),
    unit: 'x',
    ratio: round(ratio),
    goal: '<= 1.5',
    detail: `median applied update (2 KiB, evicting one) ${round(measured.a)} ms with 10,000 entries vs ${round(measured.b)} ms with 100, ${RUNS} interleaved runs in one database`,
  });
});

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
