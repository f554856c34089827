import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installInApp, type Packed, pack, run } from './fixtures/packed-package.js';

// `npm pack` from a clean clone, as a contributor or a release would run it: its prepack builds
// dist/ first, so the tarball carries the code; it carries what an app, an editor or a shipped doc
// uses and no image (the docs show theirs from GitHub); installed into an empty app, every entry of
// "exports" resolves, with its types.

const root = new URL('../..', import.meta.url).pathname;
const manifest = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as {
  exports: Record<string, string | { types: string; import: string }>;
};
/** The entries an app imports: `tool-output-offload`, `tool-output-offload/agent`, … */
const entries = Object.entries(manifest.exports)
  .filter(([, target]) => typeof target === 'object')
  .map(([entry, target]) => ({
    specifier: `tool-output-offload${entry.slice(1)}`,
    ...(target as { types: string; import: string }),
  }));

describe('npm pack from a clean clone', () => {
  let work = '';
  let app = '';
  let packed: Packed;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'pack-clone-'));
    const clone = join(work, 'clone');
    app = join(work, 'app');
    await run('git', ['clone', '--quiet', root, clone]);
    expect(existsSync(join(clone, 'dist')), 'a clean clone has no build').toBe(false);
    // The clone's dependencies are the checkout's (`npm ci` would install the same pinned versions).
    await symlink(join(root, 'node_modules'), join(clone, 'node_modules'), 'dir');
    await run('mkdir', [app]);
    packed = await pack(clone, work);
    await installInApp(app, packed.tarball);
  }, 600_000);

  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('builds first and carries the code of every entry, with its types', () => {
    const files = new Set(packed.files);
    for (const { import: code, types } of entries) {
      expect(files, `${code} in the tarball`).toContain(code.slice(2));
      expect(files, `${types} in the tarball`).toContain(types.slice(2));
    }
    expect(files).toContain('README.md');
    expect(files).toContain('LICENSE');
    expect(files).toContain('docs/RULES.md');
  });

  it('carries no image: the shipped docs show theirs from GitHub, and nothing of the repository only', () => {
    const images = packed.files.filter((path) => /\.(png|svg|jpe?g|gif|webp)$/i.test(path));
    expect(images).toEqual([]);
    const outside = packed.files.filter(
      (path) => !/^(dist\/|docs\/[^/]+\.md$|inspector\/README\.md$|README\.md$|LICENSE$|package\.json$)/.test(path),
    );
    expect(outside).toEqual([]);
  });

  it('installed into an empty app, every entry resolves to its file, and the core ones import in Node', async () => {
    const resolveAll = entries.map(({ specifier }) => `import.meta.resolve(${JSON.stringify(specifier)})`).join(',');
    const { stdout } = await run(
      'node',
      ['--input-type=module', '-e', `console.log(JSON.stringify([${resolveAll}]))`],
      {
        cwd: app,
      },
    );
    const resolved = JSON.parse(stdout) as string[];
    entries.forEach(({ import: code }, i) => {
      const file = fileURLToPath(resolved[i]!);
      expect(file).toBe(join(app, 'node_modules/tool-output-offload', code));
      expect(existsSync(file), file).toBe(true);
    });
    // The entries without a peer dependency load as an app's bundler would load them.
    const { stdout: names } = await run(
      'node',
      [
        '--input-type=module',
        '-e',
        "const core = await import('tool-output-offload'); const agent = await import('tool-output-offload/agent');" +
          'console.log(typeof core.ToolOutputOffload, typeof core.IndexedDbOffloadStore, typeof agent.createAgent)',
      ],
      { cwd: app },
    );
    expect(names.trim()).toBe('function function function');
  }, 120_000);

  it("an editor finds every entry's types: a file importing them all typechecks", async () => {
    const lines = entries.map(({ specifier }, i) => `import type * as entry${i} from '${specifier}';`);
    lines.push(`export type Entries = [${entries.map((_, i) => `typeof entry${i}`).join(', ')}];`);
    await writeFile(join(app, 'entries.ts'), `${lines.join('\n')}\n`);
    await writeFile(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'esnext',
          moduleResolution: 'bundler',
          target: 'es2022',
          lib: ['es2022', 'dom'],
          strict: true,
          noEmit: true,
          // The optional peers (ai, langchain, preact, vitest) are not installed in this app.
          skipLibCheck: true,
          types: [],
        },
        files: ['entries.ts'],
      }),
    );
    const tsc = join(root, 'node_modules/.bin/tsc');
    await expect(run(tsc, ['-p', join(app, 'tsconfig.json')], { cwd: app })).resolves.toBeDefined();
  }, 120_000);
});
