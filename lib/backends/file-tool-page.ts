// A file tool's page, as data: what it shows, where that lies in the file, and the closing line
// about the rest. The tools make pages, `printPage` words them for the model, and `cutPage` makes
// one smaller (the offload's threshold, O11) from the data, never from the printed text.
import type { FilePage } from '../shared/content.js';
import { cutToChars } from '../shared/text.js';

/** A longer line is cut in every page (read_file's lines, listed paths, matches): one line must never fill a page. */
export const maxLineChars = 2000;
/** A page's closing line once the page is cut: notes never echo model-sized input, but a path may be long. */
const maxNoteChars = 400;

/** A page of one line: a message such as "No matches …" or "Wrote …". */
export function messagePage(text: string): FilePage {
  return { lines: [text] };
}

/** Where the next page of a read_file page starts; undefined at the end of the file and for other pages. */
export function nextOffset(page: FilePage): number | undefined {
  if (page.range === undefined) return undefined;
  const end = page.range.offset + page.lines.length;
  return end < page.range.total ? end : undefined;
}

/** The page's lines as printed: read_file's numbered from `offset + 1`, right-aligned, then a tab. */
function printedLines(page: FilePage): string[] {
  const { range } = page;
  if (range === undefined) return [...page.lines];
  return page.lines.map((line, i) => `${lineNumber(range.offset + i)}${line}`);
}

function lineNumber(offset: number): string {
  return `${String(offset + 1).padStart(6)}\t`;
}

/** The page as the model reads it: its lines, the cut's note when it was cut, then the tool's closing line. */
export function printPage(page: FilePage): string {
  const lines = printedLines(page);
  if (page.cut) lines.push(cutNote(page.lines.length, page.cut.of, page.cut.limitTokens, nextOffset(page)));
  if (page.note !== undefined) lines.push(page.note);
  return lines.join('\n');
}

/** read_file's closing line when lines remain after the page. */
export function moreLinesNote(page: FilePage, cappedAtTokens: number | undefined): string | undefined {
  const next = nextOffset(page);
  if (next === undefined) return undefined;
  return linesNote(page.range!.offset, next, page.range!.total, cappedAtTokens);
}

function linesNote(offset: number, next: number, total: number, cappedAtTokens?: number): string {
  const capped = cappedAtTokens === undefined ? '' : `; page capped at ${cappedAtTokens} tokens`;
  return `[lines ${offset + 1}-${next} of ${total}${capped}; continue with read_file offset=${next}]`;
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

/** The page's first lines whose printed form fits in `chars` characters (always at least the first): a tool's own cap. */
export function fitPage(page: FilePage, chars: number): FilePage {
  const count = Math.max(1, linesWithin(printedLines(page), chars));
  return count >= page.lines.length ? page : { ...page, lines: page.lines.slice(0, count) };
}

function cutNote(shown: number, of: number, limitTokens: number, next: number | undefined): string {
  const what = `[Cut: this page is over the ${limitTokens}-token limit for a tool result; only its first ${shown} of ${of} lines are shown.`;
  const how =
    next === undefined
      ? 'Ask for a smaller page: a smaller limit, or a narrower grep/glob (a path or glob that matches less).'
      : `Continue with read_file offset=${next} and a smaller limit.`;
  return `${what} ${how}]`;
}

/**
 * The page cut to print within `maxChars` characters, for a limit of `limitTokens`: whole lines
 * from its start, a note saying it was cut and how to read a smaller page (read_file: the offset
 * that continues it), and the tool's closing line, kept last (read_file's worded anew for the
 * lines left, so that both notes name the same offset). A first line longer than all
 * the room is cut to its start.
 */
export function cutPage(page: FilePage, maxChars: number, limitTokens: number): FilePage {
  const of = page.lines.length;
  const { range } = page;
  const toolNote = page.note === undefined ? undefined : cutToChars(page.note, maxNoteChars);
  // The notes measured in their longest form with the largest numbers they can hold, so the page fits whatever is shown.
  const noteChars = Math.max(
    cutNote(of, of, limitTokens, 10 ** 15).length,
    cutNote(of, of, limitTokens, undefined).length,
  );
  const reworded = range !== undefined && toolNote !== undefined;
  const closing = reworded ? linesNote(range.offset, range.total, range.total) : toolNote;
  const room = maxChars - noteChars - (closing === undefined ? 0 : closing.length + 1);
  const count = linesWithin(printedLines(page), room);
  const lines = count > 0 || of === 0 ? page.lines.slice(0, count) : [firstLineWithin(page, room - 1)];
  const { note: _note, ...rest } = page;
  const cut: FilePage = { ...rest, lines, cut: { limitTokens, of } };
  const note = reworded ? moreLinesNote(cut, undefined) : toolNote;
  return note === undefined ? cut : { ...cut, note };
}

/** The start of the page's first line that prints (numbered, for read_file) within `chars` characters. */
function firstLineWithin(page: FilePage, chars: number): string {
  const prefix = page.range === undefined ? 0 : lineNumber(page.range.offset).length;
  return cutToChars(page.lines[0]!, Math.max(0, chars - prefix));
}
