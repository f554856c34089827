// The LangChain.js example of docs/adapters.md runs as written: that block is this example file, but
// for the package's import paths and the line that hands its results to the test.
import { afterAll, expect, it } from 'vitest';
import example from './readme/langchain-example.ts?raw';
import { asPublished, holdDefaultDatabase, readmeBlock } from './readme/readme-block.js';

// The example runs (top-level await) as it is loaded, once this file holds the default database.
afterAll(await holdDefaultDatabase());
const { found, offload, shown } = await import('./readme/langchain-example.js');

it('is docs/adapters.md’s LangChain.js example, word for word', () => {
  const published = asPublished(example, {
    '../../../lib/index.js': 'tool-output-offload',
    '../../../adapters/langchain/index.js': 'tool-output-offload/langchain',
  });
  expect(readmeBlock('LangChain.js', 'docs/adapters.md')).toBe(published);
});

it('stores the log search, shows its preview, and greps it back', async () => {
  expect(shown).toContain('INFO checkout request 0 served');
  expect(shown.length).toBeLessThan(4000);
  expect(found).toContain('request 3999 served');
  const [entry] = await offload.store.list('chat-1');
  expect(entry!.toolName).toBe('search_logs');
  await (offload.store as { deleteDatabase?: () => Promise<void> }).deleteDatabase?.();
});
