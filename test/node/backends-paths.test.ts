import { describe, expect, it } from 'vitest';
import { fileFilter, globMatcher, globToRegExp } from '../../lib/backends/glob.js';
import { joinPath, maxPathLength, normalizePath } from '../../lib/backends/paths.js';
import { BackendError } from '../../lib/shared/errors.js';

function pathError(path: unknown): BackendError {
  try {
    normalizePath(path);
  } catch (error) {
    expect(error).toBeInstanceOf(BackendError);
    expect((error as BackendError).code).toBe('invalid-path');
    return error as BackendError;
  }
  throw new Error(`expected ${String(path)} to be rejected`);
}

describe('normalizePath', () => {
  it('accepts absolute paths and drops a trailing slash', () => {
    expect(normalizePath('/')).toBe('/');
    expect(normalizePath('/a/b.txt')).toBe('/a/b.txt');
    expect(normalizePath('/a/')).toBe('/a');
    expect(normalizePath('/a/.hidden')).toBe('/a/.hidden');
  });

  it('rejects bad paths with a message naming the path and the problem', () => {
    expect(pathError('/a/../etc').message).toBe('path "/a/../etc" contains a \'..\' segment');
    expect(pathError('/a/./b').message).toContain("'.' segment");
    expect(pathError('notes.txt').message).toBe('path "notes.txt" is relative; paths start with \'/\'');
    expect(pathError('').message).toBe('path "" is empty');
    expect(pathError('/a\0b').message).toContain('NUL');
    expect(pathError('/a//b').message).toContain("empty segment ('//')");
    expect(pathError('//').message).toContain('empty segment');
    expect(pathError(42).message).toBe('path 42 must be a string, got number');
    const huge = `/${'x'.repeat(maxPathLength)}`;
    const message = pathError(huge).message;
    expect(message).toContain(`is ${maxPathLength + 1} characters long; at most ${maxPathLength}`);
    expect(message.length).toBeLessThan(400); // the huge path is not echoed whole
  });

  it('joinPath never produces //', () => {
    expect(joinPath('/mnt', '/')).toBe('/mnt');
    expect(joinPath('/mnt/', '/a')).toBe('/mnt/a');
    expect(joinPath('', '/a')).toBe('/a');
    expect(joinPath('', '/')).toBe('/');
    expect(joinPath('/', '/a')).toBe('/a');
  });
});

describe('globs', async () => {
  const matches = async (pattern: string, path: string) => (await globToRegExp(pattern)).test(path);

  it('* stays within a segment, ? is one character, ** spans segments, {a,b} either', async () => {
    expect(await matches('*.txt', 'a.txt')).toBe(true);
    expect(await matches('*.txt', 'd/a.txt')).toBe(false);
    expect(await matches('**/*.txt', 'a.txt')).toBe(true);
    expect(await matches('**/*.txt', 'd/e/a.txt')).toBe(true);
    expect(await matches('d/**', 'd/e/a.txt')).toBe(true);
    expect(await matches('d/**/a.txt', 'd/a.txt')).toBe(true);
    expect(await matches('?.md', 'a.md')).toBe(true);
    expect(await matches('?.md', 'ab.md')).toBe(false);
    expect(await matches('*.{ts,tsx}', 'x.tsx')).toBe(true);
    expect(await matches('*.{ts,tsx}', 'x.js')).toBe(false);
  });

  it('treats regex characters literally', async () => {
    expect(await matches('a+b(1).txt', 'a+b(1).txt')).toBe(true);
    expect(await matches('a.txt', 'abtxt')).toBe(false);
    expect(await matches('[x]', '[x]')).toBe(true);
    expect(await matches('{a', '{a')).toBe(true);
  });

  it('globMatcher: relative to the search directory, or absolute', async () => {
    const relative = await globMatcher('*.txt', '/docs');
    expect(relative('/docs/a.txt')).toBe(true);
    expect(relative('/docs/sub/a.txt')).toBe(false);
    expect(relative('/other/a.txt')).toBe(false);
    const absolute = await globMatcher('/docs/**/*.txt', '/');
    expect(absolute('/docs/sub/a.txt')).toBe(true);
    await expect(globMatcher('', '/')).rejects.toThrow(/glob pattern must be a non-empty string, got ""/);
  });

  it('fileFilter: a name pattern matches file names anywhere under the directory', async () => {
    const byName = await fileFilter('*.md', '/');
    expect(byName('/a/b/readme.md')).toBe(true);
    expect(byName('/a/b/readme.txt')).toBe(false);
    const byPath = await fileFilter('b/*.md', '/a');
    expect(byPath('/a/b/readme.md')).toBe(true);
    expect(byPath('/a/c/b/readme.md')).toBe(false);
  });
});
