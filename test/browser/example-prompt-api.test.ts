// examples/prompt-api-page over the stand-in LanguageModel (the explainer at 2e27365, 2026-06-22;
// fixtures/prompt-api-model.ts): the model reads the report with the page's tool, greps a line of it
// back from the stored result, and the page shows the answer and the inspector the stored report; a
// browser without the model gets a page that says so.
import { afterEach, expect, it } from 'vitest';
import { startPage } from '../../examples/prompt-api-page/page.js';
import { MemoryOffloadStore } from '../../lib/index.js';
import { type ModelScript, standInLanguageModel } from './fixtures/prompt-api-model.js';

const roots: HTMLElement[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) root.remove();
});
function mount(): HTMLElement {
  const root = document.createElement('div');
  document.body.append(root);
  roots.push(root);
  return root;
}

/** Reads the report, greps its Porto lines from the path the preview names, answers with the first match. */
const analyst: ModelScript = ({ turn }) => {
  const responses = turn.filter((entry) => entry.kind === 'tool-response');
  if (responses.length === 0) return { toolCalls: [{ name: 'read_report', args: {} }] };
  const path = /\/large_tool_results\/[A-Za-z0-9_-]+/.exec(responses[0]!.text)?.[0];
  if (responses.length === 1 && path)
    return { toolCalls: [{ name: 'grep', args: { pattern: 'Porto store 1 ', path } }] };
  const line = /Line \d+: Porto store 1 sold \d+ units/.exec(responses.at(-1)!.text)?.[0];
  return { text: line ?? 'I could not find it.' };
};

it('answers from the stored report and shows it in the inspector', async () => {
  const root = mount();
  const LanguageModel = standInLanguageModel({ script: analyst });
  const store = new MemoryOffloadStore();
  const page = await startPage(root, { languageModel: LanguageModel, store });
  expect(root.textContent).toContain('Ready: a window of 9216 tokens.');
  const answer = await page!.ask('Which store in Porto sold the most units?');
  expect(answer).toBe('Line 2: Porto store 1 sold 37 units');
  expect(root.querySelector('ol')!.textContent).toContain(`Model: ${answer}`);
  // The model got the report's first lines, not its 60 KB.
  const sent = LanguageModel.sessions[0]!.held.find((entry) => entry.kind === 'tool-response')!.text;
  expect(sent).toContain('Line 1: Lisbon store 1');
  expect(sent.length).toBeLessThan(4000);
  // The inspector (in its shadow root) lists the stored report.
  await expect.poll(() => root.querySelector('section div')?.shadowRoot?.textContent ?? '').toContain('read_report');
  const [record] = await store.requests('report-chat');
  expect(record!.reported).toEqual({
    inputTokens: (page!.chat.session as unknown as { contextUsage: number }).contextUsage,
  });
});

it('says so in a browser without the model', async () => {
  const root = mount();
  expect(await startPage(root, { languageModel: {} as never, store: new MemoryOffloadStore() })).toBeUndefined();
  expect(root.textContent).toContain("This page needs Chrome's built-in model");
  expect(root.querySelector('button')!.disabled).toBe(true);
});
