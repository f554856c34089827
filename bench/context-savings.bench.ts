import { expect, it } from 'vitest';
import { commands } from 'vitest/browser';
import type { Message } from '../lib/agent.js';
import { contextLedger } from '../lib/context.js';
import { MemoryOffloadStore, ToolOutputOffload } from '../lib/index.js';
import { tokensChart } from './context-chart.js';
import { kindOf, pageChars, prefixStableShare, round, runSession, STEPS, threadId } from './context-session.js';
import { record } from './record.js';

/**
 * The context session: 100 scripted model steps whose tools return results under and over the
 * threshold (60 pages of 100–415 KB, 20 small records of 1–6 KB), with read-backs, run three times
 * side by side — without the offload, with it, and with it and `contextBudget: { maxRequestTokens:
 * 8000 }` (a small on-device model's window).
 * - `context-tokens-vs-no-offload` (≤ 0.1): tokens sent over the session, offload against none.
 * - `stored-bytes-peak-vs-bound` (≤ 1.0): the store's peak total against maxTotalBytes.
 * - `context-budget-max-request-vs-budget` (≤ 1.0): the largest request with the budget, against it.
 * - `context-tokens-budget-vs-offload` (≤ 0.5): tokens sent with the budget, against the offload alone.
 * - `context-prefix-stable-steps` (≥ 0.8): with the budget, the share of consecutive requests whose
 *   earlier request is an exact prefix of the later one (what a prompt cache reuses).
 * Requests are measured as the budget measures them (C1): the system prompt, each message's text,
 * each tool call's arguments and each tool spec, each estimated on its own.
 * Also writes docs/context-tokens.svg (tokens per step, the three sessions).
 */
const maxTotalBytes = 2 * 1024 * 1024;
const budget = 8000;

it('the context session, 100 steps: without the offload, with it, and with a context budget of 8,000 tokens', async () => {
  const store = new MemoryOffloadStore();
  let peak = 0;
  store.subscribe((event) => {
    if (event.threadId === threadId && 'totalBytes' in event) peak = Math.max(peak, event.totalBytes);
  });
  const offload = new ToolOutputOffload({ store, maxTotalBytes, ledger: contextLedger });
  const budgetStore = new MemoryOffloadStore();
  const budgeted = new ToolOutputOffload({
    store: budgetStore,
    maxTotalBytes,
    ledger: contextLedger,
    contextBudget: { maxRequestTokens: budget },
  });
  const withOffload = await runSession(offload);
  const withBudget = await runSession(budgeted);
  const without = await runSession(undefined);

  // The session did what it says: 60 large results offloaded, 20 small ones kept, pages read back, the bound enforced.
  const steps = Array.from({ length: STEPS }, (_, i) => i + 1);
  const pages = steps.filter((step) => kindOf(step) === 'page');
  expect(pages).toHaveLength(60);
  expect(steps.filter((step) => kindOf(step) === 'record')).toHaveLength(20);
  const stored = withOffload.messages.filter((m) => m.role === 'tool' && m.toolName === 'fetch_page');
  expect(stored.every((m) => /^\[Stored tool result\]/.test((m.content[0] as { text: string }).text))).toBe(true);
  const reads = withOffload.messages.filter((m) => m.role === 'tool' && m.toolName === 'read_file');
  expect(reads.filter((m) => m.role === 'tool' && !m.isError)).toHaveLength(19);
  const evictions = await store.evictions(threadId);
  expect(evictions.length).toBeGreaterThan(0);
  expect(await store.totalBytes(threadId)).toBeLessThanOrEqual(maxTotalBytes);
  // The budget cleared results from the requests only: the thread's history keeps every result as the offload showed it.
  const shape = (messages: readonly Message[]) =>
    messages.map((m) => `${m.role}:${m.role === 'tool' ? m.toolName : ''}`);
  expect(shape(withBudget.messages)).toEqual(shape(withOffload.messages));
  const texts = withBudget.messages.flatMap((m) => m.content.map((p) => (p.type === 'text' ? p.text : '')));
  expect(texts.some((text) => text.startsWith('[Cleared from context]'))).toBe(false);
  const cleared = await budgetStore.cleared(threadId);
  expect(cleared.length).toBeGreaterThan(0);

  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
  const tokensWith = sum(withOffload.perStep);
  const tokensWithout = sum(without.perStep);
  const tokensBudget = sum(withBudget.perStep);
  const ratio = tokensWith / tokensWithout;
  const largest = Math.max(...withBudget.perStep);
  const stable = prefixStableShare(withBudget.requests);
  const unstable = Math.round((1 - stable) * (STEPS - 1));
  const clearings = new Set(cleared.map((record) => record.step)).size;
  const shownPreviews = (await budgetStore.requests(threadId)).flatMap((entry) =>
    entry.results.filter((result) => result.shownAs === 'preview').map((result) => result.tokens),
  );
  const previews = pages.length;
  const previewTokens = Math.round(sum(shownPreviews) / Math.max(1, shownPreviews.length));
  const originalBytes = pages.reduce((total, step) => total + pageChars(step), 0);
  const session = `${STEPS} model steps; 60 tool results of 100–415 KB (${(originalBytes / 1e6).toFixed(1)} MB), 20 of 1–6 KB, 19 read_file pages; thresholdTokens 20000, MemoryOffloadStore`;
  await record('context-savings', [
    {
      name: 'context-tokens-vs-no-offload',
      value: round(ratio),
      unit: 'x',
      ratio: round(ratio),
      goal: '<= 0.1',
      detail: `${tokensWith.toLocaleString('en')} vs ${tokensWithout.toLocaleString('en')} estimated tokens sent over ${session}`,
    },
    {
      name: 'stored-bytes-peak-vs-bound',
      value: round(peak / maxTotalBytes),
      unit: 'x',
      ratio: round(peak / maxTotalBytes),
      goal: '<= 1.0',
      detail: `peak ${peak.toLocaleString('en')} stored bytes against maxTotalBytes ${maxTotalBytes.toLocaleString('en')}; ${evictions.length} evictions (reason bound)`,
    },
    {
      name: 'context-budget-max-request-vs-budget',
      value: round(largest / budget),
      unit: 'x',
      ratio: round(largest / budget),
      goal: '<= 1.0',
      detail: `the largest request ${largest.toLocaleString('en')} estimated tokens against maxRequestTokens ${budget.toLocaleString('en')}; ${cleared.length} results cleared over ${session}`,
    },
    {
      name: 'context-tokens-budget-vs-offload',
      value: round(tokensBudget / tokensWith),
      unit: 'x',
      ratio: round(tokensBudget / tokensWith),
      goal: '<= 0.5',
      detail: `${tokensBudget.toLocaleString('en')} vs ${tokensWith.toLocaleString('en')} estimated tokens sent, with contextBudget { maxRequestTokens: ${budget} } and without, over ${session}`,
    },
    {
      name: 'context-prefix-stable-steps',
      value: round(stable),
      unit: 'x',
      ratio: round(stable),
      goal: '>= 0.8',
      detail: `share of the ${STEPS - 1} consecutive requests (with the budget) whose earlier request is an exact prefix of the later one (system prompt and messages); default clearAtLeastTokens ${budget / 4}`,
      unmet: `${unstable} of the ${STEPS - 1} requests change what came before; ${clearings} requests cleared results (each changes the request from the oldest result it clears on, and a merge of pointers (C10) comes only with a clearing). The goal needs at most ${Math.floor((STEPS - 1) * 0.2)}: one clearing fewer. Each clearing frees at least clearAtLeastTokens (${budget / 4}, a quarter of the budget, SPEC's default), so their number follows what the session adds: ${previews} previews of about ${previewTokens} tokens each (the header with the exact read_file call and the first lines), the records shown whole and the pages read back. The previews grew with the headers that say how to read the rest (0.818 before them); left: a shorter header, or a larger default clearAtLeastTokens, trade the model's words or the SPEC's default for this figure.`,
    },
  ]);
  await commands.writeFile(
    'docs/context-tokens.svg',
    tokensChart(
      'Tokens sent to the model per step',
      `${STEPS}-step session: ${tokensWithout.toLocaleString('en')} tokens in all without the offload, ${tokensWith.toLocaleString('en')} with it, ${tokensBudget.toLocaleString('en')} with a budget of ${budget.toLocaleString('en')} a request`,
      [
        { label: 'without offload', color: '#c2410c', values: without.perStep },
        { label: 'with ToolOutputOffload (maxTotalBytes 2 MiB)', color: '#0f7a4a', values: withOffload.perStep },
        {
          label: `with contextBudget (maxRequestTokens ${budget.toLocaleString('en')})`,
          color: '#1d4ed8',
          values: withBudget.perStep,
        },
      ],
    ),
  );
  expect(ratio).toBeLessThanOrEqual(0.1);
  expect(peak).toBeLessThanOrEqual(maxTotalBytes);
});
