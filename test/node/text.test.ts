import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  countLines,
  cutLine,
  cutToBytes,
  cutToChars,
  cutToTokens,
  estimateTokens,
  excerptAround,
  sliceLines,
  splitLines,
  utf8Bytes,
} from '../../lib/shared/text.js';

const encoder = new TextEncoder();
/** Strings mixing ASCII, 2-, 3- and 4-byte characters, lone surrogates and newlines. */
const mixedText = fc.string({
  unit: fc.constantFrom('a', 'é', '中', '😀', '\n', '\ud800', '\udc00', 'z'),
  maxLength: 60,
});

describe('estimateTokens', () => {
  it('counts four characters a token, rounding up', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('abcd')).toBe(1);
    expect(estimateTokens('abcde')).toBe(2);
  });
});

/** Mostly ASCII, as tool output usually is: long ASCII runs, then anything (the counting has an ASCII fast path). */
const mostlyAscii = fc
  .tuple(fc.string({ unit: fc.constantFrom('a', ' ', '\n', '~', '\u007f'), maxLength: 200 }), mixedText)
  .map(([ascii, rest]) => ascii + rest);

describe('utf8Bytes', () => {
  it('counts encoded bytes, not characters', () => {
    expect(utf8Bytes('é😀')).toBe(6);
    expect(utf8Bytes('中')).toBe(3);
    expect(utf8Bytes('plain ascii\n')).toBe(12);
    expect(utf8Bytes(`${'a'.repeat(1000)}\u0080`)).toBe(1002);
  });
  it('agrees with TextEncoder on any text, lone surrogates included', () => {
    fc.assert(fc.property(mixedText, (text) => utf8Bytes(text) === encoder.encode(text).length));
    fc.assert(fc.property(mostlyAscii, (text) => utf8Bytes(text) === encoder.encode(text).length));
  });
});

describe('lines', () => {
  it('a final newline ends the last line; an empty text has no lines', () => {
    expect(countLines('')).toBe(0);
    expect(countLines('a')).toBe(1);
    expect(countLines('a\n')).toBe(1);
    expect(countLines('a\nb')).toBe(2);
    expect(countLines('\n\n')).toBe(2);
    expect(splitLines('a\nb\n')).toEqual(['a', 'b']);
    expect(splitLines('')).toEqual([]);
    expect(splitLines('\n')).toEqual(['']);
  });

  it('sliceLines returns lines [offset, offset+limit) with their newlines', () => {
    const text = 'l0\nl1\nl2\nl3';
    expect(sliceLines(text, 0, 2)).toBe('l0\nl1\n');
    expect(sliceLines(text, 2, 5)).toBe('l2\nl3');
    expect(sliceLines(text, 1)).toBe('l1\nl2\nl3');
    expect(sliceLines(text, 4, 1)).toBe('');
    expect(sliceLines('a\n', 1, 1)).toBe('');
  });

  it('pages of any size concatenate back to the text, and agree with splitLines and countLines', () => {
    fc.assert(
      fc.property(mixedText, fc.integer({ min: 1, max: 7 }), (text, size) => {
        let joined = '';
        const lines: string[] = [];
        for (let offset = 0; offset < countLines(text); offset += size) {
          const page = sliceLines(text, offset, size);
          joined += page;
          lines.push(...splitLines(page));
        }
        return joined === text && lines.length === countLines(text) && lines.join('\n') === splitLines(text).join('\n');
      }),
    );
  });

  it('counts, slices and cuts a multi-megabyte text', () => {
    const text = 'x'.repeat(99).concat('\n').repeat(50_000); // 5 MB, 50,000 lines
    expect(countLines(text)).toBe(50_000);
    expect(sliceLines(text, 49_999, 10)).toBe(`${'x'.repeat(99)}\n`);
    expect(cutToBytes(text, 1_000_000).length).toBe(1_000_000);
  });
});

describe('cutToBytes', () => {
  it('never splits a multi-byte character or a surrogate pair at the boundary', () => {
    expect(cutToBytes('ab😀', 5)).toBe('ab'); // the emoji needs 4 bytes, only 3 remain
    expect(cutToBytes('ab😀', 6)).toBe('ab😀');
    expect(cutToBytes('中文', 5)).toBe('中'); // 3 + 3 bytes
    expect(cutToBytes('中文', 6)).toBe('中文');
    expect(cutToBytes('é', 1)).toBe('');
    expect(cutToBytes('anything', 0)).toBe('');
  });

  it('counts a lone surrogate as the 3 bytes TextEncoder writes for it', () => {
    expect(cutToBytes('\ud800a', 3)).toBe('\ud800');
    expect(cutToBytes('\ud800a', 2)).toBe('');
  });

  it('rejects a negative or non-integer size', () => {
    expect(() => cutToBytes('abc', -1)).toThrow(/maxBytes must be a non-negative integer, got -1/);
    expect(() => cutToBytes('abc', 1.5)).toThrow(RangeError);
  });

  it('property: the longest prefix within the bound, cut on a character boundary', () => {
    fc.assert(
      fc.property(fc.oneof(mixedText, mostlyAscii), fc.integer({ min: 0, max: 300 }), (text, maxBytes) => {
        const cut = cutToBytes(text, maxBytes);
        const bytes = encoder.encode(cut).length;
        if (!text.startsWith(cut) || bytes > maxBytes) return false;
        // Never ends between the halves of a surrogate pair.
        const last = cut.charCodeAt(cut.length - 1);
        const next = text.charCodeAt(cut.length);
        if (last >= 0xd800 && last <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) return false;
        if (cut === text) return true;
        // Maximal: the next whole character would not fit.
        const nextChar = String.fromCodePoint(text.codePointAt(cut.length)!);
        const nextLength = nextChar.length === 2 && text.slice(cut.length, cut.length + 2) === nextChar ? 2 : 1;
        return encoder.encode(text.slice(0, cut.length + nextLength)).length > maxBytes;
      }),
      { numRuns: 2000 },
    );
  });
});

describe('cutToChars and cutToTokens', () => {
  it('keep a surrogate pair whole', () => {
    expect(cutToChars('a😀', 2)).toBe('a');
    expect(cutToChars('a😀', 3)).toBe('a😀');
    expect(cutToTokens('x'.repeat(10), 2)).toBe('xxxxxxxx');
    expect(cutToTokens('abcdefg😀', 2)).toBe('abcdefg');
  });
  it('property: within the token bound, a prefix, never ending on a high surrogate that had its pair', () => {
    fc.assert(
      fc.property(mixedText, fc.integer({ min: 0, max: 20 }), (text, maxTokens) => {
        const cut = cutToTokens(text, maxTokens);
        const last = cut.charCodeAt(cut.length - 1);
        const next = text.charCodeAt(cut.length);
        const splitPair = last >= 0xd800 && last <= 0xdbff && next >= 0xdc00 && next <= 0xdfff;
        return (
          text.startsWith(cut) &&
          estimateTokens(cut) <= maxTokens &&
          !splitPair &&
          cut.length >= Math.min(text.length, maxTokens * 4) - 1
        );
      }),
    );
  });
});

describe('cutLine and excerptAround', () => {
  it('cutLine keeps short lines and marks a cut one with its full length', () => {
    expect(cutLine('short', 10)).toBe('short');
    const cut = cutLine('y'.repeat(5000), 2000);
    expect(cut.startsWith('y'.repeat(2000))).toBe(true);
    expect(cut).toContain('[line cut: 2000 of 5000 characters shown]');
    expect(cut.length).toBeLessThan(2100);
  });

  it('excerptAround shows the text around a position of a long line', () => {
    const line = `${'a'.repeat(10_000)}NEEDLE${'b'.repeat(10_000)}`;
    const excerpt = excerptAround(line, 10_000, 100);
    expect(excerpt).toContain('NEEDLE');
    expect(excerpt.startsWith('…')).toBe(true);
    expect(excerpt.endsWith('…')).toBe(true);
    expect(excerpt.length).toBeLessThanOrEqual(102);
    expect(excerptAround('short', 2, 100)).toBe('short');
    expect(excerptAround(`${'a'.repeat(200)}END`, 200, 50).endsWith('END')).toBe(true);
  });
});
