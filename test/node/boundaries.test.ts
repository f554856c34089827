import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evalCall } from './fixtures/eval-call.js';
import {
  importCycles,
  type ModuleImport,
  moduleGraph,
  root,
  type SourceModule,
  sourceFiles,
} from './fixtures/module-graph.js';

/** Every file below `dir` whose name matches `pattern`. */
function sourcesMatching(dir: string, pattern: RegExp): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : sourcesMatching(path, pattern);
    return pattern.test(name) ? [path] : [];
  });
}

/**
 * The parts of the repository and what each may import: other parts (a folder ends in `/`; a file
 * names that file only) and packages. Every import
 * counts, `import type` and `export … from` included; a part's files import each other freely.
 * DEVELOPERS.md ("Layout") shows this same table to readers; a test below keeps the two equal.
 */
interface Allowed {
  parts: readonly string[];
  packages: readonly string[];
}

const buildTools = ['vite', '@preact/preset-vite', 'node:fs', 'node:url'];

const allowedImports: Record<string, Allowed> = {
  'lib/shared/': { parts: [], packages: ['idb'] },
  'lib/tokens/': { parts: ['lib/shared/'], packages: [] },
  'lib/runtime/': { parts: ['lib/shared/'], packages: ['@cfworker/json-schema', 'idb'] },
  'lib/models/': { parts: ['lib/shared/', 'lib/runtime/'], packages: [] },
  'lib/backends/': { parts: ['lib/shared/'], packages: ['re2js'] },
  'lib/store/': { parts: ['lib/shared/'], packages: ['idb'] },
  'lib/summarization/': { parts: ['lib/shared/', 'lib/tokens/', 'lib/runtime/'], packages: [] },
  'lib/offload/': { parts: ['lib/shared/', 'lib/tokens/', 'lib/backends/', 'lib/store/'], packages: [] },
  'lib/agent/': {
    parts: ['lib/shared/', 'lib/runtime/', 'lib/backends/', 'lib/store/', 'lib/summarization/', 'lib/offload/'],
    packages: [],
  },
  'lib/index.ts': { parts: ['lib/shared/', 'lib/tokens/', 'lib/store/', 'lib/offload/'], packages: [] },
  'lib/agent.ts': {
    parts: ['lib/shared/', 'lib/runtime/', 'lib/models/', 'lib/backends/', 'lib/summarization/', 'lib/agent/'],
    packages: [],
  },
  'lib/context.ts': { parts: ['lib/offload/'], packages: [] },
  'lib/testing.ts': { parts: ['lib/shared/', 'lib/runtime/', 'lib/testing/'], packages: [] },
  'lib/testing/': { parts: ['lib/shared/', 'lib/store/'], packages: ['vitest'] },
  'adapters/ai-sdk/': { parts: ['lib/index.ts'], packages: ['ai'] },
  'adapters/langchain/': { parts: ['lib/index.ts'], packages: ['langchain', '@langchain/core'] },
  'adapters/prompt-api/': { parts: ['lib/index.ts'], packages: [] },
  'inspector/': { parts: ['lib/index.ts'], packages: ['preact', '@tanstack/virtual-core'] },
  'extension/': { parts: ['inspector/'], packages: ['preact', ...buildTools] },
  'examples/shared/': { parts: ['lib/index.ts', 'lib/agent.ts', 'lib/testing.ts'], packages: ['preact'] },
  'examples/extension-agent/': {
    parts: ['lib/index.ts', 'lib/agent.ts', 'lib/context.ts', 'inspector/', 'extension/', 'examples/shared/'],
    packages: ['preact', ...buildTools],
  },
  'examples/ai-sdk-chat/': { parts: ['lib/index.ts', 'lib/context.ts', 'adapters/ai-sdk/'], packages: ['ai', 'vite'] },
  'examples/prompt-api-page/': {
    parts: ['lib/index.ts', 'lib/context.ts', 'adapters/prompt-api/', 'inspector/'],
    packages: ['vite'],
  },
  'demo/': {
    parts: [
      'lib/index.ts',
      'lib/agent.ts',
      'lib/context.ts',
      'adapters/ai-sdk/',
      'adapters/langchain/',
      'inspector/',
      'examples/shared/',
    ],
    packages: ['preact', 'ai', 'langchain', '@langchain/core', ...buildTools],
  },
};
/** The part a file (relative to the root) belongs to: the longest part name that is it or holds it. */
function partOf(file: string): string | undefined {
  const names = Object.keys(allowedImports).filter((part) =>
    part.endsWith('/') ? file.startsWith(part) : file === part,
  );
  return names.sort((a, b) => b.length - a.length)[0];
}

/** `@scope/name/sub` → `@scope/name`, `name/sub` → `name`, `node:fs` as it is. */
function packageOf(specifier: string): string {
  return specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');
}

/** Why `file`'s import breaks the table, or undefined when the table allows it. */
function breach(file: string, part: string, imported: ModuleImport): string | undefined {
  const allowed = allowedImports[part]!;
  if (!imported.specifier.startsWith('.')) {
    const name = packageOf(imported.specifier);
    return allowed.packages.includes(name) ? undefined : `${file} imports the package ${name} (${part} may not)`;
  }
  const target = imported.target ?? normalize(join(file, '..', imported.specifier.replace(/\?.*$/, '')));
  const targetPart = partOf(target);
  if (targetPart === part) return undefined;
  if (targetPart && allowed.parts.includes(targetPart)) return undefined;
  const what = imported.typeOnly ? 'types from ' : '';
  return `${file} imports ${what}${target} (${part} may not import ${targetPart ?? 'files outside every part'})`;
}

/** The folders whose every source file belongs to a part of the table. */
const partFolders = ['lib', 'adapters', 'inspector', 'extension', 'examples', 'demo'];
const modules = moduleGraph(partFolders);

/** The table as DEVELOPERS.md shows it: rows `| \`part\` | parts | packages |`. */
function tableInDevelopersGuide(): Record<string, Allowed> {
  const guide = readFileSync(join(root, 'DEVELOPERS.md'), 'utf8');
  const layout = guide.slice(guide.indexOf('\n## Layout\n')).split(/\n## /)[1] ?? '';
  const ticked = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
  const rows = layout.split('\n').filter((line) => /^\|\s*`[^`]+`\s*\|/.test(line));
  return Object.fromEntries(
    rows.map((row) => {
      const [, part, imports, packages] = row.split('|').map((cell) => cell.trim());
      return [ticked(part!)[0]!, { parts: ticked(imports!), packages: ticked(packages!) }];
    }),
  );
}

describe('layer boundaries', () => {
  it('every import (import type and export … from included) is one the table of parts allows', () => {
    expect(modules.size).toBeGreaterThan(150);
    const breaches = [...modules.values()].flatMap((module) => {
      const part = partOf(module.file);
      if (!part) return [`${module.file} belongs to no part of the table`];
      return module.imports.flatMap((imported) => breach(module.file, part, imported) ?? []);
    });
    expect(breaches).toEqual([]);
  });

  it('the table keeps the architecture: shared at the bottom, a store and a runtime that know no middleware, lib without UI or frameworks', () => {
    expect(allowedImports['lib/shared/']!.parts).toEqual([]);
    const storeParts = allowedImports['lib/store/']!.parts;
    expect(storeParts.filter((part) => /^lib\/(runtime|backends|offload|models|summarization)\//.test(part))).toEqual(
      [],
    );
    for (const other of ['lib/store/', 'lib/offload/', 'lib/backends/', 'lib/models/', 'lib/summarization/']) {
      expect(allowedImports['lib/runtime/']!.parts).not.toContain(other);
    }
    for (const [part, allowed] of Object.entries(allowedImports).filter(([part]) => part.startsWith('lib/'))) {
      for (const target of allowed.parts) expect(target, part).toMatch(/^lib\//);
      for (const name of allowed.packages) expect(name, part).not.toMatch(/^(preact|ai|langchain|@langchain\/.*)$/);
    }
    for (const adapter of ['adapters/ai-sdk/', 'adapters/langchain/', 'adapters/prompt-api/']) {
      expect(allowedImports[adapter]!.parts).toEqual(['lib/index.ts']);
    }
    expect(allowedImports['inspector/']!.parts).toEqual(['lib/index.ts']);
  });

  it('no file-level import cycle anywhere (import type included), each reported with its chain', () => {
    const cycles = importCycles(modules).map((chain) => chain.join(' → '));
    expect(cycles).toEqual([]);
  });

  it('the cycle check finds cycles through type imports and self-imports, and none in a diamond', () => {
    const graph = (edges: Record<string, string[]>) =>
      new Map<string, SourceModule>(
        Object.entries(edges).map(([file, targets]) => [
          file,
          {
            file,
            ownExports: [],
            reexports: [],
            imports: targets.map((target) => ({
              specifier: target,
              target,
              names: [],
              typeOnly: true,
              dynamic: false,
              reexport: false,
            })),
          },
        ]),
      );
    expect(importCycles(graph({ a: ['b', 'c'], b: ['d'], c: ['d'], d: [] }))).toEqual([]);
    expect(importCycles(graph({ a: ['b'], b: ['c'], c: ['a', 'd'], d: ['d'] }))).toEqual([
      ['a', 'b', 'c', 'a'],
      ['d', 'd'],
    ]);
  });

  it('the table in DEVELOPERS.md is this one', () => {
    expect(tableInDevelopersGuide()).toEqual(allowedImports);
  });

  it("the runtime's comments cite only the runtime's own rules (R), never the offload's, stores' or others'", () => {
    const runtime = sourceFiles('lib/runtime');
    expect(runtime.length).toBeGreaterThan(5);
    const offenders = runtime.flatMap((file) =>
      [...readFileSync(join(root, file), 'utf8').matchAll(/\b[OBSIA]\d{1,2}\b/g)].map((m) => `${file} cites ${m[0]}`),
    );
    expect(offenders).toEqual([]);
  });

  it('lib/index.ts only re-exports', () => {
    const lines = readFileSync(join(root, 'lib/index.ts'), 'utf8')
      .split('\n')
      .filter((line) => line.trim() && !line.trim().startsWith('//'));
    const statements = lines
      .join('\n')
      .split(';')
      .filter((s) => s.trim());
    for (const statement of statements) expect(statement.trim()).toMatch(/^export\b[\s\S]*\bfrom\s*'[^']+'$/);
  });

  it('no eval or new Function anywhere in shipped code (MV3 CSP)', () => {
    const shipped = ['lib', 'adapters', 'inspector'].flatMap(sourceFiles);
    const offenders = shipped.filter((file) => evalCall.test(readFileSync(join(root, file), 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('no runtime dependency uses eval or new Function either', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const files = Object.keys(pkg.dependencies).flatMap((name) =>
      sourcesMatching(join(root, 'node_modules', name), /\.(m?js|cjs)$/),
    );
    expect(files.length).toBeGreaterThan(3);
    const offenders = files.filter((file) => evalCall.test(readFileSync(file, 'utf8')));
    expect(offenders).toEqual([]);
  });
});
