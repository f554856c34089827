// The file tools' page as data (O11, B3): read_file's pages, followed by their next offset, give
// back the file's lines, as the tool made them and as the offload cuts them; the printed text is
// only ever made from the data.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fileTools } from '../../lib/agent/file-tools.js';
import { cutPage, fitPage, maxLineChars, nextOffset, printPage } from '../../lib/backends/file-tool-page.js';
import { fileToolSpecs } from '../../lib/backends/file-tool-specs.js';
import { MemoryBackend } from '../../lib/backends/memory-backend.js';
import { capFilePage } from '../../lib/offload/cut.js';
import type { ToolOutcome } from '../../lib/runtime/outcome.js';
import type { FilePage } from '../../lib/shared/content.js';
import { countLines, cutLine, splitLines } from '../../lib/shared/text.js';
import { estimateTokensByScript } from '../../lib/tokens/estimate-by-script.js';
import { TokenMeasure } from '../../lib/tokens/token-measure.js';
import { toolContext } from '../browser/fixtures/tool-context.js';

/** The file's lines as read_file shows them: without a final '\r', long ones cut. */
function shownLines(text: string): string[] {
  return splitLines(text).map((line) => cutLine(line.endsWith('\r') ? line.slice(0, -1) : line, maxLineChars));
}

function readFileOver(text: string, maxPageTokens: number) {
  const spec = fileToolSpecs({ maxPageTokens }).find((s) => s.name === 'read_file')!;
  const backend = new MemoryBackend({ '/f.txt': text });
  return (offset: number, limit: number) => spec.run({ path: '/f.txt', offset, limit }, backend);
}

// endOnFailure: shrinking texts of thousands of characters takes minutes; the seed and the first
// counterexample are reported as found.

/** Lines short and long (past the line cap), with '\r' and characters outside the BMP. */
const line = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 120, unit: 'grapheme' }) },
  { weight: 1, arbitrary: fc.string({ minLength: 1500, maxLength: 2600 }) },
  { weight: 1, arbitrary: fc.constantFrom('', '\r', 'a\rb', '😀'.repeat(700)) },
);
const fileText = fc
  .tuple(fc.array(line, { maxLength: 60 }), fc.boolean())
  .map(([lines, finalNewline]) => lines.map((l) => l.replaceAll('\n', ' ')).join('\n') + (finalNewline ? '\n' : ''));

/** Checks one page against the file it came from and what it prints. */
function checkPage(page: FilePage, expected: readonly string[], maxChars: number): void {
  const range = page.range!;
  expect(range.total).toBe(expected.length);
  expect(page.lines).toEqual(expected.slice(range.offset, range.offset + page.lines.length));
  const printed = printPage(page).split('\n');
  page.lines.forEach((shown, i) => {
    expect(printed[i]).toBe(`${String(range.offset + i + 1).padStart(6)}\t${shown}`);
  });
  const next = nextOffset(page);
  expect(next).toBe(range.offset + page.lines.length < range.total ? range.offset + page.lines.length : undefined);
  // The closing line says exactly where to continue, and is there only when something is left.
  if (next === undefined) expect(page.note).toBeUndefined();
  else
    expect(page.note).toMatch(
      new RegExp(
        `^\\[lines ${range.offset + 1}-${next} of ${range.total}(; page capped at \\d+ tokens)?; continue with read_file offset=${next}\\]$`,
      ),
    );
  expect(printPage(page).length).toBeLessThanOrEqual(maxChars);
}

describe('read_file pages as data', () => {
  it('from any offset, pages followed by their next offset give back every line once, in order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fileText,
        fc.nat(),
        fc.integer({ min: 1, max: 200 }),
        fc.integer({ min: 1000, max: 3000 }),
        async (text, start, limit, maxPageTokens) => {
          const expected = shownLines(text);
          const read = readFileOver(text, maxPageTokens);
          let offset = expected.length === 0 ? 0 : start % expected.length;
          const from = offset;
          const seen: string[] = [];
          for (;;) {
            const page = await read(offset, limit);
            if (expected.length === 0) {
              expect(page).toEqual({ lines: ['/f.txt is empty (0 lines)'] });
              return;
            }
            expect(page.lines.length).toBeGreaterThan(0);
            expect(page.lines.length).toBeLessThanOrEqual(limit);
            checkPage(page, expected, maxPageTokens * 4);
            seen.push(...page.lines);
            const next = nextOffset(page);
            if (next === undefined) break;
            offset = next;
          }
          expect(seen).toEqual(expected.slice(from));
          expect(countLines(text)).toBe(expected.length);
        },
      ),
      { numRuns: 100, endOnFailure: true },
    );
  });

  it('cut to any smaller limit, the cut pages followed by their next offset still miss no line', async () => {
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
          let offset = 0;
          const seen: string[] = [];
          for (;;) {
            const page = await read(offset, limit);
            const shown = printPage(page).length <= maxChars ? page : cutPage(page, maxChars, limitTokens);
            if (shown.cut) {
              expect(printPage(shown).length).toBeLessThanOrEqual(maxChars);
              // read_file's closing line is worded anew for the lines shown: it names the cut note's offset.
              const next = nextOffset(shown);
              expect(shown.note).toBe(
                page.note === undefined
                  ? undefined
                  : `[lines ${offset + 1}-${next} of ${expected.length}; continue with read_file offset=${next}]`,
              );
            }
            const next = nextOffset(shown);
            if (next !== undefined && shown.cut) {
              expect(printPage(shown)).toContain(`Continue with read_file offset=${next} and a smaller limit.]`);
            }
            // A first line longer than all the room is cut to its start: that line only is partial.
            if (shown.lines.length === 1 && shown.lines[0] !== expected[offset]) {
              expect(expected[offset]!.startsWith(shown.lines[0]!)).toBe(true);
              seen.push(expected[offset]!);
            } else {
              expect(shown.lines).toEqual(expected.slice(offset, offset + shown.lines.length));
              seen.push(...shown.lines);
            }
            if (next === undefined) break;
            offset = next;
          }
          expect(seen).toEqual(expected);
        },
      ),
      { numRuns: 100, endOnFailure: true },
    );
  });

  it('the offload prints a page within its threshold by any measure, cut by whole lines', async () => {
    const byScript = new TokenMeasure(estimateTokensByScript, 'test');
    await fc.assert(
      fc.asyncProperty(fileText, fc.integer({ min: 1000, max: 1500 }), async (text, thresholdTokens) => {
        const expected = shownLines(text);
        fc.pre(expected.length > 0);
        const page = await readFileOver(text, 5000)(0, 1000);
        const printed = capFilePage(page, thresholdTokens, byScript);
        expect(byScript.within(printed, thresholdTokens)).toBe(true);
        if (printed === printPage(page)) return;
        const lines = printed.split('\n');
        const cutNote = lines.findIndex((l) => l.startsWith('[Cut: this page is over the'));
        expect(cutNote).toBeGreaterThan(0);
        // Whole numbered lines from the first (or the start of a first line longer than all the
        // room), then the note, then the tool's closing line if it had one.
        const numbered = expected.slice(0, cutNote).map((shown, i) => `${String(i + 1).padStart(6)}\t${shown}`);
        if (cutNote === 1 && lines[0] !== numbered[0]) expect(numbered[0]!.startsWith(lines[0]!)).toBe(true);
        else expect(lines.slice(0, cutNote)).toEqual(numbered);
        // As many lines shown as precede the note (a partial first line counts).
        const next = cutNote < expected.length ? cutNote : undefined;
        expect(lines[cutNote], lines.slice(cutNote).join('\n')).toContain(
          next === undefined
            ? 'Ask for a smaller page'
            : `Continue with read_file offset=${next} and a smaller limit.]`,
        );
        expect(lines.slice(cutNote + 1)).toEqual(
          page.note === undefined
            ? []
            : [`[lines 1-${next} of ${expected.length}; continue with read_file offset=${next}]`],
        );
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
