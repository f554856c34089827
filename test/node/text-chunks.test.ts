// How stored texts are cut into chunks, and which chunks a page of lines needs (lib/store/text-chunks.ts).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countLines, sliceLines } from '../../lib/shared/text.js';
import { MemoryOffloadStore } from '../../lib/store/memory-store.js';
import { checkChunkChars, chunkSpan, chunkText } from '../../lib/store/text-chunks.js';
import { result } from '../browser/fixtures/staged-result.js';

/** Texts with short and long lines, a final newline or not, and characters of every UTF-16 width. */
const text = fc.string({ unit: fc.constantFrom('a', 'b', '\n', '\n', 'é', '😀', '\ud800', '\r'), maxLength: 120 });
const chunkChars = fc.integer({ min: 2, max: 40 });

describe('chunkText', () => {
  it('cuts a text into chunks that join back to it, each within the size, never inside a surrogate pair', () => {
    fc.assert(
      fc.property(text, chunkChars, (text, size) => {
        const { chunks, layout } = chunkText(text, size);
        expect(chunks.join('')).toBe(text);
        for (const [i, chunk] of chunks.entries()) {
          expect(chunk.length).toBeGreaterThan(0);
          expect(chunk.length).toBeLessThanOrEqual(size);
          expect(layout.chunkNewlines[i]).toBe(chunk.split('\n').length - 1);
          const last = chunk.charCodeAt(chunk.length - 1);
          const next = chunks[i + 1]?.charCodeAt(0) ?? 0;
          expect(last >= 0xd800 && last <= 0xdbff && next >= 0xdc00 && next <= 0xdfff).toBe(false);
        }
        expect(layout.lines).toBe(countLines(text));
      }),
      { numRuns: 1000 },
    );
  });

  it('ends a chunk after a newline in its second half, so a page rarely needs two chunks', () => {
    const lines = `${'x'.repeat(7)}\n`.repeat(10); // 80 characters, a newline every 8
    expect(chunkText(lines, 30).chunks).toEqual([
      lines.slice(0, 24),
      lines.slice(24, 48),
      lines.slice(48, 72),
      lines.slice(72),
    ]);
    // No newline in the second half: cut at the size.
    expect(chunkText(`ab\n${'c'.repeat(20)}`, 10).chunks).toEqual([`ab\n${'c'.repeat(7)}`, 'c'.repeat(10), 'ccc']);
  });

  it('keeps no chunk for an empty text, and rejects a chunk size under 2', () => {
    expect(chunkText('', 10)).toEqual({ chunks: [], layout: { chunkNewlines: [], lines: 0 } });
    expect(() => checkChunkChars(1)).toThrow(/chunkChars must be an integer of at least 2, got 1/);
    expect(() => checkChunkChars(2.5)).toThrow(RangeError);
    expect(checkChunkChars(2)).toBe(2);
  });
});

describe('chunkSpan', () => {
  it('names the chunks that hold lines [offset, offset + limit), so their lines are the page', () => {
    fc.assert(
      fc.property(
        text,
        chunkChars,
        fc.nat(40),
        fc.option(fc.nat(40), { nil: undefined }),
        (text, size, offset, limit) => {
          const { chunks, layout } = chunkText(text, size);
          const span = chunkSpan(layout, offset, limit);
          const page = sliceLines(text, offset, limit);
          if (!span) {
            expect(page).toBe('');
            return;
          }
          const held = chunks.slice(span.first, span.last + 1).join('');
          expect(sliceLines(held, span.skip, limit)).toBe(page);
          expect(page.length).toBeGreaterThan(0);
          // No chunk too many: the page starts in the first (or right at its end) and ends in the last.
          const before = chunks.slice(0, span.first).join('').length;
          const start = text.length - sliceLines(text, offset).length;
          expect(start).toBeGreaterThanOrEqual(before);
          expect(start).toBeLessThanOrEqual(before + chunks[span.first]!.length);
          expect(start + page.length).toBeGreaterThan(before + held.length - chunks[span.last]!.length);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('needs one chunk for a page inside it, none past the end or for limit 0', () => {
    const lines = Array.from({ length: 100 }, (_, i) => `line ${String(i).padStart(3, '0')}\n`).join(''); // 9 characters a line
    const { chunks, layout } = chunkText(lines, 90); // 10 lines a chunk
    expect(chunks).toHaveLength(10);
    expect(chunkSpan(layout, 42, 5)).toEqual({ first: 4, last: 4, skip: 2 });
    expect(chunkSpan(layout, 38, 5)).toEqual({ first: 3, last: 4, skip: 8 });
    expect(chunkSpan(layout, 100, 5)).toBeUndefined();
    expect(chunkSpan(layout, 3, 0)).toBeUndefined();
    expect(chunkSpan(layout, 0)).toEqual({ first: 0, last: 9, skip: 0 });
  });
});

describe('MemoryOffloadStore readLines over chunks', () => {
  it('gives the lines sliceLines gives and the line count, whatever the chunk size', async () => {
    await fc.assert(
      fc.asyncProperty(
        text,
        chunkChars,
        fc.nat(40),
        fc.option(fc.nat(40), { nil: undefined }),
        async (text, size, offset, limit) => {
          const store = new MemoryOffloadStore({ chunkChars: size });
          await store.stage(result('t', 'k', text, 'turn'));
          await store.apply({ type: 'commit', threadId: 't', key: 'k', turnId: 'turn', maxTotalBytes: 10_000 });
          expect(await store.readLines('t', 'k', offset, limit)).toEqual({
            text: sliceLines(text, offset, limit),
            totalLines: countLines(text),
          });
          expect(await store.read('t', 'k')).toBe(text);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('rejects a bad chunk size when the store is made', () => {
    expect(() => new MemoryOffloadStore({ chunkChars: 0 })).toThrow(/chunkChars must be an integer of at least 2/);
  });
});
