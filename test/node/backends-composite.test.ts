import { describe, expect, it } from 'vitest';
import type { Backend } from '../../lib/backends/backend.js';
import { CompositeBackend } from '../../lib/backends/composite-backend.js';
import { MemoryBackend } from '../../lib/backends/memory-backend.js';
import { failure } from './backend-failure.js';

function setup() {
  const fallback = new MemoryBackend({ '/readme.md': 'root readme\n', '/memories2/x.txt': 'not a memory\n' });
  const memories = new MemoryBackend({ '/notes.txt': 'remember this\nand that\n', '/deep/a.md': 'deep memory\n' });
  const results = new MemoryBackend({ '/abc': 'large result\nline two\n' });
  const composite = new CompositeBackend(fallback, { '/memories/': memories, '/large_tool_results/': results });
  return { fallback, memories, results, composite };
}

describe('CompositeBackend routing (B1)', () => {
  it('routes to the longest prefix on a segment boundary, stripping the prefix', async () => {
    const { composite, memories, fallback } = setup();
    expect(await composite.read('/memories/notes.txt')).toBe('remember this\nand that\n');
    await composite.write('/memories/new.txt', 'written through the route');
    expect(await memories.read('/new.txt')).toBe('written through the route');
    // '/memories2/x' is not under '/memories/': it stays with the fallback.
    expect(await composite.read('/memories2/x.txt')).toBe('not a memory\n');
    await composite.write('/memories2/y.txt', 'fallback');
    expect(await fallback.read('/memories2/y.txt')).toBe('fallback');
    await expect(memories.read('/2/y.txt')).rejects.toThrow(/not found/);
  });

  it('the prefix itself routes to the root of its backend', async () => {
    const { composite } = setup();
    expect(await composite.ls('/memories')).toEqual([
      { path: '/memories/deep', size: 0, isDir: true },
      { path: '/memories/notes.txt', size: 23 },
    ]);
  });

  it('a nested route wins over its parent route', async () => {
    const outer = new MemoryBackend({ '/x.txt': 'outer' });
    const inner = new MemoryBackend({ '/x.txt': 'inner' });
    const composite = new CompositeBackend(new MemoryBackend(), { '/a': outer, '/a/b/': inner });
    expect(await composite.read('/a/x.txt')).toBe('outer');
    expect(await composite.read('/a/b/x.txt')).toBe('inner');
    expect((await composite.glob('**/x.txt')).map((f) => f.path)).toEqual(['/a/b/x.txt', '/a/x.txt']);
  });

  it('errors from a routed backend name the whole path', async () => {
    const { composite } = setup();
    const missing = await failure(composite.read('/memories/gone.txt'));
    expect([missing.code, missing.message]).toEqual(['not-found', 'not found: /memories/gone.txt']);
    const past = await failure(composite.read('/large_tool_results/abc', { offset: 9 }));
    expect(past.message).toBe('offset 9 is past the end: the file has 2 lines (/large_tool_results/abc)');
    expect((await failure(composite.read('/memories'))).message).toBe('/memories is a directory; use ls to list it');
    expect((await composite.readLines('/large_tool_results/abc', { limit: 1 })).totalLines).toBe(2);
    expect(await composite.readLines('/large_tool_results/abc', { offset: 9 })).toEqual({ text: '', totalLines: 2 });
  });

  it('reads lines and the line count through a routed backend without readLines by reading the file', async () => {
    const plain = new MemoryBackend({ '/f': 'a\nb\nc' });
    const withoutReadLines: Backend = {
      ls: (p) => plain.ls(p),
      read: (p, o) => plain.read(p, o),
      grep: (p, o) => plain.grep(p, o),
      glob: (p, o) => plain.glob(p, o),
      write: (p, c) => plain.write(p, c),
      edit: (p, a, b) => plain.edit(p, a, b),
    };
    const composite = new CompositeBackend(new MemoryBackend(), { '/m': withoutReadLines });
    expect(await composite.readLines('/m/f', { limit: 1 })).toEqual({ text: 'a\n', totalLines: 3 });
    expect(await composite.readLines('/m/f', { offset: 1 })).toEqual({ text: 'b\nc', totalLines: 3 });
  });

  it('rejects bad paths before routing', async () => {
    const { composite } = setup();
    expect((await failure(composite.read('/memories/../readme.md'))).code).toBe('invalid-path');
    expect((await failure(composite.read('memories/notes.txt'))).code).toBe('invalid-path');
  });

  it('validates route prefixes and backends in the constructor', () => {
    const backend = new MemoryBackend();
    expect(() => new CompositeBackend(backend, { 'memories/': backend })).toThrow(
      /CompositeBackend: route prefix "memories\/" is relative/,
    );
    expect(() => new CompositeBackend(backend, { '/a/../b': backend })).toThrow(TypeError);
    expect(() => new CompositeBackend(backend, { '/': backend })).toThrow(/pass that backend as the fallback/);
    expect(() => new CompositeBackend(backend, { '/m': backend, '/m/': backend })).toThrow(/given twice/);
    expect(() => new CompositeBackend(backend, { '/m': {} as Backend })).toThrow(/route "\/m" is not a Backend/);
    expect(() => new CompositeBackend(null as unknown as Backend, {})).toThrow(/fallback must be a Backend/);
  });
});

describe('CompositeBackend listing and search (B2)', () => {
  it("ls('/') lists the fallback's entries and each route as a directory", async () => {
    const { composite } = setup();
    expect(await composite.ls('/')).toEqual([
      { path: '/large_tool_results', size: 0, isDir: true },
      { path: '/memories', size: 0, isDir: true },
      { path: '/memories2', size: 0, isDir: true },
      { path: '/readme.md', size: 12 },
    ]);
  });

  it('ls shows the directories that lead to a deeper route, even when the fallback lacks them', async () => {
    const composite = new CompositeBackend(new MemoryBackend(), { '/a/b/': new MemoryBackend({ '/f': 'x' }) });
    expect(await composite.ls('/')).toEqual([{ path: '/a', size: 0, isDir: true }]);
    expect(await composite.ls('/a')).toEqual([{ path: '/a/b', size: 0, isDir: true }]);
    expect(await composite.ls('/a/b')).toEqual([{ path: '/a/b/f', size: 1 }]);
    expect((await failure(composite.ls('/zzz'))).message).toBe('not found: /zzz');
  });

  it('hides fallback files that a route shadows', async () => {
    const fallback = new MemoryBackend({ '/m/hidden.txt': 'needle in the fallback', '/seen.txt': 'needle' });
    const composite = new CompositeBackend(fallback, { '/m': new MemoryBackend({ '/shown.txt': 'needle' }) });
    expect((await composite.grep('needle')).map((m) => m.path)).toEqual(['/m/shown.txt', '/seen.txt']);
    expect((await composite.glob('**')).map((f) => f.path)).toEqual(['/m/shown.txt', '/seen.txt']);
    expect(await composite.ls('/')).toEqual([
      { path: '/m', size: 0, isDir: true },
      { path: '/seen.txt', size: 6 },
    ]);
  });

  it('grep from / searches the fallback and every route, with whole paths (never //)', async () => {
    const { composite } = setup();
    const matches = await composite.grep('e');
    expect(matches.map((m) => `${m.path}:${m.line}`)).toEqual([
      '/large_tool_results/abc:1',
      '/large_tool_results/abc:2',
      '/memories/deep/a.md:1',
      '/memories/notes.txt:1',
      '/memories2/x.txt:1',
      '/readme.md:1',
    ]);
    expect(matches.every((m) => !m.path.includes('//'))).toBe(true);
  });

  it('grep from a sub-path searches only what lies under it', async () => {
    const { composite } = setup();
    expect((await composite.grep('e', { path: '/memories' })).map((m) => m.path)).toEqual([
      '/memories/deep/a.md',
      '/memories/notes.txt',
    ]);
    expect((await composite.grep('e', { path: '/memories/deep' })).map((m) => m.path)).toEqual(['/memories/deep/a.md']);
    expect((await composite.grep('e', { path: '/memories2' })).map((m) => m.path)).toEqual(['/memories2/x.txt']);
  });

  it('grep glob filters apply to whole paths across routes', async () => {
    const { composite } = setup();
    expect((await composite.grep('e', { glob: '*.md' })).map((m) => m.path)).toEqual([
      '/memories/deep/a.md',
      '/readme.md',
    ]);
    expect((await composite.grep('e', { glob: 'memories/**/*.md' })).map((m) => m.path)).toEqual([
      '/memories/deep/a.md',
    ]);
  });

  it('grep: an invalid regex or a missing path fails with a clear error', async () => {
    const { composite } = setup();
    expect((await failure(composite.grep('(unclosed'))).message).toMatch(/^invalid regular expression "\(unclosed"/);
    const missing = await failure(composite.grep('x', { path: '/memories/nowhere' }));
    expect([missing.code, missing.message]).toEqual(['not-found', 'not found: /memories/nowhere']);
  });

  it('glob from / and from a sub-path, relative and absolute patterns', async () => {
    const { composite } = setup();
    expect((await composite.glob('**/*.md')).map((f) => f.path)).toEqual(['/memories/deep/a.md', '/readme.md']);
    expect((await composite.glob('large_tool_results/*')).map((f) => f.path)).toEqual(['/large_tool_results/abc']);
    expect((await composite.glob('/large_tool_results/*')).map((f) => f.path)).toEqual(['/large_tool_results/abc']);
    expect((await composite.glob('*', { path: '/memories' })).map((f) => f.path)).toEqual(['/memories/notes.txt']);
    expect(await composite.glob('*.md', { path: '/large_tool_results' })).toEqual([]);
    expect((await failure(composite.glob('', { path: '/' }))).code).toBe('invalid-argument');
  });
});
