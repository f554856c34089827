import type { FilePage } from '../shared/content.js';
import { cutLine, splitLines } from '../shared/text.js';
import { defineFileTool, type FileToolSpec, objectSchema, type PageLimits } from './file-tool.js';
import { fitPage, maxLineChars, messagePage, moreLinesNote } from './file-tool-page.js';
import { normalizePath } from './paths.js';
import { pastTheEnd, readPage } from './text-file.js';

const defaultReadLimit = 100;
/** A numbered line takes at least this many characters (six for its number, a tab, one for its newline). */
const minNumberedLineChars = 8;

/** read_file: a page of a text file's lines, numbered, with the offset that continues it (B3). */
export function readFileTool(limits: PageLimits): FileToolSpec {
  return defineFileTool<{ path: string; offset?: number; limit?: number }>({
    name: 'read_file',
    description:
      `Read a text file, one page at a time. Lines are numbered from 1; offset is 0-based (offset=100 starts at line 101). ` +
      `Returns up to limit lines (default ${defaultReadLimit}) and at most about ${limits.maxPageTokens} tokens; ` +
      `lines over ${maxLineChars} characters are cut. When more remains, the last line says which offset to continue with.`,
    parameters: objectSchema(
      {
        path: { type: 'string', description: "Absolute path, e.g. '/notes.txt'." },
        offset: { type: 'integer', minimum: 0, description: 'Line to start from, 0-based. Default 0.' },
        limit: { type: 'integer', minimum: 1, description: `Most lines to return. Default ${defaultReadLimit}.` },
      },
      ['path'],
    ),
    run: async (args, backend): Promise<FilePage> => {
      const file = normalizePath(args.path);
      const { offset = 0, limit = defaultReadLimit } = args;
      // No page holds more lines than fit in its characters. The options are checked once, where they are read.
      const most = Math.floor(limits.chars / minNumberedLineChars);
      const wanted = Number.isInteger(limit) && limit > most ? most : limit;
      const { text, totalLines: total } = await readPage(backend, file, { offset, limit: wanted });
      const read = splitLines(text).slice(0, wanted);
      if (read.length === 0) {
        if (offset === 0) return messagePage(`${file} is empty (0 lines)`);
        throw pastTheEnd(file, offset, total);
      }
      const lines = read.map((line) => cutLine(line.endsWith('\r') ? line.slice(0, -1) : line, maxLineChars));
      const page = fitPage({ lines, range: { offset, total } }, limits.chars);
      const note = moreLinesNote(page, page.lines.length < lines.length ? limits.maxPageTokens : undefined);
      return note === undefined ? page : { ...page, note };
    },
  });
}
