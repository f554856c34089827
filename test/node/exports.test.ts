// Every export of the package's parts is imported by someone: a name nothing imports is dead code
// that still reads as a contract. The package's entries (package.json "exports") and config files
// are the exceptions: what they export is for users and tools.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { moduleGraph, readModule, root, type SourceModule } from './fixtures/module-graph.js';

/** The folders whose exports must be used, and the folders whose imports count as uses. */
const checkedFolders = ['lib', 'adapters', 'inspector', 'extension', 'examples', 'demo'];
const usingFolders = [...checkedFolders, 'test', 'bench', 'docs'];

/** The source files of the package's entries, from package.json "exports" (`./dist/types/x.d.ts` is `x.ts`). */
function packageEntries(): string[] {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    exports: Record<string, string | { types: string }>;
  };
  return Object.values(pkg.exports).flatMap((entry) =>
    typeof entry === 'string' ? [] : [entry.types.replace(/^\.\/dist\/types\//, '').replace(/\.d\.ts$/, '.ts')],
  );
}

/** Config files read by Vite, Vitest or Biome: at the root, or named `vite.config.ts` in a folder. */
const isConfig = (file: string) => !file.includes('/') || file.endsWith('/vite.config.ts');

/** Every `file#name` some module imports, following `export … from` chains to the module that declares it. */
function usedExports(modules: Map<string, SourceModule>, entries: readonly string[]): Set<string> {
  const used = new Set<string>();
  const use = (file: string | undefined, name: string) => {
    const module = file && modules.get(file);
    if (!module || used.has(`${file}#${name}`)) return;
    used.add(`${file}#${name}`);
    if (name === '*') {
      for (const own of module.ownExports) use(file, own);
      for (const { target, exported } of module.reexports) use(exported === '*' ? target : file, exported);
      return;
    }
    for (const { target, imported, exported } of module.reexports) {
      if (exported === name) use(target, imported);
      else if (exported === '*' && name !== 'default') use(target, name);
    }
  };
  for (const entry of entries) use(entry, '*');
  for (const module of modules.values()) {
    for (const imported of module.imports) {
      if (imported.reexport) continue;
      if (imported.dynamic) use(imported.target, '*');
      for (const name of imported.names) use(imported.target, name);
    }
  }
  return used;
}

/** `file: name` for each name a checked module (not an entry) exports that nothing imports. */
function deadExports(
  modules: Map<string, SourceModule>,
  checked: SourceModule[],
  entries: readonly string[],
): string[] {
  const used = usedExports(modules, entries);
  return checked
    .filter((module) => !entries.includes(module.file))
    .flatMap((module) =>
      [...module.ownExports, ...module.reexports.map((r) => r.exported).filter((name) => name !== '*')]
        .filter((name) => !used.has(`${module.file}#${name}`))
        .map((name) => `${module.file}: ${name}`),
    );
}

const rootConfigs = readdirSync(root).filter((name) => /\.tsx?$/.test(name));
const modules = moduleGraph(usingFolders);
for (const file of rootConfigs) modules.set(file, readModule(file));
const entries = [...packageEntries(), ...[...modules.keys()].filter(isConfig)];

describe('exports', () => {
  it('the package entries are the files package.json exports, and they exist', () => {
    expect(packageEntries()).toEqual(
      expect.arrayContaining([
        'lib/index.ts',
        'lib/context.ts',
        'lib/testing.ts',
        'inspector/index.ts',
        'adapters/ai-sdk/index.ts',
        'adapters/prompt-api/index.ts',
      ]),
    );
    for (const entry of packageEntries()) expect(modules.has(entry), entry).toBe(true);
  });

  it('the check follows imports, export-from chains, export * and namespace imports, and finds the rest', () => {
    const module = (file: string, ownExports: string[], more: Partial<SourceModule> = {}): [string, SourceModule] => [
      file,
      { file, ownExports, imports: [], reexports: [], ...more },
    ];
    const use = (target: string, names: string[]) => ({
      specifier: target,
      target,
      names,
      typeOnly: false,
      dynamic: false,
      reexport: false,
    });
    const graph = new Map([
      module('entry.ts', [], { reexports: [{ target: 'a.ts', imported: 'shown', exported: 'renamed' }] }),
      module('a.ts', ['shown', 'imported', 'dead']),
      module('b.ts', [], { imports: [use('a.ts', ['imported']), use('c.ts', ['*']), use('d.ts', ['viaStar'])] }),
      module('c.ts', ['all', 'of', 'these']),
      module('d.ts', [], { reexports: [{ target: 'e.ts', imported: '*', exported: '*' }] }),
      module('e.ts', ['viaStar', 'notViaStar']),
    ]);
    expect(deadExports(graph, [...graph.values()], ['entry.ts'])).toEqual(['a.ts: dead', 'e.ts: notViaStar']);
  });

  it('every name a part exports (types included) is imported somewhere, entries and configs excepted', () => {
    const checked = [...modules.values()].filter((module) =>
      checkedFolders.some((folder) => module.file.startsWith(`${folder}/`)),
    );
    expect(deadExports(modules, checked, entries)).toEqual([]);
  });
});
