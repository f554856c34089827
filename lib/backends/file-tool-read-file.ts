import { checkInteger } from '../shared/checks.js';
import type { FilePage } from '../shared/content.js';
import { BackendError } from '../shared/errors.js';
import { splitLines } from '../shared/text.js';
import type { Backend } from './backend.js';
import { defineFileTool, type FileToolSpec, objectSchema, type PageLimits } from './file-tool.js';
import { fitPage, messagePage, moreLinesNote } from './file-tool-page.js';
import { normalizePath } from './paths.js';
import { pastTheEnd, readPage } from './text-file.js';

const defaultReadLimit = 100;
/** A numbered line takes at least this many characters (six for its number, a tab, one for its newline). */
const minNumberedLineChars = 8;
/** Lines read from the backend at first (an ordinary page's, in one call); each further read takes twice as many, until the page is full. */
const firstBatch = defaultReadLimit;

/** The most lines one read_file page holds: the limit its closing line's call asks for (B5). */
export function pageLinesOf(limits: PageLimits): number {
  return Math.floor(limits.chars / minNumberedLineChars);
}

/** A model's argument, checked as hostile input: a safe integer of at least `min`, else a clear error. */
function argument(name: string, value: unknown, min: number, fallback: number): number {
  if (value === undefined) return fallback;
  return checkInteger(name, value, min, undefined, (message) => new BackendError('invalid-argument', message));
}

/**
 * Lines from `offset`, at most `wanted`, read in batches that double until their printed form
 * would fill `chars` (a backend that cannot count lines cheaply is read once), with the file's
 * line count; each line without its final '\r'.
 */
async function readLinesFor(backend: Backend, file: string, offset: number, wanted: number, chars: number) {
  const lines: string[] = [];
  let total = 0;
  let used = 0;
  let batch = backend.readLines ? Math.min(wanted, firstBatch) : wanted;
  for (let at = offset; ; ) {
    const { text, totalLines } = await readPage(backend, file, { offset: at, limit: batch });
    total = totalLines;
    const read = splitLines(text).slice(0, batch);
    for (const line of read) {
      const shown = line.endsWith('\r') ? line.slice(0, -1) : line;
      lines.push(shown);
      used += shown.length + minNumberedLineChars;
    }
    at += read.length;
    if (read.length < batch || at >= total || used >= chars || lines.length >= wanted) break;
    batch = Math.min(wanted - lines.length, batch * 2);
  }
  return { lines, total };
}

/** read_file: a page of a text file's lines, numbered, a long line in parts, ending with the call that continues it (B3, B5). */
export function readFileTool(limits: PageLimits): FileToolSpec {
  const pageLines = pageLinesOf(limits);
  return defineFileTool<{ path: string; offset?: number; limit?: number; charOffset?: number }>({
    name: 'read_file',
    description:
      `Read a text file, one page at a time. Lines are numbered from 1; offset is 0-based (offset=100 starts at line 101). ` +
      `Returns up to limit lines (default ${defaultReadLimit}) and at most about ${limits.maxPageTokens} tokens. ` +
      'A line too long for a page is shown in parts, each under a label saying which line and which characters it is; ' +
      'charOffset (0-based, within the line at offset) starts a page inside such a line. ' +
      'When more remains, the last line is the exact read_file call that shows what comes next: copy it to continue.',
    parameters: objectSchema(
      {
        path: { type: 'string', description: "Absolute path, e.g. '/notes.txt'." },
        offset: { type: 'integer', minimum: 0, description: 'Line to start from, 0-based. Default 0.' },
        limit: { type: 'integer', minimum: 1, description: `Most lines to return. Default ${defaultReadLimit}.` },
        charOffset: {
          type: 'integer',
          minimum: 0,
          description: 'Character of the line at offset to start from, 0-based, for a long line. Default 0.',
        },
      },
      ['path'],
    ),
    run: async (args, backend): Promise<FilePage> => {
      const file = normalizePath(args.path);
      const offset = argument('offset', args.offset, 0, 0);
      const limit = argument('limit', args.limit, 1, defaultReadLimit);
      const charOffset = argument('charOffset', args.charOffset, 0, 0);
      // No page holds more lines than fit in its characters.
      const wanted = Math.min(limit, pageLines);
      const { lines, total } = await readLinesFor(backend, file, offset, wanted, limits.chars);
      if (lines.length === 0) {
        if (offset === 0) return messagePage(`${file} is empty (0 lines)`);
        throw pastTheEnd(file, offset, total);
      }
      const first = lines[0]!;
      if (charOffset > 0 && charOffset >= first.length) {
        throw new BackendError(
          'invalid-argument',
          `charOffset ${charOffset} is past the end of line ${offset + 1}, which has ${first.length} characters (${file})`,
        );
      }
      const rows = charOffset === 0 ? lines : [first.slice(charOffset), ...lines.slice(1)];
      const parts = charOffset === 0 ? [] : [{ row: 0, from: charOffset, length: first.length }];
      const range = { offset, total, path: file, pageLines, ...(parts.length > 0 ? { parts } : {}) };
      const page = fitPage({ lines: rows, range }, limits.chars);
      const capped = page.lines.length < rows.length || page.range?.parts?.length !== range.parts?.length;
      const note = moreLinesNote(page, capped ? limits.maxPageTokens : undefined);
      return note === undefined ? page : { ...page, note };
    },
  });
}
