import { afterAll, expect, it } from 'vitest';
import { cdp } from 'vitest/browser';
import { OffloadBackend } from '../lib/offload/offload-backend.js';
import { ToolOutputOffload } from '../lib/offload/tool-output-offload.js';
import { IndexedDbOffloadStore } from '../lib/store/indexeddb-store.js';
import { result } from '../test/browser/fixtures/staged-result.js';
import { randomLines } from './random-text.js';
import { type BenchResult, interleaved, median, record } from './record.js';

/**
 * Memory and time of the two things that touch a whole 32 MiB text: `offloadResult` (key hash,
 * chunking, staging, commit) and `grep` over it once stored. Memory is Chromium's own counter of the
 * renderer's JavaScript memory, `Runtime.getHeapUsage` over CDP: the V8 heap as committed plus the
 * backing stores of ArrayBuffers (a TextEncoder's output lives there), sampled back to back while
 * the operation runs, against a sample taken after a garbage collection with the text already held.
 */
const MiB = 1 << 20;
const SIZE = 32 * MiB;
const ROUNDS = 5;
const results: BenchResult[] = [];

afterAll(() => record('memory', results));

const round = (value: number) => Math.round(value * 100) / 100;

/**
 * The text as one flat string: randomLines ends with a concatenation, which V8 keeps as a rope
 * until something reads it, and flattening it there would count as the operation's memory.
 */
function flatText(text: string): string {
  return new TextDecoder().decode(new TextEncoder().encode(text));
}

interface HeapUsage {
  totalSize: number;
  backingStorageSize?: number;
}

/**
 * The V8 heap as committed (`totalSize`, not `usedSize`) plus ArrayBuffers' backing stores: a large
 * string or buffer made and dropped within one task keeps its pages committed until the next
 * collection, so a sample after that task still sees it.
 */
async function heapNow(): Promise<number> {
  const usage = (await cdp().send('Runtime.getHeapUsage')) as HeapUsage;
  return usage.totalSize + (usage.backingStorageSize ?? 0);
}

async function collectGarbage(): Promise<void> {
  await cdp().send('HeapProfiler.collectGarbage');
}

/**
 * The most memory above the baseline (taken after a collection) seen while `operation` runs, in
 * bytes, with the samples taken. Samples are CDP round trips: each lands between the page's tasks,
 * so the operation's awaits are where it is seen.
 */
async function peakDuring(operation: () => Promise<unknown>): Promise<{ peak: number; samples: number }> {
  await collectGarbage();
  const baseline = await heapNow();
  let running = true;
  let peak = baseline;
  let samples = 0;
  const sampler = (async () => {
    while (running) {
      peak = Math.max(peak, await heapNow());
      samples++;
    }
  })();
  try {
    await operation();
  } finally {
    running = false;
    await sampler;
  }
  // One sample right after: what the operation left (freed or not) before a collection.
  peak = Math.max(peak, await heapNow());
  return { peak: peak - baseline, samples };
}

it('offload-result-32mib-peak-vs-text: memory peak while offloadResult stores a 32 MiB text', async () => {
  /** Peaks of `ROUNDS` rounds, each into a store of its own (nothing evicted), of texts made by `make`. */
  const peaksOf = async (make: () => string): Promise<number[]> => {
    const peaks: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const store = new IndexedDbOffloadStore({ name: `bench-memory-offload-${Date.now()}-${r}` });
      const offload = new ToolOutputOffload({ store, maxResultBytes: SIZE, maxTotalBytes: SIZE });
      let text: string | undefined = make();
      expect(text.length).toBe(SIZE);
      const { peak } = await peakDuring(async () => {
        const done = await offload.offloadResult({
          threadId: 'memory',
          callId: `call-${r}`,
          toolName: 'fetch',
          content: text!,
        });
        expect(done.stored).toBe(true);
      });
      text = undefined;
      peaks.push(peak);
      await offload.close();
      await store.deleteDatabase();
    }
    return peaks;
  };
  // As a tool's text often comes: joined from parts, a rope V8 flattens when it is first sliced.
  const joined = await peaksOf(() => randomLines(SIZE, 100));
  // Already flat (as fetch's text() gives it).
  const flat = await peaksOf(() => flatText(randomLines(SIZE, 100)));
  // Into a store the text fills: its commit evicts the result stored before it.
  const store = new IndexedDbOffloadStore({ name: `bench-memory-offload-full-${Date.now()}` });
  const offload = new ToolOutputOffload({ store, maxResultBytes: SIZE, maxTotalBytes: SIZE });
  const offer = (callId: string, content: string) =>
    offload.offloadResult({ threadId: 'memory', callId, toolName: 'fetch', content });
  await offer('first', flatText(randomLines(SIZE, 100)));
  let text: string | undefined = flatText(randomLines(SIZE, 100));
  const evicting = (await peakDuring(() => offer('second', text!))).peak;
  text = undefined;
  expect(await store.evictions('memory')).toHaveLength(1);
  await offload.close();
  await store.deleteDatabase();
  const shown = (peaks: number[]) =>
    `${round(median(peaks) / SIZE)}× [${peaks.map((p) => `${round(p / MiB)} MiB`).join(', ')}]`;
  const value = median(joined) / SIZE;
  results.push({
    name: 'offload-result-32mib-peak-vs-text',
    value: round(value),
    unit: '×',
    ratio: round(value),
    goal: '<= 1.5',
    detail:
      `median over ${ROUNDS} rounds of the renderer's JavaScript memory peak (CDP Runtime.getHeapUsage: totalSize + backingStorageSize, ` +
      `sampled back to back) above a collected baseline holding the text, over the text's size, while ToolOutputOffload.offloadResult ` +
      `stores a 32 MiB text (lines of 100 characters, one UTF-8 byte a character) on an empty IndexedDbOffloadStore (a new one each ` +
      `round): the text joined from parts (a rope) ${shown(joined)}; the text flat ${shown(flat)}; a flat text into a store it fills, ` +
      `whose commit evicts the 32 MiB result before it: ${round(evicting / MiB)} MiB (${round(evicting / SIZE)}×)`,
  });
});

it('grep-32mib-peak-heap-vs-text and grep-32mib-vs-native: grep over a 32 MiB stored text', async () => {
  const store = new IndexedDbOffloadStore({ name: `bench-memory-grep-${Date.now()}` });
  const threadId = 'grep';
  const key = 'big';
  // Lines of 100 characters, with a line holding the literal searched for every 4 MiB.
  const lines = randomLines(SIZE, 100).split('\n');
  for (let i = 0; i < lines.length; i += 41_943) lines[i] = `needle-${i}${lines[i]!.slice(12)}`;
  let text: string | undefined = lines.join('\n');
  lines.length = 0;
  await store.stage(result(threadId, key, text, 'turn'));
  await store.apply({ type: 'commit', threadId, key, turnId: 'turn', maxTotalBytes: SIZE + MiB });
  const expected = text.split('\n').flatMap((line, i) => (line.startsWith('needle-') ? [i + 1] : []));
  text = undefined;
  const backend = new OffloadBackend(store, threadId);
  const pattern = 'needle-\\d+';

  const found = await backend.grep(pattern);
  expect(found.map((m) => m.line)).toEqual(expected);

  // The floor: the same stored text read whole (one transaction), searched by a native RegExp.
  const native = async () => {
    const whole = await store.read(threadId, key);
    const regex = new RegExp(pattern, 'g');
    const hits: number[] = [];
    let line = 1;
    let counted = 0;
    for (let m = regex.exec(whole); m !== null; m = regex.exec(whole)) {
      for (let i = whole.indexOf('\n', counted); i !== -1 && i < m.index; i = whole.indexOf('\n', i + 1)) line++;
      counted = m.index;
      hits.push(line);
      const end = whole.indexOf('\n', m.index);
      if (end === -1) break;
      regex.lastIndex = end + 1;
    }
    return hits;
  };
  expect(await native()).toEqual(expected);

  const heapPeaks: number[] = [];
  for (let r = 0; r < ROUNDS; r++) heapPeaks.push((await peakDuring(() => backend.grep(pattern))).peak);
  const nativePeaks: number[] = [];
  for (let r = 0; r < ROUNDS; r++) nativePeaks.push((await peakDuring(native)).peak);
  const heap = median(heapPeaks) / SIZE;
  results.push({
    name: 'grep-32mib-peak-heap-vs-text',
    value: round(heap),
    unit: '×',
    ratio: round(heap),
    goal: '<= 1.5',
    detail:
      `median over ${ROUNDS} rounds of the renderer's JavaScript memory peak (CDP Runtime.getHeapUsage: totalSize + backingStorageSize, ` +
      `sampled back to back) above a collected baseline while OffloadBackend.grep(${JSON.stringify(pattern)}) searches one ` +
      `32 MiB result on IndexedDbOffloadStore (lines of 100 characters), over the text's size: ` +
      `${heapPeaks.map((p) => `${round(p / MiB)} MiB`).join(', ')}; the native floor (the text read whole, one RegExp): ` +
      `${round(median(nativePeaks) / SIZE)}× [${nativePeaks.map((p) => `${round(p / MiB)} MiB`).join(', ')}]`,
  });

  const times = await interleaved(25, () => backend.grep(pattern), native, 2);
  const ratio = times.a / times.b;
  results.push({
    name: 'grep-32mib-vs-native',
    value: round(ratio),
    unit: '×',
    ratio: round(ratio),
    goal: '<= 1.2',
    detail:
      `median of 25 runs each, alternately: OffloadBackend.grep(${JSON.stringify(pattern)}) over one 32 MiB result on ` +
      `IndexedDbOffloadStore (lines of 100 characters, 8 matching lines) ${Math.round(times.a)} ms, against the same ` +
      `stored text read whole (store.read, one transaction) and searched by a native RegExp ('g', line numbers ` +
      `counted) ${Math.round(times.b)} ms`,
  });
  await store.deleteDatabase();
});
