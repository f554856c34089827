import { quoteForMessage } from '../shared/checks.js';
import { cutLine, excerptAround } from '../shared/text.js';
import type { GrepMatch, GrepMatches } from './backend.js';
import { defineFileTool, type FileToolSpec, objectSchema, type PageLimits } from './file-tool.js';
import { fitPage, maxLineChars, messagePage, readFileCall } from './file-tool-page.js';
import { pageLinesOf } from './file-tool-read-file.js';
import { defaultMaxLines, longLineChars, longMatchChars } from './grep-search.js';
import { compileLinearRegex, type LinearRegex } from './linear-regex.js';
import { normalizePath } from './paths.js';

const maxGrepMatches = 100;
const grepExcerptChars = 300;

/** grep: the lines matching a regular expression, in linear time (B3); `glob` says whether it takes a `glob` argument. */
export function grepTool(limits: PageLimits, options: { glob: boolean }): FileToolSpec {
  const { glob } = options;
  return defineFileTool<{ pattern: string; path?: string; glob?: string }>({
    name: 'grep',
    description:
      'Search file contents line by line for a regular expression in JavaScript syntax (no /slashes/ or flags). ' +
      'Patterns run on a linear-time engine (RE2): backreferences (\\1) and lookahead/lookbehind are not supported; ' +
      'start with (?i) for case-insensitive; \\d \\w \\s \\b are ASCII; \\p{L} and other Unicode classes work. ' +
      `Returns path:line: text for each matching line (long lines shown around the match, with the read_file call that shows that part of a line too long for a page; at most ${maxGrepMatches} matches; ` +
      `a search scans at most ${defaultMaxLines.toLocaleString('en-US')} lines, and in lines over ${longLineChars.toLocaleString('en-US')} characters a match longer than ${longMatchChars} may be missed). ` +
      'path limits the search to a directory or file (default /)' +
      (glob ? "; glob filters files: '*.md' matches file names anywhere, 'docs/**/*.md' paths relative to path." : '.'),
    parameters: objectSchema(
      {
        pattern: { type: 'string', description: "A regular expression, e.g. 'error|warn' or '(?i)timeout'." },
        path: { type: 'string', description: 'Directory or file to search. Default /.' },
        ...(glob ? { glob: { type: 'string', description: "Only files matching this glob, e.g. '*.ts'." } } : {}),
      },
      ['pattern'],
    ),
    run: async (args, backend, signal) => {
      const regex = await compileLinearRegex(args.pattern);
      const dir = normalizePath(args.path ?? '/');
      // One more than shown, to know whether there are more.
      const searchLimits = { maxMatches: maxGrepMatches + 1, ...(signal ? { signal } : {}) };
      const matches = await backend.grep(
        args.pattern,
        args.glob === undefined ? { path: dir, ...searchLimits } : { path: dir, glob: args.glob, ...searchLimits },
      );
      const filter = args.glob === undefined ? '' : ` (files matching ${quoteForMessage(args.glob)})`;
      if (matches.length === 0 && !matches.stopped) {
        return messagePage(`No matches for ${quoteForMessage(args.pattern)} in ${quoteForMessage(dir)}${filter}`);
      }
      const lines = matches.slice(0, maxGrepMatches).map((match) => {
        const at = matchStart(match, regex);
        const row = cutLine(
          `${match.path}:${match.line}: ${excerptAround(match.text, at, grepExcerptChars)}`,
          maxLineChars,
        );
        return match.text.length > limits.chars ? `${row} ${partCall(match, at, limits)}` : row;
      });
      const page = fitPage({ lines }, limits.chars);
      const note = grepNote(matches, page.lines.length);
      return note === undefined ? page : { ...page, note };
    },
  });
}

/** For a match in a line longer than a page's room: the read_file call that shows the part that matched (B5). */
function partCall(match: GrepMatch, at: number, limits: PageLimits): string {
  const position = { offset: match.line - 1, charOffset: Math.max(0, at - grepExcerptChars) };
  return `[line ${match.line} has ${match.text.length} characters; this part: ${readFileCall(match.path, position, pageLinesOf(limits))}]`;
}

/** Where the match starts in its line: the backend's column, else found here in a line of bounded length. */
function matchStart(match: GrepMatch, regex: LinearRegex): number {
  if (match.column !== undefined) return match.column - 1;
  return match.text.length <= longLineChars ? (regex.find(match.text)?.[0] ?? 0) : 0;
}

/** The closing line of a grep result that did not show every match, saying why and how to narrow it. */
function grepNote(matches: GrepMatches, shown: number): string | undefined {
  const { stopped } = matches;
  const narrow = 'narrow the search with path or glob, or a more specific pattern';
  if (stopped && stopped.reason !== 'max-matches') {
    const limit =
      stopped.reason === 'max-lines'
        ? `after scanning ${defaultMaxLines.toLocaleString('en-US')} lines`
        : "at its work limit (the pattern's cost times the text searched)";
    return `[search stopped ${limit}, before line ${stopped.line} of ${stopped.path}; ${matches.length} matches up to there (${shown} shown): ${narrow}, e.g. path=${stopped.path}]`;
  }
  if (matches.length > shown) {
    const more = matches.length > maxGrepMatches ? `more than ${maxGrepMatches}` : `${matches.length}`;
    return `[showing ${shown} of ${more} matches; ${narrow}]`;
  }
  return undefined;
}
