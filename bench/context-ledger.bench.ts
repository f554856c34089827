import { expect, it } from 'vitest';
import { contextLedger } from '../lib/context.js';
import { type ContextMessage, type ContextRequest, IndexedDbOffloadStore, ToolOutputOffload } from '../lib/index.js';
import { median, record } from './record.js';

/**
 * `context-ledger-write-ms` (goal ≤ 1): what measuring and recording one model request adds to the
 * model call, median, in real Chromium over IndexedDbOffloadStore — `fitContext` on a thread's
 * growing request (40 to 240 messages, results under the threshold and previews, no budget: every
 * request is measured and written to the ledger, nothing is cleared). Each call is timed to when
 * the model call could go on; the ledger write it queued is then awaited (its 'request' event) before
 * the next call, so no write piles up behind the timed ones. The write's own time is in the detail.
 */
const calls = 200;
const threadId = 'ledger-bench';

const line = (i: number) => `line ${i} `.padEnd(99, 'lorem ipsum dolor sit amet ');
const resultText = (i: number) => Array.from({ length: 8 + (i % 30) }, (_, j) => line(i * 100 + j)).join('\n');

/** A conversation of `steps` tool calls, each answered by a result of 800–3,800 characters. */
function conversation(steps: number): ContextMessage[] {
  const messages: ContextMessage[] = [{ role: 'user', text: 'Look up the orders of each customer.' }];
  for (let i = 0; i < steps; i++) {
    const id = `call_${i}`;
    messages.push({ role: 'assistant', text: '', toolCalls: [{ id, name: 'fetch_orders', args: { customer: i } }] });
    messages.push({ role: 'tool', toolCallId: id, toolName: 'fetch_orders', text: resultText(i) });
  }
  return messages;
}

it('context-ledger-write-ms: the added cost of one model call, over IndexedDB', async () => {
  const store = new IndexedDbOffloadStore({ name: `bench-ledger-${Date.now()}` });
  const offload = new ToolOutputOffload({ store, ledger: contextLedger });
  const tools = [
    {
      name: 'fetch_orders',
      description: 'The orders of one customer.',
      parameters: { type: 'object', properties: { customer: { type: 'integer' } } },
    },
  ];
  const written = (step: number) =>
    new Promise<number>((resolve) => {
      const start = performance.now();
      const stop = store.subscribe((event) => {
        if (event.type === 'request' && event.threadId === threadId && event.step === step) {
          stop();
          resolve(performance.now() - start);
        }
      });
    });
  const fitTimes: number[] = [];
  const writeTimes: number[] = [];
  const base = conversation(240);
  for (let i = 0; i < calls + 10; i++) {
    const request: ContextRequest = {
      threadId,
      system: offload.systemPrompt(),
      tools,
      messages: base.slice(0, 1 + 2 * (20 + Math.floor(i / 2))),
    };
    const recorded = written(i + 1);
    const start = performance.now();
    await offload.fitContext(request);
    const fit = performance.now() - start;
    const write = await recorded;
    if (i >= 10) {
      fitTimes.push(fit);
      writeTimes.push(write);
    }
  }
  const ledger = await store.requests(threadId);
  expect(ledger).toHaveLength(calls + 10);
  expect(ledger.at(-1)!.results.length).toBeGreaterThan(100);
  await store.deleteDatabase();
  const value = Math.round(median(fitTimes) * 1000) / 1000;
  await record('context-ledger', [
    {
      name: 'context-ledger-write-ms',
      value,
      unit: 'ms',
      goal: '<= 1',
      detail:
        `median of ${calls} calls of fitContext on a request of 40–240 messages (results under the threshold; ` +
        `no budget: measured and written to the ledger) over IndexedDbOffloadStore; the queued write took ` +
        `${median(writeTimes).toFixed(2)} ms more (median), not waited for by the model call`,
    },
  ]);
});
