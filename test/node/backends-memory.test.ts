import { describe, expect, it } from 'vitest';
import { MemoryBackend } from '../../lib/backends/memory-backend.js';
import { failure } from './backend-failure.js';

function files() {
  return new MemoryBackend({
    '/notes.txt': 'alpha\nbeta\ngamma\n',
    '/docs/guide.md': '# Guide\nuse read_file\n',
    '/docs/api/ref.md': 'ref\n',
    '/data.json': '{"é":"😀"}',
  });
}

describe('MemoryBackend', () => {
  it('ls lists direct children, deriving directories from file paths', async () => {
    const backend = files();
    expect(await backend.ls('/')).toEqual([
      { path: '/data.json', size: 13 }, // UTF-8 bytes, not characters
      { path: '/docs', size: 0, isDir: true },
      { path: '/notes.txt', size: 17 },
    ]);
    expect(await backend.ls('/docs/')).toEqual([
      { path: '/docs/api', size: 0, isDir: true },
      { path: '/docs/guide.md', size: 22 },
    ]);
    expect(await backend.ls('/notes.txt')).toEqual([{ path: '/notes.txt', size: 17 }]);
    expect(await new MemoryBackend().ls('/')).toEqual([]);
    const missing = await failure(backend.ls('/nothing'));
    expect(missing.code).toBe('not-found');
    expect(missing.message).toBe('not found: /nothing');
  });

  it('read returns lines [offset, offset+limit) with their newlines, or the whole file', async () => {
    const backend = files();
    expect(await backend.read('/notes.txt')).toBe('alpha\nbeta\ngamma\n');
    expect(await backend.read('/notes.txt', { offset: 1, limit: 1 })).toBe('beta\n');
    expect(await backend.read('/notes.txt', { offset: 2 })).toBe('gamma\n');
    expect(await backend.read('/notes.txt', { offset: 1, limit: 100 })).toBe('beta\ngamma\n');
    expect(await backend.readLines('/notes.txt', { offset: 1, limit: 1 })).toEqual({ text: 'beta\n', totalLines: 3 });
    expect(await backend.readLines('/notes.txt', { offset: 5 })).toEqual({ text: '', totalLines: 3 });
  });

  it('read: an offset past the end says how many lines the file has', async () => {
    const error = await failure(files().read('/notes.txt', { offset: 3 }));
    expect(error.code).toBe('invalid-argument');
    expect(error.message).toBe('offset 3 is past the end: the file has 3 lines (/notes.txt)');
    expect(await new MemoryBackend({ '/empty': '' }).read('/empty', { offset: 0, limit: 5 })).toBe('');
  });

  it('read: bad offsets and limits, missing files, directories and bad paths fail clearly', async () => {
    const backend = files();
    expect((await failure(backend.read('/notes.txt', { offset: -1 }))).message).toBe(
      'offset must be an integer of at least 0, got -1',
    );
    expect((await failure(backend.read('/notes.txt', { offset: 1.5 }))).message).toContain('got 1.5');
    expect((await failure(backend.read('/notes.txt', { limit: 0 }))).message).toBe(
      'limit must be an integer of at least 1, got 0',
    );
    const missing = await failure(backend.read('/nope.txt'));
    expect([missing.code, missing.message]).toEqual(['not-found', 'not found: /nope.txt']);
    expect((await failure(backend.read('/docs'))).message).toBe('/docs is a directory; use ls to list it');
    const bad = await failure(backend.read('/docs/../notes.txt'));
    expect(bad.code).toBe('invalid-path');
    expect(bad.message).toContain('"/docs/../notes.txt"');
  });

  it('grep finds matching lines (1-based), under a path and through a glob filter', async () => {
    const backend = files();
    expect(await backend.grep('^(alpha|gamma)$')).toEqual([
      { path: '/notes.txt', line: 1, text: 'alpha', column: 1 },
      { path: '/notes.txt', line: 3, text: 'gamma', column: 1 },
    ]);
    expect(await backend.grep('e', { path: '/docs' })).toEqual([
      { path: '/docs/api/ref.md', line: 1, text: 'ref', column: 2 },
      { path: '/docs/guide.md', line: 1, text: '# Guide', column: 7 },
      { path: '/docs/guide.md', line: 2, text: 'use read_file', column: 3 },
    ]);
    expect((await backend.grep('e', { glob: '*.txt' })).map((m) => m.path)).toEqual(['/notes.txt']);
    expect((await backend.grep('e', { path: '/docs', glob: 'api/*.md' })).map((m) => m.path)).toEqual([
      '/docs/api/ref.md',
    ]);
    expect(await backend.grep('zzz')).toEqual([]);
  });

  it('grep: an invalid regex names the pattern; a missing path is not found', async () => {
    const error = await failure(files().grep('a(b'));
    expect(error.code).toBe('invalid-argument');
    expect(error.message).toMatch(/^invalid regular expression "a\(b": /);
    expect((await failure(files().grep('', {}))).message).toContain('non-empty');
    expect((await failure(files().grep('a', { path: '/missing' }))).code).toBe('not-found');
  });

  it('glob matches files relative to the search path', async () => {
    const backend = files();
    expect((await backend.glob('*.md', { path: '/docs' })).map((f) => f.path)).toEqual(['/docs/guide.md']);
    expect((await backend.glob('**/*.md')).map((f) => f.path)).toEqual(['/docs/api/ref.md', '/docs/guide.md']);
    expect((await backend.glob('*')).map((f) => f.path)).toEqual(['/data.json', '/notes.txt']);
    expect(await backend.glob('**/*.png')).toEqual([]);
    expect((await failure(backend.glob('*', { path: 'docs' }))).code).toBe('invalid-path');
  });

  it('write creates or replaces a file; directories appear with it', async () => {
    const backend = new MemoryBackend();
    await backend.write('/a/b/c.txt', 'one');
    await backend.write('/a/b/c.txt', 'two');
    expect(await backend.read('/a/b/c.txt')).toBe('two');
    expect(await backend.ls('/a')).toEqual([{ path: '/a/b', size: 0, isDir: true }]);
  });

  it('write refuses directory paths, files under files, and non-string content', async () => {
    const backend = files();
    expect((await failure(backend.write('/docs', 'x'))).message).toBe('/docs is a directory');
    expect((await failure(backend.write('/notes.txt/x', 'x'))).message).toBe(
      '/notes.txt is a file, so /notes.txt/x cannot be created',
    );
    expect((await failure(backend.write('/new/', 'x'))).message).toBe('"/new/" names a directory, not a file');
    expect((await failure(backend.write('/', 'x'))).code).toBe('invalid-path');
    expect((await failure(backend.write('/n.txt', 42 as unknown as string))).message).toContain('must be a string');
    expect(await backend.read('/notes.txt')).toBe('alpha\nbeta\ngamma\n'); // nothing stored was lost
  });

  it('edit replaces text that occurs exactly once, literally', async () => {
    const backend = files();
    await backend.edit('/notes.txt', 'beta', 'B $& $1');
    expect(await backend.read('/notes.txt')).toBe('alpha\nB $& $1\ngamma\n');
  });

  it('edit fails when the text occurs 0 or 2+ times, leaving the file as it was', async () => {
    const backend = new MemoryBackend({ '/t.txt': 'x = 1\nx = 1\ny = 2\n' });
    const none = await failure(backend.edit('/t.txt', 'z = 3', 'w'));
    expect([none.code, none.message]).toEqual(['invalid-argument', 'old text not found in /t.txt']);
    const twice = await failure(backend.edit('/t.txt', 'x = 1', 'x = 5'));
    expect(twice.message).toContain('old text found 2 times in /t.txt; it must occur exactly once');
    expect((await failure(backend.edit('/t.txt', '', 'w'))).message).toContain('non-empty');
    expect((await failure(backend.edit('/missing.txt', 'a', 'b'))).code).toBe('not-found');
    expect(await backend.read('/t.txt')).toBe('x = 1\nx = 1\ny = 2\n');
  });

  it('the constructor rejects bad files with a TypeError naming the path', () => {
    expect(() => new MemoryBackend({ 'relative.txt': 'x' })).toThrow(/MemoryBackend file "relative.txt": .*relative/);
    expect(() => new MemoryBackend({ '/a': 'x', '/a/b': 'y' })).toThrow(TypeError);
    expect(() => new MemoryBackend({ '/a': 5 as unknown as string })).toThrow(/must be a string/);
  });
});
