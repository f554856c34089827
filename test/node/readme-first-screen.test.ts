import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// What a newcomer reads before scrolling, and what they copy next: the README's first screen names
// the way to the demo and the tests (clone, both commands, the Node version they need), the install
// table lists every package the examples import, and each adapter's Vite config pre-bundles what
// its example imports (else the dev server may reload the page mid-run).

const root = new URL('../..', import.meta.url).pathname;
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const vitePkg = JSON.parse(readFileSync(join(root, 'node_modules/vite/package.json'), 'utf8'));

/** The README's first screen: about 40 lines of a window. */
const firstScreen = readme.split('\n').slice(0, 40).join('\n');

/** The adapters' examples, which the README links to. */
const adapters = readFileSync(join(root, 'docs/adapters.md'), 'utf8');

/** The ```ts blocks under `## <heading>` of the README (or `text`), in order. */
function tsBlocks(heading: string, text = readme): string[] {
  const section = text.split(/^## /m).find((part) => part.startsWith(`${heading}\n`)) ?? '';
  return [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

/** The bare specifiers a block imports. */
function imports(block: string): string[] {
  return [...block.matchAll(/^import [^;]*? from '([^'.][^']*)';/gm)].map((m) => m[1]!);
}

/** The package a specifier belongs to: `ai/test` → `ai`, `@langchain/core/tools` → `@langchain/core`. */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** [major, minor] of the least version a semver range like `^20.19.0 || >=22.12.0` or `>=20` allows. */
function least(range: string): [number, number] {
  const versions = [...range.matchAll(/(\d+)(?:\.(\d+))?/g)].map((m) => [Number(m[1]), Number(m[2] ?? 0)] as const);
  const [major, minor] = versions.sort((a, b) => a[0] - b[0] || a[1] - b[1])[0]!;
  return [major, minor];
}

const atLeast = (a: [number, number], b: [number, number]) => a[0] > b[0] || (a[0] === b[0] && a[1] >= b[1]);

describe("the README's first screen", () => {
  it('shows how to get the repository and run the demo and the tests', () => {
    const repository = pkg.repository.url.replace(/^git\+/, '');
    expect(firstScreen).toContain(`git clone ${repository}`);
    expect(firstScreen).toMatch(/^npm run demo /m);
    expect(firstScreen).toMatch(/^npm test /m);
    expect(firstScreen).toContain('https://unpkg.com/tool-output-offload/docs/demo.md');
  });

  it('names a Node version the package and the repository’s commands (Vite) both run on', () => {
    const stated = /Node\.js (\d+)\.(\d+) or newer/.exec(firstScreen);
    expect(stated, 'the first screen names "Node.js <major>.<minor> or newer"').not.toBeNull();
    const version: [number, number] = [Number(stated![1]), Number(stated![2])];
    expect(atLeast(version, least(pkg.engines.node))).toBe(true);
    expect(atLeast(version, least(vitePkg.engines.node))).toBe(true);
  });
});

describe("the README's examples", () => {
  it('import only packages the install table lists', () => {
    const table = readme.split(/^## /m).find((part) => part.startsWith('First example\n')) ?? '';
    const listed = new Set([...table.matchAll(/^\| `([^`]+)`/gm)].map((m) => m[1]!));
    const examples = [
      tsBlocks('First example')[0]!,
      tsBlocks('Vercel AI SDK', adapters)[0]!,
      tsBlocks('LangChain.js', adapters)[0]!,
    ];
    const used = new Set(examples.flatMap(imports).map(packageOf));
    expect([...used].filter((name) => !listed.has(name))).toEqual([]);
    expect(used).toContain('zod');
  });

  it.each(['Vercel AI SDK', 'LangChain.js'])(
    '%s: the Vite config pre-bundles everything its example imports',
    (heading) => {
      const [example, ...rest] = tsBlocks(heading, adapters);
      const config = rest.find((block) => block.includes('optimizeDeps'));
      expect(
        config,
        `a vite.config.ts block with optimizeDeps under "## ${heading}" of docs/adapters.md`,
      ).toBeDefined();
      const include = /include: \[([^\]]*)\]/.exec(config!)?.[1] ?? '';
      const listed = [...include.matchAll(/'([^']+)'/g)].map((m) => m[1]!);
      expect(imports(example!).filter((specifier) => !listed.includes(specifier))).toEqual([]);
    },
  );
});
