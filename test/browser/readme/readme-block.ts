import readme from '../../../README.md?raw';

/** The first ```ts block under `## <heading>` in the README. */
export function readmeBlock(heading: string): string {
  const section = readme.split(/^## /m).find((part) => part.startsWith(`${heading}\n`));
  const block = section && /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error(`README has no ts block under "## ${heading}"`);
  return block;
}

/** An example file as the README shows it: the package's import paths, without the line that hands results to the test. */
export function asPublished(example: string, entries: Record<string, string>): string {
  let text = example;
  for (const [local, published] of Object.entries(entries)) text = text.replace(`'${local}'`, `'${published}'`);
  return text.replace(/\n+export \{[^}]*\};\n$/, '\n');
}
