// grep and glob in linear time, bounded and yielding (issue 12), on the backends that run in Node;
// test/browser/grep.test.ts runs the same contract on IndexedDB.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fileTools } from '../../lib/agent/file-tools.js';
import { CompositeBackend } from '../../lib/backends/composite-backend.js';
import { MemoryBackend } from '../../lib/backends/memory-backend.js';
import type { ToolOutcome } from '../../lib/runtime/outcome.js';
import { MemoryOffloadStore } from '../../lib/store/memory-store.js';
import { successText } from '../browser/fixtures/tool-context.js';
import { grepContract, offloadBackendWith } from '../browser/grep-contract.js';
import { toolContext } from './offload-fixtures.js';

grepContract('MemoryBackend', async (files) => new MemoryBackend(files));
grepContract('OffloadBackend over MemoryOffloadStore', (files) => offloadBackendWith(new MemoryOffloadStore(), files));

async function grepTool(
  backend: MemoryBackend | CompositeBackend,
  args: Record<string, unknown>,
): Promise<ToolOutcome | string> {
  const grep = fileTools(backend).find((t) => t.name === 'grep')!;
  return successText(await grep.execute(args, toolContext()));
}

describe('the grep tool', () => {
  it('says the pattern syntax and limits in its description', () => {
    const grep = fileTools(new MemoryBackend()).find((t) => t.name === 'grep')!;
    expect(grep.description).toContain('linear-time engine (RE2)');
    expect(grep.description).toContain('backreferences (\\1) and lookahead/lookbehind are not supported');
    expect(grep.description).toContain('(?i)');
    expect(grep.description).toContain('at most 1,000,000 lines');
  });

  it('answers the catastrophic pattern through the tool, and an unsupported one is an error saying why', async () => {
    const backend = new MemoryBackend({ '/page.html': `${'a'.repeat(32)}b\n${'a'.repeat(32)}\n` });
    expect(await grepTool(backend, { pattern: '(a+)+$' })).toBe(`/page.html:2: ${'a'.repeat(32)}`);
    const error = (await grepTool(backend, { pattern: '(a)\\1' })) as ToolOutcome;
    expect(error.type).toBe('error');
    expect(error.type === 'error' && error.message).toMatch(/^grep pattern "\(a\)\\\\1" uses a backreference/);
  });

  it('says when the line limit stopped the search, where, and how to narrow it', async () => {
    const backend = new MemoryBackend({ '/big.txt': 'a\n'.repeat(1_000_000), '/z.txt': 'needle\n' });
    const out = await grepTool(backend, { pattern: 'needle' });
    expect(out).toBe(
      '[search stopped after scanning 1,000,000 lines, before line 1 of /z.txt; 0 matches up to there (0 shown): ' +
        'narrow the search with path or glob, or a more specific pattern, e.g. path=/z.txt]',
    );
    expect(await grepTool(backend, { pattern: 'needle', path: '/z.txt' })).toBe('/z.txt:1: needle');
  });

  it('shows the text around the match in a long line from the column the backend found', async () => {
    const line = `${'x'.repeat(300_000)}NEEDLE${'y'.repeat(300_000)}`;
    const out = await grepTool(new MemoryBackend({ '/one.json': line }), { pattern: 'NEEDLE' });
    // A line longer than a page: the match names the read_file call that shows its part (B5).
    expect(out).toMatch(
      /^\/one\.json:1: …x+NEEDLEy+… \[line 1 has 600006 characters; this part: read_file \{"path":"\/one\.json","offset":0,"charOffset":299700,"limit":2450\}\]$/,
    );
  });
});

describe('CompositeBackend grep limits', () => {
  it('keeps the first maxMatches in path order across routes and says where it stopped, with whole paths', async () => {
    const routed = new MemoryBackend({ '/r.txt': 'hit\n'.repeat(5) });
    const composite = new CompositeBackend(new MemoryBackend({ '/a.txt': 'hit\n'.repeat(5), '/z.txt': 'hit\n' }), {
      '/m/': routed,
    });
    const found = await composite.grep('hit', { maxMatches: 7 });
    expect(found.map((m) => `${m.path}:${m.line}`)).toEqual([
      '/a.txt:1',
      '/a.txt:2',
      '/a.txt:3',
      '/a.txt:4',
      '/a.txt:5',
      '/m/r.txt:1',
      '/m/r.txt:2',
    ]);
    expect(found.stopped).toEqual({ reason: 'max-matches', path: '/m/r.txt', line: 2 });
    const scanned = await composite.grep('hit', { maxLines: 3 });
    expect(scanned.stopped).toEqual({ reason: 'max-lines', path: '/a.txt', line: 4 });
    expect((await composite.grep('hit')).stopped).toBeUndefined();
  });
});

describe('grep over a stored text in chunks', () => {
  // The texts' lines run across chunk ends; a native RegExp line by line is the reference (these
  // patterns mean the same in JavaScript and RE2, and none backtracks much on such short lines).
  const patterns = [
    'a',
    'ab',
    '^a',
    'b$',
    '^$',
    '^',
    'a\\sb',
    '\\s',
    '[^a]b',
    'a.b',
    '(?i)A',
    'a|^b',
    '\\bab\\b',
    'b*',
    'a{3}',
  ];

  function reference(text: string, pattern: string, maxMatches: number, maxLines: number) {
    const regex = pattern.startsWith('(?i)') ? new RegExp(pattern.slice(4), 'i') : new RegExp(pattern);
    const lines = text === '' ? [] : text.split('\n');
    if (text.endsWith('\n')) lines.pop();
    const found: Array<[number, number]> = [];
    for (const [i, line] of lines.entries()) {
      if (i >= maxLines) return { found, stopped: { reason: 'max-lines', path: '/t', line: i + 1 } };
      const match = regex.exec(line);
      if (!match) continue;
      found.push([i + 1, match.index + 1]);
      if (found.length >= maxMatches) return { found, stopped: { reason: 'max-matches', path: '/t', line: i + 1 } };
    }
    return { found, stopped: undefined };
  }

  it('finds the lines and columns a line-by-line search finds, and stops at the same line', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: fc.constantFrom('a', 'b', ' ', '\n'), maxLength: 80 }),
        fc.constantFrom(...patterns),
        fc.integer({ min: 2, max: 40 }),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 30 }),
        async (text, pattern, chunkChars, maxMatches, maxLines) => {
          const store = new MemoryOffloadStore({ chunkChars });
          const backend = await offloadBackendWith(store, { '/t': text });
          const found = await backend.grep(pattern, { maxMatches, maxLines });
          const expected = reference(text, pattern, maxMatches, maxLines);
          expect(found.map((m) => [m.line, m.column])).toEqual(expected.found);
          expect(found.map((m) => m.text)).toEqual(expected.found.map(([line]) => text.split('\n')[line - 1]));
          expect(found.stopped).toEqual(expected.stopped);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('reads the chunks of each file, not the joined text', async () => {
    const store = new MemoryOffloadStore({ chunkChars: 16 });
    const backend = await offloadBackendWith(store, { '/a': 'one needle\ntwo\n'.repeat(20), '/b': 'needle\n' });
    const asked: string[] = [];
    const { read, readChunks } = store;
    store.read = (threadId, key) => {
      asked.push(`read ${key}`);
      return read.call(store, threadId, key);
    };
    store.readChunks = (threadId, key) => {
      asked.push(`readChunks ${key}`);
      return readChunks.call(store, threadId, key);
    };
    const found = await backend.grep('needle');
    expect(found.map((m) => `${m.path}:${m.line}:${m.column}`)).toEqual([
      ...Array.from({ length: 20 }, (_, i) => `/a:${2 * i + 1}:5`),
      '/b:1:1',
    ]);
    expect(asked).toEqual(['readChunks a', 'readChunks b']);
  });
});
