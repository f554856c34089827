import { afterAll, expect, it } from 'vitest';
import { IndexedDbOffloadStore, ToolOutputOffload } from '../lib/index.js';
import { utf8Bytes } from '../lib/shared/text.js';
import { reachedFraction, readBack, readers } from '../test/browser/fixtures/read-back.js';
import { readbackCorpus } from './readback-corpus.js';
import { type BenchResult, record } from './record.js';

/**
 * Reading every stored byte back (B5, O14): each corpus item is offloaded, then read by a scripted
 * reader that follows only the preview's call and each page's closing call, through every read_file
 * the package offers (the built-in agent's, `offload.readTools()`, the AI SDK's and LangChain's).
 * Tokens are the offload's estimate (four characters a token), the measure the pages are held to.
 */
const results: BenchResult[] = [];
afterAll(() => record('readback', results));

const round = (value: number) => Math.round(value * 1000) / 1000;
/** A page: the smaller of the read tools' page (5,000 tokens) and the threshold (default 20,000). */
const pageTokens = 5000;

it('readback: every character reached, tokens and calls close to the stored text', async () => {
  const store = new IndexedDbOffloadStore({ name: `bench-readback-${Date.now()}` });
  const offload = new ToolOutputOffload({ store, maxResultBytes: 4 << 20, maxTotalBytes: 64 << 20 });
  const thread = 'readback';
  let worstReached = 1;
  let worstItemTokens = 0;
  let worstCalls = 0;
  let worstCorpusTokens = 0;
  const rows: string[] = [];
  const corpus = Object.entries(readbackCorpus());
  const perReader = new Map<string, { read: number; stored: number }>();
  for (const [name, text] of corpus) {
    expect(utf8Bytes(text)).toBeGreaterThanOrEqual(100_000);
    expect(utf8Bytes(text)).toBeLessThanOrEqual(2_100_000);
    const shown = await offload.offloadResult({ threadId: thread, callId: name, toolName: 'fetch', content: text });
    expect(shown.kind).toBe('stored');
    const stored = await store.read(thread, shown.path!.split('/').pop()!);
    const storedTokens = Math.ceil(stored.length / 4);
    const pages = Math.ceil(storedTokens / pageTokens);
    for (const [reader, readFile] of Object.entries(readers(offload, thread))) {
      const read = await readBack(shown.text, readFile);
      const reached = reachedFraction(stored, read);
      const tokens = Math.ceil(read.chars / 4) / storedTokens;
      const calls = read.calls / pages;
      worstReached = Math.min(worstReached, reached);
      worstItemTokens = Math.max(worstItemTokens, tokens);
      worstCalls = Math.max(worstCalls, calls);
      const sum = perReader.get(reader) ?? { read: 0, stored: 0 };
      perReader.set(reader, { read: sum.read + read.chars, stored: sum.stored + stored.length });
      if (reader === 'offload.readTools()') {
        rows.push(
          `${name}: ${stored.length} chars stored, reached ${round(reached)}, tokens ${round(tokens)}×, ${read.calls} calls for ${pages} pages`,
        );
      }
    }
  }
  for (const { read, stored } of perReader.values()) worstCorpusTokens = Math.max(worstCorpusTokens, read / stored);
  await store.deleteDatabase();
  const detail = `${corpus.length} items × 4 read_file tools (the worst of them); ${rows.join('; ')}`;
  results.push(
    { name: 'readback-reachable-fraction', value: round(worstReached), unit: 'fraction', goal: '>= 1', detail },
    {
      name: 'readback-tokens-vs-text',
      value: round(worstCorpusTokens),
      unit: 'ratio',
      goal: '<= 1.15',
      detail: 'tokens of the preview and every page read, over the stored text, the whole corpus',
    },
    {
      name: 'readback-tokens-vs-text-worst-item',
      value: round(worstItemTokens),
      unit: 'ratio',
      goal: '<= 1.25',
      detail: 'the same, for the item that costs most',
    },
    {
      name: 'readback-calls-vs-pages',
      value: round(worstCalls),
      unit: 'ratio',
      goal: '<= 1.2',
      detail: `read_file calls over ⌈text tokens ÷ ${pageTokens}⌉, the worst item`,
    },
  );
  console.log(detail, results.map((r) => `${r.name}=${r.value}`).join(' '));
}, 600_000);
