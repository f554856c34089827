// The file tools' page as data (O11, B3, B5): read_file's pages, followed by their closing call, give
// back the file's every character, as the tool made them and as the offload cuts them; the printed text is
// only ever made from the data.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fileTools } from '../../lib/agent/file-tools.js';
import { cutPage, fitPage, nextRead, printPage, type ReadPosition } from '../../lib/backends/file-tool-page.js';
import { fileToolSpecs } from '../../lib/backends/file-tool-specs.js';
import { MemoryBackend } from '../../lib/backends/memory-backend.js';
import { capFilePage } from '../../lib/offload/cut.js';
import type { ToolOutcome } from '../../lib/runtime/outcome.js';
import type { FilePage } from '../../lib/shared/content.js';
import { countLines, splitLines } from '../../lib/shared/text.js';
import { estimateTokensByScript } from '../../lib/tokens/estimate-by-script.js';
import { TokenMeasure } from '../../lib/tokens/token-measure.js';
import { toolContext } from '../browser/fixtures/tool-context.js';

/** The file's lines as read_file shows them: without a final '\r', never cut (a long one is paged in parts, B5). */
function shownLines(text: string): string[] {
  return splitLines(text).map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
}

function readFileOver(text: string, maxPageTokens: number) {
  const spec = fileToolSpecs({ maxPageTokens }).find((s) => s.name === 'read_file')!;
  const backend = new MemoryBackend({ '/f.txt': text });
  return (at: ReadPosition, limit: number) =>
    spec.run({ path: '/f.txt', offset: at.offset, limit, charOffset: at.charOffset }, backend);
}

// endOnFailure: shrinking texts of thousands of characters takes minutes; the seed and the first
// counterexample are reported as found.

/** Lines short and long (past a small page's room), with '\r' and characters outside the BMP. */
const line = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 120, unit: 'grapheme' }) },
  { weight: 1, arbitrary: fc.string({ minLength: 1500, maxLength: 9000 }) },
  { weight: 1, arbitrary: fc.constantFrom('', '\r', 'a\rb', '😀'.repeat(2700)) },
);
const fileText = fc
  .tuple(fc.array(line, { maxLength: 60 }), fc.boolean())
  .map(([lines, finalNewline]) => lines.map((l) => l.replaceAll('\n', ' ')).join('\n') + (finalNewline ? '\n' : ''));

/** Adds what a page shows to `seen` (line index → its characters read so far), checking each row against the file. */
function collect(page: FilePage, expected: readonly string[], seen: Map<number, string>): void {
  const range = page.range!;
  page.lines.forEach((shown, row) => {
    const index = range.offset + row;
    const part = range.parts?.find((p) => p.row === row);
    const from = part?.from ?? 0;
    expect(part === undefined ? shown : shown, `line ${index + 1}`).toBe(
      expected[index]!.slice(from, from + shown.length),
    );
    if (part) expect(part.length).toBe(expected[index]!.length);
    else expect(shown).toBe(expected[index]);
    // A page continues where the last one stopped: nothing skipped, nothing shown twice.
    expect(seen.get(index) ?? '').toHaveLength(from);
    seen.set(index, (seen.get(index) ?? '') + shown);
  });
}

/** Checks what a page prints: each row numbered (a part under its label), the closing line the exact call that continues it. */
function checkPrinted(page: FilePage, maxChars: number): void {
  const range = page.range!;
  const printed = printPage(page);
  expect(printed.length).toBeLessThanOrEqual(maxChars);
  const rows = printed.split('\n');
  let at = 0;
  page.lines.forEach((shown, i) => {
    const number = `${String(range.offset + i + 1).padStart(6)}\t`;
    const part = range.parts?.find((p) => p.row === i);
    if (part === undefined) {
      expect(rows[at++]).toBe(`${number}${shown}`);
      return;
    }
    expect(rows[at++]).toBe(
      `${number}[part of line ${range.offset + i + 1}: characters ${part.from + 1}-${part.from + shown.length} of ${part.length}]`,
    );
    expect(rows[at++]).toBe(shown);
  });
  const next = nextRead(page);
  if (next === undefined) {
    expect(page.note).toBeUndefined();
    return;
  }
  const call = /continue with read_file (\{.*\})\]$/.exec(page.note!);
  expect(call, page.note).not.toBeNull();
  expect(JSON.parse(call![1]!)).toEqual({
    path: '/f.txt',
    offset: next.offset,
    ...(next.charOffset > 0 ? { charOffset: next.charOffset } : {}),
    limit: range.pageLines,
  });
}

describe('read_file pages as data (B5)', () => {
  it('from any line, pages followed by their closing call give back every character once, in order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fileText,
        fc.nat(),
        fc.integer({ min: 1, max: 200 }),
        fc.integer({ min: 1000, max: 3000 }),
        async (text, start, limit, maxPageTokens) => {
          const expected = shownLines(text);
          const read = readFileOver(text, maxPageTokens);
          let at: ReadPosition = { offset: expected.length === 0 ? 0 : start % expected.length, charOffset: 0 };
          const from = at.offset;
          const seen = new Map<number, string>();
          for (;;) {
            const page = await read(at, limit);
            if (expected.length === 0) {
              expect(page).toEqual({ lines: ['/f.txt is empty (0 lines)'] });
              return;
            }
            expect(page.range!.total).toBe(expected.length);
            expect(page.lines.length).toBeGreaterThan(0);
            expect(page.lines.length).toBeLessThanOrEqual(limit);
            checkPrinted(page, maxPageTokens * 4);
            collect(page, expected, seen);
            const next = nextRead(page);
            if (next === undefined) break;
            at = next;
          }
          expect([...seen.values()]).toEqual(expected.slice(from));
          expect(countLines(text)).toBe(expected.length);
        },
      ),
      { numRuns: 100, endOnFailure: true },
    );
  });

  it('cut to any smaller limit, the cut pages followed by their closing call still miss no character', async () => {
    await fc.assert(
      fc.asyncProperty(
        fileText,
        fc.integer({ min: 1, max: 500 }),
        fc.integer({ min: 100, max: 1000 }),
        async (text, limit, limitTokens) => {
          const expected = shownLines(text);
          fc.pre(expected.length > 0);
          const read = readFileOver(text, 3000);
          const maxChars = limitTokens * 4;
          let at: ReadPosition = { offset: 0, charOffset: 0 };
          const seen = new Map<number, string>();
          for (;;) {
            const page = await read(at, limit);
            const shown = printPage(page).length <= maxChars ? page : cutPage(page, maxChars, limitTokens);
            checkPrinted(shown, shown.cut ? maxChars : 3000 * 4);
            if (shown.cut && nextRead(shown) !== undefined) {
              expect(printPage(shown)).toContain('The call below continues where it stops.]');
            }
            collect(shown, expected, seen);
            const next = nextRead(shown);
            if (next === undefined) break;
            at = next;
          }
          expect([...seen.values()]).toEqual(expected);
        },
      ),
      { numRuns: 100, endOnFailure: true },
    );
  });

  it('the offload prints a page within its threshold by any measure', async () => {
    const byScript = new TokenMeasure(estimateTokensByScript, 'test');
    await fc.assert(
      fc.asyncProperty(fileText, fc.integer({ min: 1000, max: 1500 }), async (text, thresholdTokens) => {
        fc.pre(shownLines(text).length > 0);
        const page = await readFileOver(text, 5000)({ offset: 0, charOffset: 0 }, 1000);
        const printed = capFilePage(page, thresholdTokens, byScript);
        expect(byScript.within(printed, thresholdTokens)).toBe(true);
        if (printed === printPage(page)) return;
        expect(printed).toContain('[Cut: this page is over the');
      }),
      { numRuns: 100, endOnFailure: true },
    );
  });
});

describe('listing pages', () => {
  it('a tool keeps the most lines from the first that fit its characters, and always the first', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 300 }), { maxLength: 80 }), fc.nat({ max: 5000 }), (items, chars) => {
        const page = fitPage({ lines: items }, chars);
        expect(items.slice(0, page.lines.length)).toEqual(page.lines);
        if (items.length > 0) expect(page.lines.length).toBeGreaterThan(0);
        if (page.lines.length > 1) expect(printPage(page).length + 1).toBeLessThanOrEqual(chars);
        const longer = items.slice(0, page.lines.length + 1);
        if (longer.length > page.lines.length && page.lines.length > 0) {
          expect(longer.join('\n').length + 1).toBeGreaterThan(chars);
        }
      }),
    );
  });

  it('a cut listing says to narrow the search and keeps the closing line, cut to 400 characters', () => {
    const page: FilePage = {
      lines: Array.from({ length: 300 }, (_, i) => `/logs/entry-${i}.txt (12 bytes)`),
      note: `[showing 300 of 900 files; narrow the pattern${'!'.repeat(600)}]`,
    };
    const printed = printPage(cutPage(page, 4000, 1000));
    expect(printed.length).toBeLessThanOrEqual(4000);
    const lines = printed.split('\n');
    expect(lines.at(-1)).toBe(page.note!.slice(0, 400));
    expect(lines.at(-2)).toBe(
      `[Cut: this page is over the 1000-token limit for a tool result; only its first ${lines.length - 2} of 300 lines are shown. Ask for a smaller page: a smaller limit, or a narrower grep/glob (a path or glob that matches less).]`,
    );
    expect(lines.slice(0, -2)).toEqual(page.lines.slice(0, lines.length - 2));
  });
});

describe('a page travels with its result', () => {
  it("is the file tools' outcome's page, beside the text it prints, whatever object runs the tool", async () => {
    const [readFile] = fileTools(new MemoryBackend({ '/f.txt': 'one\ntwo\nthree\n' }));
    for (const tool of [readFile!, { ...readFile! }]) {
      const outcome = (await tool.execute({ path: '/f.txt', limit: 1 }, toolContext())) as ToolOutcome;
      expect(outcome).toMatchObject({ type: 'success', page: { lines: ['one'], range: { offset: 0, total: 3 } } });
      const { content, page } = outcome as Extract<ToolOutcome, { type: 'success' }>;
      expect(content).toEqual([{ type: 'text', text: printPage(page!) }]);
    }
  });
});
