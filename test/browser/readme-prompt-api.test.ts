// The README's Prompt API example runs as written, over the stand-in LanguageModel (the explainer at
// 2e27365, 2026-06-22; fixtures/prompt-api-model.ts) put where a page finds Chrome's: the README block
// is this example file, but for the package's import paths and the line that hands its results to the test.
import { afterAll, expect, it, vi } from 'vitest';
import { standInLanguageModel } from './fixtures/prompt-api-model.js';
import example from './readme/prompt-api-example.ts?raw';
import { asPublished, holdDefaultDatabase, readmeBlock } from './readme/readme-block.js';

// The model reads the page, then answers with the first line of what it got after the header.
const LanguageModel = standInLanguageModel({
  script: ({ turn }) => {
    const response = turn.find((entry) => entry.kind === 'tool-response');
    if (!response) return { toolCalls: [{ name: 'read_page', args: {} }] };
    const line = response.text.split('\n').find((text) => text.startsWith('Pricing'));
    return { text: `The page says: ${line ?? 'nothing about pricing'}` };
  },
});
vi.stubGlobal('LanguageModel', LanguageModel);
const page = document.createElement('pre');
page.textContent = [
  'Pricing: the team plan is 12 EUR a seat.',
  ...Array.from({ length: 3000 }, (_, i) => `Clause ${i}: terms apply.`),
].join('\n');
document.body.append(page);

afterAll(await holdDefaultDatabase());
afterAll(() => {
  page.remove();
  vi.unstubAllGlobals();
});
const { answer, chat, offload } = await import('./readme/prompt-api-example.js');

it('is the README’s Prompt API example, word for word', () => {
  const published = asPublished(example, {
    '../../../lib/index.js': 'tool-output-offload',
    '../../../lib/context.js': 'tool-output-offload/context',
    '../../../adapters/prompt-api/index.js': 'tool-output-offload/prompt-api',
  });
  expect(readmeBlock("Chrome's built-in model")).toBe(published);
});

it("stores the page's text, shows the model its preview, and records the prompt with the session's usage", async () => {
  expect(answer).toBe('The page says: Pricing: the team plan is 12 EUR a seat.');
  const [entry] = await offload.store.list('page-chat');
  expect(entry!.toolName).toBe('read_page');
  const sent = LanguageModel.sessions[0]!.held.find((held) => held.kind === 'tool-response')!.text;
  expect(sent).toContain(entry!.path);
  expect(sent.length).toBeLessThan(4000);
  const [record] = await offload.store.requests('page-chat');
  expect(record!.reported).toEqual({ inputTokens: (chat.session as unknown as { contextUsage: number }).contextUsage });
  chat.destroy();
  await (offload.store as { deleteDatabase?: () => Promise<void> }).deleteDatabase?.();
});
