// The AI SDK example of docs/adapters.md runs as written: that block is this example file, but for the
// package's import paths and the line that hands its results to the test.
import { afterAll, expect, it } from 'vitest';
import example from './readme/ai-sdk-example.ts?raw';
import { asPublished, holdDefaultDatabase, readmeBlock } from './readme/readme-block.js';

// The example runs (top-level await) as it is loaded, once this file holds the default database.
afterAll(await holdDefaultDatabase());
const { found, offload, result, shown } = await import('./readme/ai-sdk-example.js');

it('is docs/adapters.md’s Vercel AI SDK example, word for word', () => {
  const published = asPublished(example, {
    '../../../lib/index.js': 'tool-output-offload',
    '../../../adapters/ai-sdk/index.js': 'tool-output-offload/ai-sdk',
  });
  expect(readmeBlock('Vercel AI SDK', 'docs/adapters.md')).toBe(published);
});

it('stores the log search, shows its preview, and greps it back', async () => {
  expect(shown).toContain('[Stored tool result]');
  expect(shown).toContain('INFO checkout request 0 served');
  expect(shown!.length).toBeLessThan(4000);
  expect(found).toContain('request 3999 served');
  expect(result.text).toBe('Checkout requests are served.');
  expect(result.steps[0]!.toolResults[0]!.output).toContain('request 3999 served');
  const [entry] = await offload.store.list('chat-1');
  expect(entry!.toolName).toBe('search_logs');
  await (offload.store as { deleteDatabase?: () => Promise<void> }).deleteDatabase?.();
});
