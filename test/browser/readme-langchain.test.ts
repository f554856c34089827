// The README's LangChain.js example runs as written: the README block is this example file, but
// for the package's import paths and the line that hands its results to the test.
import { expect, it } from 'vitest';
import readme from '../../README.md?raw';
// The example runs (top-level await) as this file is loaded.
import { found, offload, shown } from './readme/langchain-example.js';
import example from './readme/langchain-example.ts?raw';

function readmeBlock(heading: string): string {
  const section = readme.split(/^## /m).find((part) => part.startsWith(`${heading}\n`));
  const block = section && /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error(`README has no ts block under "## ${heading}"`);
  return block;
}

it('is the README’s LangChain.js example, word for word', () => {
  const asPublished = example
    .replace("'../../../lib/index.js'", "'tool-output-offload'")
    .replace("'../../../adapters/langchain/index.js'", "'tool-output-offload/langchain'")
    .replace(/\n+export \{[^}]*\};\n$/, '\n');
  expect(readmeBlock('LangChain.js')).toBe(asPublished);
});

it('stores the log search, shows its preview, and greps it back', async () => {
  expect(shown).toContain('INFO checkout request 0 served');
  expect(shown.length).toBeLessThan(4000);
  expect(found).toContain('request 3999 served');
  const [entry] = await offload.store.list('chat-1');
  expect(entry!.toolName).toBe('search_logs');
  await (offload.store as { deleteDatabase?: () => Promise<void> }).deleteDatabase?.();
});
