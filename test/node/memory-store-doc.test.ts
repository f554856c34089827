import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/**
 * docs/stores.md's custom store, run word for word: the first ts block under "## A store of your
 * own" (read from the doc, so the two cannot drift), its package imports pointed at this checkout.
 * Importing it registers the store contract suite against that store in this file.
 */
const root = join(import.meta.dirname, '..', '..');
const doc = readFileSync(join(root, 'docs', 'stores.md'), 'utf8');
const section = doc.split(/\n## /).find((part) => part.startsWith('A store of your own\n'));
const block = section && /```ts\n([\s\S]*?)```/.exec(section)?.[1];
if (!block?.includes('storeContract(')) throw new Error('docs/stores.md has no storeContract example');

const source = block
  .replaceAll("from 'tool-output-offload/testing'", `from '${join(root, 'lib', 'testing.ts')}'`)
  .replaceAll("from 'tool-output-offload'", `from '${join(root, 'lib', 'index.ts')}'`);
if (source.includes("'tool-output-offload")) throw new Error('the example imports a package path this test cannot map');
const dir = mkdtempSync(join(tmpdir(), 'stores-doc-'));
const file = join(dir, 'custom-store.ts');
writeFileSync(file, source);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

await import(file);
