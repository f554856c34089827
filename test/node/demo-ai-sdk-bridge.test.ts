import { generateText, jsonSchema, tool } from 'ai';
import { expect, it } from 'vitest';
import { asLanguageModel } from '../../demo/ai-sdk-runtime.js';
import { scriptedModel } from '../../lib/testing.js';

// The demo's AI SDK runtime runs a package Model (the offline script, or a real OpenAI-compatible
// endpoint) as an AI SDK language model: a real model only calls the tools it is told about.
it('the AI SDK bridge tells the package model the tools the SDK offers in the call', async () => {
  const model = scriptedModel([{ content: 'done' }]);
  const fetchPage = tool({
    description: 'Fetches a page',
    inputSchema: jsonSchema<{ url: string }>({
      type: 'object',
      properties: { url: { type: 'string' } },
      required: ['url'],
    }),
    execute: async () => 'page',
  });
  const result = await generateText({ model: asLanguageModel(model), prompt: 'hi', tools: { fetch_page: fetchPage } });
  expect(result.text).toBe('done');
  const offered = model.requests[0]?.tools ?? [];
  expect(offered.map((t) => [t.name, t.description])).toEqual([['fetch_page', 'Fetches a page']]);
  expect(offered[0]?.parameters).toMatchObject({ properties: { url: { type: 'string' } }, required: ['url'] });
});
