import { expect, it } from 'vitest';
import { commands } from 'vitest/browser';
import {
  CompositeBackend,
  createAgent,
  fileTools,
  MemoryBackend,
  type Message,
  type ModelReply,
  type ModelRequest,
  tool,
} from '../lib/agent.js';
import { estimateTokens, MemoryOffloadStore, ToolOutputOffload } from '../lib/index.js';
import { tokensChart } from './context-chart.js';
import { record } from './record.js';

/**
 * `context-tokens-vs-no-offload` (goal ≤ 0.1): estimated tokens sent to the model over a scripted
 * 40-step session with 30 large tool results, with ToolOutputOffload versus without it.
 * `stored-bytes-peak-vs-bound` (goal ≤ 1.0): the store's peak total against maxTotalBytes.
 * Also writes docs/context-tokens.svg (tokens per step, both sessions).
 */
const STEPS = 40;
const maxTotalBytes = 2 * 1024 * 1024;
const threadId = 'context-savings';

/** Steps 5, 9, …, 37 read a stored result back; step 40 answers; the other 30 return a large result. */
const isReadBack = (step: number) => step % 4 === 1 && step > 1;
const resultChars = (step: number) => 100_000 + ((step * 7919) % 10) * 35_000;

/** A step's result: numbered lines of 100 characters, `resultChars(step)` long (only its size matters here). */
const textFor = (step: number) => {
  const line = (i: number) => `step ${step} line ${i} `.padEnd(99, 'lorem ipsum dolor sit amet ');
  const lines = Array.from({ length: Math.ceil(resultChars(step) / 100) }, (_, i) => line(i));
  return `${lines.join('\n')}\n`.slice(0, resultChars(step));
};

const fetchPage = tool<{ step: number }>({
  name: 'fetch_page',
  description: 'Fetch a page (here: a large generated text per step).',
  parameters: { type: 'object', properties: { step: { type: 'integer' } }, required: ['step'] },
  execute: ({ step }) => textFor(step),
});

/** Everything the model is sent, as text: the system prompt, each message's text and its tool calls. */
function requestTokens(request: ModelRequest): number {
  const parts = [request.systemPrompt];
  for (const message of request.messages) {
    for (const part of message.content) if (part.type === 'text') parts.push(part.text);
    if (message.role === 'assistant' && message.toolCalls.length > 0) parts.push(JSON.stringify(message.toolCalls));
  }
  return estimateTokens(parts.join('\n'));
}

function lastStoredPath(messages: readonly Message[]): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role !== 'tool') continue;
    const text = message.content.map((p) => (p.type === 'text' ? p.text : '')).join('\n');
    const path = /^Path: (\/large_tool_results\/\S+)$/m.exec(text)?.[1];
    if (path) return path;
  }
  return undefined;
}

/** The scripted session: step n of the model's 40 is decided by how many it has made (a pure function of the request). */
function sessionModel(perStep: number[]) {
  return async (request: ModelRequest): Promise<ModelReply> => {
    perStep.push(requestTokens(request));
    const step = request.messages.filter((m) => m.role === 'assistant').length + 1;
    if (step === STEPS) return { content: 'Done.' };
    const id = `call_${step}`;
    if (isReadBack(step)) {
      // With the offload: a page of the newest stored result. Without it the text is already in the context: a small note.
      const path = lastStoredPath(request.messages) ?? '/notes.txt';
      return { content: '', toolCalls: [{ id, name: 'read_file', args: { path, offset: 500, limit: 40 } }] };
    }
    return { content: '', toolCalls: [{ id, name: 'fetch_page', args: { step } }] };
  };
}

async function runSession(offload: ToolOutputOffload | undefined) {
  const perStep: number[] = [];
  const notes = new MemoryBackend({ '/notes.txt': `${'a short note\n'.repeat(600)}` });
  const backend = offload
    ? (context: { threadId: string }) =>
        new CompositeBackend(notes, { [ToolOutputOffload.mount]: offload.backend(context.threadId) })
    : notes;
  const middleware = offload ? [offload] : [];
  const agent = createAgent({
    model: sessionModel(perStep),
    tools: [fetchPage, ...fileTools(backend)],
    middleware,
    systemPrompt: 'You are a research agent. Fetch what you need and read it back when needed.',
    maxSteps: STEPS,
  });
  const result = await agent.run('Research the pages, one per step.', { threadId });
  expect(result.status).toBe('completed');
  expect(perStep).toHaveLength(STEPS);
  return { perStep, messages: result.messages };
}

it('context-tokens-vs-no-offload and stored-bytes-peak-vs-bound over a 40-step session', async () => {
  const store = new MemoryOffloadStore();
  let peak = 0;
  store.subscribe((event) => {
    if (event.type !== 'request' && event.threadId === threadId) peak = Math.max(peak, event.totalBytes);
  });
  const offload = new ToolOutputOffload({ store, maxTotalBytes });
  const withOffload = await runSession(offload);
  const without = await runSession(undefined);

  // The session did what it says: 30 large results offloaded, pages read back, the bound enforced.
  const large = Array.from({ length: STEPS }, (_, i) => i + 1).filter((s) => s < STEPS && !isReadBack(s));
  expect(large).toHaveLength(30);
  const stored = withOffload.messages.filter((m) => m.role === 'tool' && m.toolName === 'fetch_page');
  expect(stored.every((m) => /^\[Stored tool result\]/.test((m.content[0] as { text: string }).text))).toBe(true);
  const reads = withOffload.messages.filter((m) => m.role === 'tool' && m.toolName === 'read_file');
  expect(reads.filter((m) => m.role === 'tool' && !m.isError)).toHaveLength(9);
  const evictions = await store.evictions(threadId);
  expect(evictions.length).toBeGreaterThan(0);
  expect(await store.totalBytes(threadId)).toBeLessThanOrEqual(maxTotalBytes);

  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
  const tokensWith = sum(withOffload.perStep);
  const tokensWithout = sum(without.perStep);
  const ratio = tokensWith / tokensWithout;
  const originalBytes = large.reduce((total, step) => total + resultChars(step), 0);
  await record('context-savings', [
    {
      name: 'context-tokens-vs-no-offload',
      value: round(ratio),
      unit: 'x',
      ratio: round(ratio),
      goal: '<= 0.1',
      detail:
        `${tokensWith.toLocaleString('en')} vs ${tokensWithout.toLocaleString('en')} estimated tokens sent over ${STEPS} model steps; ` +
        `30 tool results of 100–415 KB (${(originalBytes / 1e6).toFixed(1)} MB), 9 read_file pages, thresholdTokens 20000, MemoryOffloadStore`,
    },
    {
      name: 'stored-bytes-peak-vs-bound',
      value: round(peak / maxTotalBytes),
      unit: 'x',
      ratio: round(peak / maxTotalBytes),
      goal: '<= 1.0',
      detail: `peak ${peak.toLocaleString('en')} stored bytes against maxTotalBytes ${maxTotalBytes.toLocaleString('en')}; ${evictions.length} evictions (reason bound)`,
    },
  ]);
  await commands.writeFile(
    'docs/context-tokens.svg',
    tokensChart(
      'Tokens sent to the model per step',
      `40-step session, 30 tool results of 100–415 KB: ${tokensWith.toLocaleString('en')} tokens in all with the offload, ${tokensWithout.toLocaleString('en')} without (${(ratio * 100).toFixed(1)}%)`,
      [
        { label: 'without offload', color: '#c2410c', values: without.perStep },
        { label: 'with ToolOutputOffload (maxTotalBytes 2 MiB)', color: '#0f7a4a', values: withOffload.perStep },
      ],
    ),
  );
  expect(ratio).toBeLessThanOrEqual(0.1);
  expect(peak).toBeLessThanOrEqual(maxTotalBytes);
});

function round(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}
