import type { FilePage } from '../shared/content.js';
import { cutLine, splitLines } from '../shared/text.js';
import { defineFileTool, type FileToolSpec, type PageLimits } from './file-tool.js';
import { defaultReadLimit, readFileDeclaration } from './file-tool-declarations.js';
import { fitPage, maxLineChars, messagePage, moreLinesNote } from './file-tool-page.js';
import { normalizePath } from './paths.js';
import { pastTheEnd, readPage } from './text-file.js';

/** A numbered line takes at least this many characters (six for its number, a tab, one for its newline). */
const minNumberedLineChars = 8;

/** read_file: a page of a text file's lines, numbered, with the offset that continues it (B3). */
export function readFileTool(limits: PageLimits): FileToolSpec {
  return defineFileTool<{ path: string; offset?: number; limit?: number }>({
    ...readFileDeclaration(limits),
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
