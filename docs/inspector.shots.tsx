// `npm run docs:screenshots`: the inspector over results stored by a real agent run, for the README.
import { expect, it } from 'vitest';
import { page } from 'vitest/browser';
import { IndexedDbOffloadStore, ToolOutputOffload } from '../lib/index.js';
import { CompositeBackend, createAgent, fileTools, MemoryBackend, type ToolCall, tool } from '../lib/agent.js';
import { scriptedModel } from '../lib/testing.js';
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

/** IndexedDB, as in an app: the header shows the origin's storage (navigator.storage.estimate()). */
async function storeFromRuns(): Promise<IndexedDbOffloadStore> {
  const store = new IndexedDbOffloadStore({ name: `inspector-shots-${Date.now()}` });
  const offload = new ToolOutputOffload({ store, thresholdTokens: 2000, maxResultBytes: 150_000, maxTotalBytes: bound });
  const call = (id: string, service: string, lines: number): ToolCall => ({
    id,
    name: 'search_logs',
    args: { service, lines },
  });
  for (const [threadId, services] of [
    ['support-chat', ['checkout', 'payments', 'search', 'inventory', 'checkout', 'auth']],
    ['ops-agent', ['gateway', 'payments', 'billing']],
  ] as const) {
    const steps = services.map((service, i) => ({ content: '', toolCalls: [call(`c${i}`, service, 400 + i * 350)] }));
    const agent = createAgent({
      model: scriptedModel([...steps, { content: 'done' }]),
      tools: [searchLogs, ...fileTools((ctx) => new CompositeBackend(new MemoryBackend(), { [ToolOutputOffload.mount]: offload.backend(ctx.threadId) }))],
      middleware: [offload],
    });
    await agent.run('Find the failing requests', { threadId });
  }
  return store;
}

it('renders the inspector for the README', async () => {
  await page.viewport(1280, 760);
  document.body.style.margin = '0';
  const store = await storeFromRuns();
  const view = mount({ store }, { bound });
  view.container.style.cssText = 'width: 1280px; height: 720px;';
  await until(() => expect(view.paths().length).toBeGreaterThan(3));
  await until(() => expect(view.one('.title').textContent).toContain('whole site on disk'));
  await page.screenshot({ path: 'inspector-entries.png', element: view.container });
  view.all('tbody tr.row')[1]!.click();
  await until(() => expect(view.all('.lt').length).toBeGreaterThan(5));
  await page.screenshot({ path: 'inspector-selected.png', element: view.container });
  button(view, view.all('[role="tab"]')[1]!.textContent!).click();
  await until(() => expect(view.all('.timeline li').length).toBeGreaterThan(0));
  await page.screenshot({ path: 'inspector-evictions.png', element: view.container });
  view.unmount();
  await store.deleteDatabase();
}, 120_000);
