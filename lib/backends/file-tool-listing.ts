import { quoteForMessage } from '../shared/checks.js';
import type { FilePage } from '../shared/content.js';
import { cutLine } from '../shared/text.js';
import type { FileInfo } from './backend.js';
import { defineFileTool, type FileToolSpec, objectSchema, type PageLimits } from './file-tool.js';
import { fitPage, maxLineChars, messagePage, moreItemsNote } from './file-tool-page.js';
import { normalizePath } from './paths.js';

/** ls: the entries directly in a directory. */
export function lsTool(limits: PageLimits): FileToolSpec {
  return defineFileTool<{ path: string }>({
    name: 'ls',
    description: 'List the files and directories directly in a directory (directories end with /). Use / for the root.',
    parameters: objectSchema({ path: { type: 'string', description: "Absolute directory path, e.g. '/'." } }, ['path']),
    run: async (args, backend) => {
      const dir = normalizePath(args.path);
      const entries = await backend.ls(dir);
      if (entries.length === 0) return messagePage(`${dir} is empty`);
      return listingPage(entries, limits, 'entries', 'use glob to narrow the listing');
    },
  });
}

/** glob: the files whose paths match a pattern. */
export function globTool(limits: PageLimits): FileToolSpec {
  return defineFileTool<{ pattern: string; path?: string }>({
    name: 'glob',
    description:
      'Find files by path pattern: * matches within one path segment, ** any number of segments, ? one character, {a,b} either. ' +
      "Relative patterns are matched against paths relative to path (default /), e.g. '**/*.json'.",
    parameters: objectSchema(
      {
        pattern: { type: 'string', description: "Glob pattern, e.g. '**/*.txt'." },
        path: { type: 'string', description: 'Directory to search. Default /.' },
      },
      ['pattern'],
    ),
    run: async (args, backend) => {
      const dir = normalizePath(args.path ?? '/');
      const files = await backend.glob(args.pattern, { path: dir });
      if (files.length === 0) {
        return messagePage(`No files match ${quoteForMessage(args.pattern)} in ${quoteForMessage(dir)}`);
      }
      return listingPage(files, limits, 'files', 'narrow the pattern');
    },
  });
}

function describeEntry(entry: FileInfo): string {
  return entry.isDir ? `${entry.path}/` : `${entry.path} (${entry.size} bytes)`;
}

/** Entries one a line, within the page; when some are left out, a closing line says how many and what to do. */
function listingPage(entries: readonly FileInfo[], limits: PageLimits, noun: string, advice: string): FilePage {
  const items = entries.map((entry) => cutLine(describeEntry(entry), maxLineChars));
  const page = fitPage({ lines: items }, limits.chars);
  if (page.lines.length === items.length) return page;
  return { ...page, note: moreItemsNote(page.lines.length, items.length, noun, advice) };
}
