import { describe, expect, it } from 'vitest';
import type { Backend, GrepMatches } from '../../lib/backends/backend.js';
import { OffloadBackend } from '../../lib/offload/offload-backend.js';
import { BackendError } from '../../lib/shared/errors.js';
import type { WritableOffloadStore } from '../../lib/store/offload-store.js';
import { put } from './store-contract.js';

/** An OffloadBackend over `store` holding `files` as one thread's results, stored in the order given. */
export async function offloadBackendWith(store: WritableOffloadStore, files: Record<string, string>): Promise<Backend> {
  const threadId = `grep-${Math.random().toString(36).slice(2)}`;
  for (const [path, text] of Object.entries(files)) await put(store, threadId, path.slice(1), text, 'turn', 2 ** 30);
  return new OffloadBackend(store, threadId);
}

/**
 * grep's hardening, the same on every backend holding whole texts: MemoryBackend (Node), and the
 * offload's backend over MemoryOffloadStore (Node) and IndexedDbOffloadStore (Chromium).
 * `make` builds a backend holding these files (paths without directories: '/a', '/b').
 */
export function grepContract(name: string, make: (files: Record<string, string>) => Promise<Backend>): void {
  const rejection = async (promise: Promise<unknown>): Promise<BackendError> => {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(BackendError);
    return error as BackendError;
  };

  describe(`grep in linear time: ${name}`, () => {
    it('answers the catastrophic (a+)+$ over 32 a then b, and over 100,000 a then b, with the right lines', async () => {
      const evil = `${'a'.repeat(32)}b`;
      const longer = `${'a'.repeat(100_000)}b`;
      const backend = await make({ '/a': `${evil}\n${'a'.repeat(40)}\n${longer}\n` });
      // Under a backtracking engine the first of these takes ~49 s, the others hours: the test would time out.
      expect((await backend.grep('(a+)+$')).map((m) => m.line)).toEqual([2]);
      expect((await backend.grep('(a+)+b$')).map((m) => m.line)).toEqual([1, 3]);
      expect((await backend.grep('^(a|aa)+$')).map((m) => m.line)).toEqual([2]);
    });

    it('gives the page back while it searches: a timer set before a large search fires before it ends', async () => {
      const line = `${'a'.repeat(32)}b\n`;
      const backend = await make({ '/a': line.repeat(40_000), '/b': `${'a'.repeat(1 << 20)}b` });
      let fired = false;
      setTimeout(() => {
        fired = true;
      }, 0);
      const found = await backend.grep('(a+)+$');
      expect(found).toEqual([]);
      expect(found.stopped).toBeUndefined();
      expect(fired).toBe(true);
    });

    it('rejects what the engine does not support with a clear invalid-argument error naming the pattern', async () => {
      const backend = await make({ '/a': 'abab\n' });
      const cases: Array<[string, RegExp]> = [
        ['(a)b\\1', /uses a backreference/],
        ['(?<x>a)\\k<x>', /uses a named backreference/],
        ['a(?=b)', /uses a lookahead/],
        ['a(?!c)', /uses a lookahead/],
        ['(?<=a)b', /uses a lookbehind/],
        ['(?<!x)b', /uses a lookbehind/],
      ];
      for (const [pattern, what] of cases) {
        const error = await rejection(backend.grep(pattern));
        expect(error.code).toBe('invalid-argument');
        expect(error.message).toMatch(what);
        expect(error.message).toContain(JSON.stringify(pattern));
        expect(error.message).toContain('linear-time engine');
      }
      // In a character class, '(?=' and '\1' are plain characters: no error.
      expect((await backend.grep('[(?=]|b')).map((m) => m.line)).toEqual([1]);
      const invalid = await rejection(backend.grep('(ab'));
      expect(invalid.message).toMatch(/^invalid regular expression "\(ab": missing closing \)/);
      const complex = await rejection(backend.grep('\\w{1,999}'));
      expect(complex.message).toMatch(/is too complex: it compiles to \d+ instructions, at most 1000/);
    });

    it('reads JavaScript syntax: named groups, \\d, \\u{…}, \\p{L}, (?i), and $ / ^ at the line ends', async () => {
      const backend = await make({ '/a': 'Year 2024\nno digits\nsmile 😀\nÉcole\nEND\n' });
      const lines = async (pattern: string) => (await backend.grep(pattern)).map((m) => m.line);
      expect(await lines('(?<year>\\d{4})')).toEqual([1]);
      expect(await lines('\\u{1F600}')).toEqual([3]);
      expect(await lines('^\\p{Lu}\\p{Ll}+$')).toEqual([4]);
      expect(await lines('(?i)^end$')).toEqual([5]);
      expect(await lines('^end$')).toEqual([]);
    });

    it('stops at maxMatches and maxLines and says where; glob patterns are linear too', async () => {
      const backend = await make({ '/a': 'hit\n'.repeat(50), '/b': 'hit\n'.repeat(50) });
      const some: GrepMatches = await backend.grep('hit', { maxMatches: 10 });
      expect(some).toHaveLength(10);
      expect(some.stopped).toEqual({ reason: 'max-matches', path: '/a', line: 10 });
      const scanned = await backend.grep('hit', { maxLines: 70 });
      expect(scanned).toHaveLength(70);
      expect(scanned.stopped).toEqual({ reason: 'max-lines', path: '/b', line: 21 });
      expect(await backend.grep('hit', { maxMatches: 100 })).toHaveLength(100);
      expect((await backend.grep('hit', { maxMatches: 100 })).stopped).toEqual({
        reason: 'max-matches',
        path: '/b',
        line: 50,
      });
      const badLimit = await rejection(backend.grep('hit', { maxLines: 0 }));
      expect(badLimit.message).toBe('grep maxLines must be an integer of at least 1, got 0');
      // '*a' repeated over a long name without the final 'b': exponential for a backtracking RegExp.
      const longName = `/${'a'.repeat(60)}`;
      const named = await make({ [longName]: 'none\n' });
      expect(await named.glob(`${'*a'.repeat(30)}*b`)).toEqual([]);
      expect(await named.glob(`${'*a'.repeat(30)}*`)).toEqual([{ path: longName, size: 5 }]);
      expect(await named.grep('none', { glob: `${'*a'.repeat(30)}*b` })).toEqual([]);
    });

    it('stops when its signal is aborted, with the signal’s reason', async () => {
      const backend = await make({ '/a': `${'x'.repeat(64)}\n`.repeat(100_000) });
      const controller = new AbortController();
      // A pattern with no literal part, so the search takes long enough for the timer to fire in it.
      const searching = backend.grep('[yz]\\d', { signal: controller.signal });
      setTimeout(() => controller.abort(new Error('stop searching')), 0);
      await expect(searching).rejects.toThrow('stop searching');
    });

    it('finds matches anywhere in a line of 1 MiB, also across the pieces it is searched in', async () => {
      const size = 1 << 20;
      // Matches placed at piece edges (multiples of 65,536) and just before and after them.
      const spots = [0, 65_530, 65_536, 131_070, 500_001, size - 9];
      for (const at of spots) {
        const line = `${'x'.repeat(at)}needle9${'x'.repeat(size - at)}`;
        const backend = await make({ '/a': `short\n${line}\nshort\n` });
        const found = await backend.grep('needle\\d');
        expect(found.map((m) => [m.line, m.column])).toEqual([[2, at + 1]]);
      }
      const line = `ab${'x'.repeat(size)}yz`;
      const backend = await make({ '/a': line });
      const count = async (pattern: string) => (await backend.grep(pattern)).length;
      // Anchors and word boundaries hold at the line's ends only, not at the pieces' edges.
      expect(await count('^ab')).toBe(1);
      expect(await count('^x')).toBe(0);
      expect(await count('yz$')).toBe(1);
      expect(await count('x$')).toBe(0);
      expect(await count('\\bx')).toBe(0);
      expect(await count('x\\b')).toBe(0);
      expect(await count('x{200}y')).toBe(1);
    });
  });
}
