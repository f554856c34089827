import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evalCall } from './fixtures/eval-call.js';

/** Every file below `dir` whose name matches `pattern`. */
function sourcesMatching(dir: string, pattern: RegExp): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : sourcesMatching(path, pattern);
    return pattern.test(name) ? [path] : [];
  });
}

const sources = (dir: string) => sourcesMatching(dir, /\.tsx?$/);

/** The module specifiers a file imports or re-exports, static and dynamic. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found = [
    ...text.matchAll(/(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g),
  ];
  return found.map((m) => (m[1] ?? m[2])!);
}

const root = new URL('../..', import.meta.url).pathname;
const lib = sources(join(root, 'lib'));
const adapters = sources(join(root, 'adapters'));

describe('layer boundaries', () => {
  it('lib never imports the inspector or Preact, so importing "." pulls in no UI', () => {
    const offenders = lib.flatMap((file) =>
      importsOf(file)
        .filter((spec) => spec.includes('inspector') || spec === 'preact' || spec.startsWith('preact/'))
        .map((spec) => `${relative(root, file)} imports ${spec}`),
    );
    expect(offenders).toEqual([]);
  });

  it('lib never imports the adapters or their frameworks: the main entry works without ai or langchain installed', () => {
    const offenders = lib.flatMap((file) =>
      importsOf(file)
        .filter((spec) => spec.includes('adapters/') || /^(ai|langchain|@langchain\/[^/]+)(\/|$)/.test(spec))
        .map((spec) => `${relative(root, file)} imports ${spec}`),
    );
    expect(offenders).toEqual([]);
  });

  it('each adapter (ai-sdk, langchain) reaches lib only through lib/index.ts, as users of the package do', () => {
    expect(adapters.length).toBeGreaterThan(2);
    const offenders = adapters.flatMap((file) =>
      importsOf(file)
        .filter((spec) => spec.includes('/lib/') && !spec.endsWith('/lib/index.js'))
        .map((spec) => `${relative(root, file)} imports ${spec}`),
    );
    expect(offenders).toEqual([]);
  });

  it('the runtime knows no particular middleware, store or backend', () => {
    const runtime = lib.filter((file) => file.includes('/lib/runtime/'));
    expect(runtime.length).toBeGreaterThan(5);
    const offenders = runtime.flatMap((file) =>
      importsOf(file)
        .filter((spec) => /\/(offload|store|backends|summarization|models)\//.test(spec))
        .map((spec) => `${relative(root, file)} imports ${spec}`),
    );
    expect(offenders).toEqual([]);
  });

  it("the runtime's comments cite only the runtime's own rules (R), never the offload's, stores' or others'", () => {
    const runtime = lib.filter((file) => file.includes('/lib/runtime/'));
    const offenders = runtime.flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/\b[OBSIA]\d{1,2}\b/g)].map(
        (m) => `${relative(root, file)} cites ${m[0]}`,
      ),
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
    const shipped = [...lib, ...adapters, ...sources(join(root, 'inspector'))];
    const offenders = shipped.filter((file) => evalCall.test(readFileSync(file, 'utf8')));
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
