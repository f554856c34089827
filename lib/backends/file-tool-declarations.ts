// The read tools as a model sees them (name, description, JSON Schema), apart from the code that
// runs them: the offload declares its read tools at once and loads their code on the first call.
import { type FileToolDeclaration, objectSchema, type PageLimits } from './file-tool.js';
import { maxLineChars } from './file-tool-page.js';
import { defaultMaxLines, longLineChars, longMatchChars } from './grep-limits.js';

/** The lines read_file returns when the call gives no limit. */
export const defaultReadLimit = 100;
/** The most matches a grep page shows. */
export const maxGrepMatches = 100;

/** read_file: a page of a text file's lines, numbered, with the offset that continues it (B3). */
export function readFileDeclaration(limits: PageLimits): FileToolDeclaration {
  return {
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
  };
}

/** ls: the entries directly in a directory. */
export function lsDeclaration(): FileToolDeclaration {
  return {
    name: 'ls',
    description: 'List the files and directories directly in a directory (directories end with /). Use / for the root.',
    parameters: objectSchema({ path: { type: 'string', description: "Absolute directory path, e.g. '/'." } }, ['path']),
  };
}

/** glob: the files whose paths match a pattern. */
export function globDeclaration(): FileToolDeclaration {
  return {
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
  };
}

/** grep: the lines matching a regular expression, in linear time (B3); `glob` says whether it takes a `glob` argument. */
export function grepDeclaration(options: { glob: boolean }): FileToolDeclaration {
  const { glob } = options;
  return {
    name: 'grep',
    description:
      'Search file contents line by line for a regular expression in JavaScript syntax (no /slashes/ or flags). ' +
      'Patterns run on a linear-time engine (RE2): backreferences (\\1) and lookahead/lookbehind are not supported; ' +
      'start with (?i) for case-insensitive; \\d \\w \\s \\b are ASCII; \\p{L} and other Unicode classes work. ' +
      `Returns path:line: text for each matching line (long lines shown around the match; at most ${maxGrepMatches} matches; ` +
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
  };
}
