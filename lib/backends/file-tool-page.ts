// A file tool's page, as data: what it shows, where that lies in the file, and the closing line
// about the rest. The tools make pages, `printPage` words them for the model, and `cutPage` makes
// one smaller (the offload's threshold, O11) from the data, never from the printed text.
import type { FilePage, LinePart } from '../shared/content.js';
import { cutToChars } from '../shared/text.js';

/** A longer line is cut in listings and grep's matches: one line must never fill a page. read_file pages it instead (B5). */
export const maxLineChars = 2000;
/** A page's closing line once the page is cut: notes never echo model-sized input, but a path may be long. */
const maxNoteChars = 400;

/** A page of one line: a message such as "No matches …" or "Wrote …". */
export function messagePage(text: string): FilePage {
  return { lines: [text] };
}

/** Where a read_file call starts: a line (0-based) and, within a long line, a character of it (B5). */
export interface ReadPosition {
  offset: number;
  charOffset: number;
}

/**
 * The exact read_file call, as JSON the model can copy, that shows a page from `at` (B5): the one
 * wording of "how to read it back" that the pages, the previews and grep's matches use.
 */
export function readFileCall(path: string | undefined, at: ReadPosition, limit: number): string {
  const args: Record<string, unknown> = path === undefined ? {} : { path };
  args.offset = at.offset;
  if (at.charOffset > 0) args.charOffset = at.charOffset;
  args.limit = limit;
  return `read_file ${JSON.stringify(args)}`;
}

/** The part of the row at `row`, when the row shows only part of its line. */
function partOf(page: FilePage, row: number): LinePart | undefined {
  return page.range?.parts?.find((part) => part.row === row);
}

/** Where the next page of a read_file page starts (within a line when it ends in one); undefined at the file's end and for other pages. */
export function nextRead(page: FilePage): ReadPosition | undefined {
  const { range } = page;
  if (range === undefined || page.lines.length === 0) return undefined;
  const last = page.lines.length - 1;
  const part = partOf(page, last);
  if (part !== undefined) {
    const end = part.from + page.lines[last]!.length;
    if (end < part.length) return { offset: range.offset + last, charOffset: end };
  }
  const next = range.offset + page.lines.length;
  return next < range.total ? { offset: next, charOffset: 0 } : undefined;
}

function lineNumber(offset: number): string {
  return `${String(offset + 1).padStart(6)}\t`;
}

/** The label a part of a line is printed under: which line, and which of its characters (1-based). */
function partLabel(line: number, from: number, shown: number, length: number): string {
  return `[part of line ${line + 1}: characters ${from + 1}-${from + shown} of ${length}]`;
}

/**
 * The page's lines as printed: read_file's numbered from `offset + 1`, right-aligned, then a tab; a
 * part of a line under a numbered label saying which part, its text on the row after, as it is.
 */
function printedLines(page: FilePage): string[] {
  const { range } = page;
  if (range === undefined) return [...page.lines];
  return page.lines.map((line, i) => {
    const part = partOf(page, i);
    const number = lineNumber(range.offset + i);
    if (part === undefined) return `${number}${line}`;
    return `${number}${partLabel(range.offset + i, part.from, line.length, part.length)}\n${line}`;
  });
}

/** The page as the model reads it: its lines, the cut's note when it was cut, then the tool's closing line. */
export function printPage(page: FilePage): string {
  const lines = printedLines(page);
  if (page.cut) lines.push(cutNote(page));
  if (page.note !== undefined) lines.push(page.note);
  return lines.join('\n');
}

/** read_file's closing line when some of the file remains after the page: the exact call that shows it (B5). */
export function moreLinesNote(page: FilePage, cappedAtTokens: number | undefined): string | undefined {
  const next = nextRead(page);
  if (next === undefined) return undefined;
  return linesNote(page.range!, page.range!.offset + page.lines.length, next, cappedAtTokens);
}

function linesNote(range: FilePage['range'] & {}, last: number, next: ReadPosition, cappedAtTokens?: number): string {
  const capped = cappedAtTokens === undefined ? '' : `; page capped at ${cappedAtTokens} tokens`;
  const call = readFileCall(range.path, next, range.pageLines ?? 100);
  return `[lines ${range.offset + 1}-${last} of ${range.total}${capped}; continue with ${call}]`;
}

/** A listing's closing line when it shows fewer items than there are. */
export function moreItemsNote(shown: number, total: number, noun: string, advice: string): string {
  return `[showing ${shown} of ${total} ${noun}; ${advice}]`;
}

/** How many of `lines`, from the first, fit in `chars` characters, each counted with its newline. */
function linesWithin(lines: readonly string[], chars: number): number {
  let used = 0;
  let count = 0;
  for (const line of lines) {
    if (used + line.length + 1 > chars) break;
    used += line.length + 1;
    count++;
  }
  return count;
}

/**
 * The page's first lines whose printed form fits in `chars` characters (always at least the first):
 * a tool's own cap. A read_file page is fitted by its rows, a long line in parts (`fitRows`).
 */
export function fitPage(page: FilePage, chars: number): FilePage {
  if (page.range !== undefined) return fitRows(page, chars);
  const count = Math.max(1, linesWithin(printedLines(page), chars));
  return count >= page.lines.length ? page : { ...page, lines: page.lines.slice(0, count) };
}

/**
 * A read_file page's rows that print within `chars` (B5): whole lines from the first; a line that
 * does not fit is left for the next page, unless it is the first row or a line longer than any
 * page holds, which is shown in part — as much of it as the room left takes, so every page is full
 * and the next one continues within the line. The first row always shows something.
 */
function fitRows(page: FilePage, chars: number): FilePage {
  const range = page.range!;
  const rows: string[] = [];
  const parts: LinePart[] = [];
  let used = 0;
  for (let row = 0; row < page.lines.length; row++) {
    const text = page.lines[row]!;
    const part = partOf(page, row);
    const line = range.offset + row;
    const from = part?.from ?? 0;
    const length = part?.length ?? text.length;
    const number = lineNumber(line).length;
    const labelled = number + partLabel(line, from, length, length).length + 1;
    const whole = part === undefined ? number + text.length + 1 : labelled + text.length + 1;
    if (used + whole <= chars) {
      rows.push(text);
      if (part !== undefined) parts.push({ ...part, row });
      used += whole;
      continue;
    }
    const room = chars - used - labelled - 1;
    // A line a later page shows whole waits for it; a long one starts here when a good share of the page is left.
    if (row > 0 && (length <= chars || room < chars / 4)) break;
    rows.push(cutToChars(text, Math.max(2, room)));
    parts.push({ row, from, length });
    break;
  }
  const unchanged = rows.length === page.lines.length && rows.at(-1) === page.lines.at(-1);
  if (unchanged) return page;
  const fitted = parts.length === 0 ? omitParts(range) : { ...range, parts };
  return { ...page, lines: rows, range: fitted };
}

function omitParts(range: FilePage['range'] & {}): FilePage['range'] {
  const { parts: _parts, ...rest } = range;
  return rest;
}

function cutNote(page: FilePage): string {
  const { limitTokens, of } = page.cut!;
  const over = `[Cut: this page is over the ${limitTokens}-token limit for a tool result;`;
  if (page.range !== undefined) {
    return nextRead(page) === undefined
      ? `${over} only part of it is shown.]`
      : `${over} only part of it is shown. The call below continues where it stops.]`;
  }
  return `${over} only its first ${page.lines.length} of ${of} lines are shown. Ask for a smaller page: a smaller limit, or a narrower grep/glob (a path or glob that matches less).]`;
}

/**
 * The page cut to print within `maxChars` characters, for a limit of `limitTokens`: whole lines
 * from its start (read_file's rows as `fitPage` fits them, a long line in part), a note saying it
 * was cut, and the tool's closing line, kept last (read_file's worded anew for what is left, so it
 * names the exact call that continues the cut page).
 */
export function cutPage(page: FilePage, maxChars: number, limitTokens: number): FilePage {
  const of = page.lines.length;
  const { range } = page;
  const { note: _note, ...rest } = page;
  const toolNote = page.note === undefined ? undefined : cutToChars(page.note, maxNoteChars);
  // The notes measured in their longest form with the largest numbers they can hold, so the page fits whatever is shown.
  const widest = 10 ** 15;
  const noteChars = Math.max(
    cutNote({ ...rest, lines: page.lines, cut: { limitTokens, of } }).length,
    cutNote({ lines: page.lines, cut: { limitTokens, of: widest } }).length,
  );
  if (range !== undefined) {
    const closing = linesNote(range, widest, { offset: widest, charOffset: widest }).length;
    const fitted = fitRows(rest, maxChars - noteChars - closing - 2);
    const cut: FilePage = { ...fitted, cut: { limitTokens, of } };
    const note = moreLinesNote(cut, undefined);
    return note === undefined ? cut : { ...cut, note };
  }
  const room = maxChars - noteChars - (toolNote === undefined ? 0 : toolNote.length + 1);
  const count = linesWithin(printedLines(page), room);
  const lines =
    count > 0 || of === 0 ? page.lines.slice(0, count) : [cutToChars(page.lines[0]!, Math.max(0, room - 1))];
  const cut: FilePage = { ...rest, lines, cut: { limitTokens, of } };
  return toolNote === undefined ? cut : { ...cut, note: toolNote };
}
