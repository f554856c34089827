// `npm run docs:screenshots`: the inspector over results stored by real agent runs, for the README
// and inspector/README.md (docs/inspector-*.png).
import { expect, it } from 'vitest';
import { page } from 'vitest/browser';
import { contextLedger } from '../lib/context.js';
import { IndexedDbOffloadStore, ToolOutputOffload } from '../lib/index.js';
import { CompositeBackend, createAgent, fileTools, MemoryBackend, type ToolCall, tool } from '../lib/agent.js';
import { scriptedModel } from '../lib/testing.js';
import { bars, openContext } from '../test/browser/inspector-context-fixtures.js';
import { button, mount, until } from '../test/browser/inspector-fixtures.js';

const bound = 400_000;

function logLines(count: number, service: string): string {
  return Array.from(
    { length: count },
    (_, i) =>
      `2026-11-29T10:${String(i % 60).padStart(2, '0')}:${String((i * 7) % 60).padStart(2, '0')}Z ${service} ${i % 13 ? 'INFO' : 'WARN'} request=${1000 + i} path=/api/v2/orders/${i * 31} status=${i % 13 ? 200 : 503} ms=${(i * 37) % 900}`,
  ).join('\n');
}

const searchLogs = tool<{ service: string; lines: number }>({
  name: 'search_logs',
  description: 'Searches the service logs.',
  parameters: {
    type: 'object',
    properties: { service: { type: 'string' }, lines: { type: 'integer' } },
    required: ['service', 'lines'],
  },
  execute: ({ service, lines }) => logLines(lines, service),
});

const call = (id: string, service: string, lines: number): ToolCall => ({
  id,
  name: 'search_logs',
  args: { service, lines },
});

/** One thread's run: a search_logs call of `lines[i]` lines a step, then the answer. */
async function run(offload: ToolOutputOffload, threadId: string, lines: readonly number[]): Promise<void> {
  const services = ['checkout', 'payments', 'search', 'inventory', 'auth', 'gateway', 'billing'];
  const steps = lines.map((count, i) => ({
    content: '',
    toolCalls: [call(`c${i}`, services[i % services.length]!, count)],
  }));
  const agent = createAgent({
    model: scriptedModel([...steps, { content: 'done' }]),
    tools: [
      searchLogs,
      ...fileTools(
        (ctx) =>
          new CompositeBackend(new MemoryBackend(), { [ToolOutputOffload.mount]: offload.backend(ctx.threadId) }),
      ),
    ],
    middleware: [offload],
  });
  await agent.run('Find the failing requests', { threadId });
}

/**
 * IndexedDB, as in an app: the header shows the origin's storage (navigator.storage.estimate()).
 * Two threads fill the bound (evictions); a third runs under a context budget of 8,000 tokens long
 * enough that its oldest results are cleared (pointers in the ledger, cleared marks in the list).
 */
async function storeFromRuns(): Promise<IndexedDbOffloadStore> {
  const store = new IndexedDbOffloadStore({ name: `inspector-shots-${Date.now()}` });
  const options = { store, thresholdTokens: 2000, maxResultBytes: 150_000, maxTotalBytes: bound, ledger: contextLedger };
  const offload = new ToolOutputOffload(options);
  await run(offload, 'support-chat', [400, 750, 1100, 1450, 1800, 2150]);
  await run(offload, 'ops-agent', [400, 750, 1100]);
  // Results of 30–50 lines (about 650–1,100 tokens) are shown whole, those of 100–115 stored with a
  // preview: without the offload the last request would carry about 23,000 tokens.
  const budgeted = new ToolOutputOffload({ ...options, contextBudget: { maxRequestTokens: 8000 } });
  await run(budgeted, 'research-agent', [40, 105, 45, 35, 115, 50, 40, 100, 45, 30, 110, 50, 40, 35, 105, 40]);
  return store;
}

it('renders the inspector for the README', async () => {
  // 1440 px: wide enough for the preview beside the stored text (each needs 440 px).
  await page.viewport(1440, 760);
  document.body.style.margin = '0';
  const store = await storeFromRuns();
  const view = mount({ store }, { bound });
  view.container.style.cssText = 'width: 1440px; height: 720px;';
  await until(() => expect(view.paths().length).toBeGreaterThan(3));
  await until(() => expect(view.one('.title').textContent).toContain('whole site on disk'));
  // The budgeted thread's entries are marked once the store's clearings are read.
  await until(() => expect(view.all('.cleared-mark').length).toBeGreaterThan(3));
  await page.screenshot({ path: 'inspector-entries.png', element: view.container });
  // An entry whose preview the model was shown (a cleared entry's preview is its pointer).
  view
    .all('tbody tr.row')
    .find((row) => row.textContent!.includes('ops-agent'))!
    .click();
  await until(() => expect(view.all('.lt').length).toBeGreaterThan(5));
  await page.screenshot({ path: 'inspector-selected.png', element: view.container });
  view.one('button[aria-label="Close details"]').click();
  button(view, view.all('[role="tab"]')[1]!.textContent!).click();
  await until(() => expect(view.all('.timeline li').length).toBeGreaterThan(0));
  await page.screenshot({ path: 'inspector-evictions.png', element: view.container });
  await openContext(view);
  expect(bars(view).length).toBeGreaterThan(10);
  await until(() => expect(view.all('.ctx-results .ctx-shown-pointer').length).toBeGreaterThan(0));
  expect(view.all('.ctx-budget').length).toBe(1);
  expect(view.all('.ctx-without').length).toBe(1);
  await page.screenshot({ path: 'inspector-context.png', element: view.container });
  view.unmount();
  await store.deleteDatabase();
}, 120_000);
