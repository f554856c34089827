import { openDB } from 'idb';
import { afterAll, expect, it } from 'vitest';
import { fileTools } from '../lib/agent/file-tools.js';
import { CompositeBackend } from '../lib/backends/composite-backend.js';
import { MemoryBackend } from '../lib/backends/memory-backend.js';
import { ToolOutputOffload } from '../lib/offload/tool-output-offload.js';
import type { Message } from '../lib/runtime/messages.js';
import type { HookContext, StateKey } from '../lib/runtime/middleware.js';
import type { ModelReply, ModelRequest } from '../lib/runtime/model.js';
import { type Tool, type ToolContext, tool } from '../lib/runtime/tool.js';
import { IndexedDbOffloadStore } from '../lib/store/indexeddb-store.js';
import { successText } from '../test/browser/fixtures/tool-context.js';
import { middlewareOf } from '../test/node/offload-fixtures.js';
import { type Blocking, blockingWhile, longest } from './blocking.js';
import { randomLines, TextPool } from './random-text.js';
import { type BenchResult, interleaved, median, record, timed } from './record.js';

/** The middleware path and the file tools as an agent uses them, over IndexedDB. Medians of RUNS runs. */
const RUNS = 25;
const MiB = 1 << 20;
const results: BenchResult[] = [];
const run = Date.now();

afterAll(() => record('offload', results));

const fetchPage: Tool = tool({
  name: 'fetch_page',
  description: 'Fetches a page.',
  parameters: { type: 'object' },
  execute: () => '',
});

function contexts(threadId: string, turnId: string, key: string): { tool: ToolContext; hook: HookContext } {
  const signal = new AbortController().signal;
  // Run events are not measured here; `emit` drops them.
  const common = { threadId, turnId, signal, state: {}, emit: () => {} };
  const tool = { ...common, idempotencyKey: key, approved: false };
  const hook = { ...common, step: 1, messages: [] };
  return { tool, hook };
}

/** One result through the middleware, as the runtime drives it: wrapToolCall stages it, the state update commits it. */
async function storeThroughMiddleware(offload: ToolOutputOffload, threadId: string, key: string, text: string) {
  const turnId = `turn-${key}`;
  const context = contexts(threadId, turnId, key);
  const call = { id: `call-${key}`, name: fetchPage.name, args: {} };
  const outcome = await middlewareOf(offload).wrapToolCall(
    { call, idempotencyKey: key, tool: fetchPage },
    async () => ({ type: 'success', content: [{ type: 'text', text }] }),
    context.tool,
  );
  const update = outcome.type === 'success' ? outcome.update?.[ToolOutputOffload.key] : undefined;
  if (!update) throw new Error(`${key} was not offloaded: ${JSON.stringify(outcome).slice(0, 300)}`);
  const stateKey = middlewareOf(offload).writes[ToolOutputOffload.key] as StateKey;
  await stateKey.apply!(stateKey.initial, update, context.hook);
}

it('read-page-1mib-ms: read_file of 100 lines from the middle of a 1 MiB stored result', async () => {
  const store = new IndexedDbOffloadStore({ name: `bench-read-${run}` });
  const offload = new ToolOutputOffload({ store });
  const text = randomLines(MiB, 100);
  await storeThroughMiddleware(offload, 'reader', 'big-result', text);
  const backend = new CompositeBackend(new MemoryBackend(), {
    [ToolOutputOffload.mount]: offload.backend('reader'),
  });
  const readFile = fileTools(backend).find((t) => t.name === 'read_file')!;
  const offset = Math.floor(MiB / 100 / 2);
  const args = { path: `${ToolOutputOffload.mount}big-result`, offset, limit: 100 };
  const context = contexts('reader', 'turn-read', 'read-call').tool;
  const page = successText(await readFile.execute(args, context));
  expect(page).toContain(`${offset + 1}\t${text.split('\n')[offset]}`);
  expect(page).toContain(`continue with read_file offset=${offset + 100}`);
  // Beside it, the floor: one raw idb get of the same 1 MiB text.
  const raw = await openDB(`bench-read-raw-${run}`, 1, { upgrade: (db) => db.createObjectStore('texts') });
  await raw.put('texts', text, 'text');
  const measured = await interleaved(
    RUNS,
    () => readFile.execute(args, context),
    () => raw.get('texts', 'text'),
  );
  raw.close();
  await store.deleteDatabase();
  results.push({
    name: 'read-page-1mib-ms',
    value: round(measured.a),
    unit: 'ms',
    goal: '<= 10',
    detail:
      `read_file through CompositeBackend + ToolOutputOffload.backend over IndexedDbOffloadStore, lines ${offset + 1}-${offset + 100} ` +
      `of 10486 (100 characters each), median of ${RUNS}; interleaved with it, one raw idb get of the same 1 MiB text took ${round(measured.b)} ms`,
  });
});

it('wrap-model-call-2mib-ms: wrapModelCall on a 200-message request holding 2 MiB of tool text', async () => {
  const offload = new ToolOutputOffload({ store: new IndexedDbOffloadStore({ name: `bench-wrap-${run}` }) });
  // 100 calls and their results; 99 results within the threshold, the last one over it (so it is cut, O9).
  const sizes = Array.from({ length: 100 }, (_, i) => (i < 99 ? 20_000 : 2 * MiB - 99 * 20_000));
  const messages: Message[] = sizes.flatMap((size, i): Message[] => [
    { role: 'assistant', id: `a${i}`, content: [], toolCalls: [{ id: `c${i}`, name: 'fetch_page', args: { i } }] },
    {
      role: 'tool',
      id: `t${i}`,
      toolCallId: `c${i}`,
      toolName: 'fetch_page',
      content: [{ type: 'text', text: randomLines(size, 120) }],
      isError: false,
    },
  ]);
  const request: ModelRequest = { systemPrompt: 'You are a test.', messages, tools: [fetchPage] };
  const context = { ...contexts('wrap', 'turn-wrap', 'k').hook, messages };
  let sent = 0;
  const next = async (r: ModelRequest): Promise<ModelReply> => {
    sent = r.messages.length;
    return { content: 'ok' };
  };
  await middlewareOf(offload).wrapModelCall(request, next, context);
  expect(sent).toBe(200);
  // Ten calls a run: one call is close to the clock's resolution.
  const ms =
    (await timed(RUNS, async () => {
      for (let i = 0; i < 10; i++) await middlewareOf(offload).wrapModelCall(request, next, context);
    })) / 10;
  results.push({
    name: 'wrap-model-call-2mib-ms',
    value: round(ms, 1000),
    unit: 'ms',
    goal: '<= 5',
    detail: `ToolOutputOffload.wrapModelCall, 200 messages (100 tool results, 2 MiB of text, one over the threshold and cut), no summary in state, median of ${RUNS} runs of 10 calls`,
  });
});

it('longest-task-ms: the longest main-thread task while storing 100 results of 1 MiB', async () => {
  const ROUNDS = 3;
  const store = new IndexedDbOffloadStore({ name: `bench-longtask-${run}` });
  const offload = new ToolOutputOffload({ store });
  const raw = await openDB(`bench-longtask-raw-${run}`, 1, { upgrade: (db) => db.createObjectStore('texts') });
  const pool = new TextPool(MiB);
  const viaMiddleware: Blocking[] = [];
  const viaRawPuts: Blocking[] = [];
  let made = 0;
  for (let round = 0; round < ROUNDS; round++) {
    viaMiddleware.push(
      await blockingWhile(async () => {
        for (let i = 0; i < 100; i++) await storeThroughMiddleware(offload, 'writer', `result-${made++}`, pool.next());
      }),
    );
    // The same writes as bare idb transactions (32 kept, as the bound keeps 32): the floor.
    viaRawPuts.push(
      await blockingWhile(async () => {
        for (let i = 0; i < 100; i++) {
          const tx = raw.transaction('texts', 'readwrite', { durability: 'strict' });
          await tx.store.put(pool.next(), i % 32);
          await tx.done;
        }
      }),
    );
  }
  expect(await store.totalBytes('writer')).toBeLessThanOrEqual(offload.limits.maxTotalBytes);
  expect((await store.list('writer')).length).toBe(Math.floor(offload.limits.maxTotalBytes / MiB));
  raw.close();
  await store.deleteDatabase();
  const describe = (b: Blocking) =>
    `${round(longest(b))} ms (${b.longTasks} long tasks, longest ${round(b.longestTask)}; longest timer gap ${round(b.longestGap)}; ${Math.round(b.ms)} ms in all)`;
  results.push({
    name: 'longest-task-ms',
    value: round(median(viaMiddleware.map(longest))),
    unit: 'ms',
    goal: '<= 50',
    detail:
      `median over ${ROUNDS} rounds of the longest main-thread block while 100 results of 1 MiB go through wrapToolCall + the ` +
      `state update (stage + commit, evicting past 32 MiB), measured by 'longtask' entries and a timer chain. Rounds: ` +
      `${viaMiddleware.map(describe).join('; ')}. The same 100 texts as bare idb puts, interleaved: ${viaRawPuts.map(describe).join('; ')}`,
  });
});

function round(value: number, scale = 100): number {
  return Math.round(value * scale) / scale;
}
