import adapters from '../../../docs/adapters.md?raw';
import readme from '../../../README.md?raw';

/** The documents whose examples run as written: the README, and docs/adapters.md (the adapters' examples). */
const documents = { 'README.md': readme, 'docs/adapters.md': adapters };

/** The first ```ts block under `## <heading>` in the README (or another document of `documents`). */
export function readmeBlock(heading: string, document: keyof typeof documents = 'README.md'): string {
  const section = documents[document].split(/^## /m).find((part) => part.startsWith(`${heading}\n`));
  const block = section && /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error(`${document} has no ts block under "## ${heading}"`);
  return block;
}

/** An example file as the README shows it: the package's import paths, without the line that hands results to the test. */
export function asPublished(example: string, entries: Record<string, string>): string {
  let text = example;
  for (const [local, published] of Object.entries(entries)) text = text.replace(`'${local}'`, `'${published}'`);
  return text.replace(/\n+export \{[^}]*\};\n$/, '\n');
}

/**
 * Holds the package's default database for one test file until the returned function is called:
 * the README's examples use it (and thread "chat-1") as a newcomer's app would, and each test deletes
 * it once checked, so two files running at once (Chromium and Firefox run files in parallel) would
 * delete it under each other's run. A Web Lock queues them.
 */
export async function holdDefaultDatabase(): Promise<() => void> {
  let release!: () => void;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  await new Promise<void>((acquired) => {
    void navigator.locks.request('tool-output-offload: the default database', () => {
      acquired();
      return held;
    });
  });
  return release;
}
