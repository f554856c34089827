import type { JsonSchema } from '../runtime/model.js';
import { checkInteger, quoteForMessage } from '../shared/checks.js';
import { BackendError } from '../shared/errors.js';
import { countLines, cutLine, excerptAround, splitLines, utf8Bytes } from '../shared/text.js';
import type { Backend, FileInfo, GrepMatch, GrepMatches } from './backend.js';
import { defaultMaxLines, longLineChars, longMatchChars } from './grep-search.js';
import { compileLinearRegex, type LinearRegex } from './linear-regex.js';
import { normalizePath } from './paths.js';
import { checkReadOptions, pastTheEnd, totalLines } from './text-file.js';

/**
 * What the file tools do, apart from how a framework calls them: `fileTools` makes this package's
 * tools of them, and the offload's read tools for other frameworks use the same four read ones, so
 * both page, cap and word their errors alike.
 */
export interface FileToolSpec<A = Record<string, unknown>> {
  name: string;
  description: string;
  parameters: JsonSchema;
  /**
   * The tool's text; a BackendError (bad path, evicted, not found, bad argument) says what went wrong.
   * `signal` (the tool call's) stops a long search.
   */
  run(args: A, backend: Backend, signal?: AbortSignal): Promise<string>;
}

export interface FileToolSpecOptions {
  /** The most estimated tokens any file tool's result may take; default 5000, at least 1000. */
  maxPageTokens?: number;
  /** Whether grep takes a `glob` argument; default true. */
  grepGlob?: boolean;
}

/** The names of the tools that only read. */
export const readToolNames: readonly string[] = ['read_file', 'ls', 'grep', 'glob'];

const defaultPageTokens = 5000;
const minPageTokens = 1000;
const defaultReadLimit = 100;
/** A longer line is cut in read_file output (and every listed line): one line must never fill a page. */
const maxLineChars = 2000;
const maxGrepMatches = 100;
const grepExcerptChars = 300;
/** Characters kept free in a page for its closing note; notes never echo model-sized input. */
const noteReserve = 400;

/** Gives `run` its argument type. */
function spec<A>(definition: FileToolSpec<A>): FileToolSpec {
  return definition as unknown as FileToolSpec;
}

/**
 * read_file, ls, grep, glob, write_file and edit_file. Every result stays within `maxPageTokens`
 * estimated tokens and says how to see the rest.
 */
export function fileToolSpecs(options: FileToolSpecOptions = {}): FileToolSpec[] {
  const maxPageTokens = checkInteger(
    'fileTools maxPageTokens',
    options.maxPageTokens ?? defaultPageTokens,
    minPageTokens,
  );
  const grepGlob = options.grepGlob ?? true;
  const budget = maxPageTokens * 4 - noteReserve;
  const path = (value: unknown) => normalizePath(value);

  return [
    spec<{ path: string; offset?: number; limit?: number }>({
      name: 'read_file',
      description:
        `Read a text file, one page at a time. Lines are numbered from 1; offset is 0-based (offset=100 starts at line 101). ` +
        `Returns up to limit lines (default ${defaultReadLimit}) and at most about ${maxPageTokens} tokens; ` +
        `lines over ${maxLineChars} characters are cut. When more remains, the last line says which offset to continue with.`,
      parameters: schema(
        {
          path: { type: 'string', description: "Absolute path, e.g. '/notes.txt'." },
          offset: { type: 'integer', minimum: 0, description: 'Line to start from, 0-based. Default 0.' },
          limit: { type: 'integer', minimum: 1, description: `Most lines to return. Default ${defaultReadLimit}.` },
        },
        ['path'],
      ),
      run: async (args, backend) => {
        const file = path(args.path);
        const { offset, limit = defaultReadLimit } = checkReadOptions(args);
        // Each numbered line takes at least 8 characters, so no page holds more than this many.
        const wanted = Math.min(limit, Math.floor(budget / 8));
        const lines = splitLines(await backend.read(file, { offset, limit: wanted })).slice(0, wanted);
        if (lines.length === 0) {
          if (offset === 0) return `${file} is empty (0 lines)`;
          throw pastTheEnd(file, offset, await totalLines(backend, file));
        }
        const numbered = lines.map(
          (line, i) =>
            `${String(offset + i + 1).padStart(6)}\t${cutLine(line.endsWith('\r') ? line.slice(0, -1) : line, maxLineChars)}`,
        );
        const shown = fitLines(numbered, budget);
        const end = offset + shown.length;
        const total = lines.length < wanted ? offset + lines.length : await totalLines(backend, file);
        if (end >= total) return shown.join('\n');
        const capped = shown.length < lines.length ? `; page capped at ${maxPageTokens} tokens` : '';
        return `${shown.join('\n')}\n[lines ${offset + 1}-${end} of ${total}${capped}; continue with read_file offset=${end}]`;
      },
    }),
    spec<{ path: string }>({
      name: 'ls',
      description:
        'List the files and directories directly in a directory (directories end with /). Use / for the root.',
      parameters: schema({ path: { type: 'string', description: "Absolute directory path, e.g. '/'." } }, ['path']),
      run: async (args, backend) => {
        const dir = path(args.path);
        const entries = await backend.ls(dir);
        if (entries.length === 0) return `${dir} is empty`;
        return listing(entries.map(describeEntry), budget, 'entries', 'use glob to narrow the listing');
      },
    }),
    spec<{ pattern: string; path?: string; glob?: string }>({
      name: 'grep',
      description:
        'Search file contents line by line for a regular expression in JavaScript syntax (no /slashes/ or flags). ' +
        'Patterns run on a linear-time engine (RE2): backreferences (\\1) and lookahead/lookbehind are not supported; ' +
        'start with (?i) for case-insensitive; \\d \\w \\s \\b are ASCII; \\p{L} and other Unicode classes work. ' +
        `Returns path:line: text for each matching line (long lines shown around the match; at most ${maxGrepMatches} matches; ` +
        `a search scans at most ${defaultMaxLines.toLocaleString('en-US')} lines, and in lines over ${longLineChars.toLocaleString('en-US')} characters a match longer than ${longMatchChars} may be missed). ` +
        'path limits the search to a directory or file (default /)' +
        (grepGlob
          ? "; glob filters files: '*.md' matches file names anywhere, 'docs/**/*.md' paths relative to path."
          : '.'),
      parameters: schema(
        {
          pattern: { type: 'string', description: "A regular expression, e.g. 'error|warn' or '(?i)timeout'." },
          path: { type: 'string', description: 'Directory or file to search. Default /.' },
          ...(grepGlob ? { glob: { type: 'string', description: "Only files matching this glob, e.g. '*.ts'." } } : {}),
        },
        ['pattern'],
      ),
      run: async (args, backend, signal) => {
        const regex = compileLinearRegex(args.pattern);
        const dir = path(args.path ?? '/');
        // One more than shown, to know whether there are more.
        const limits = { maxMatches: maxGrepMatches + 1, ...(signal ? { signal } : {}) };
        const matches = await backend.grep(
          args.pattern,
          args.glob === undefined ? { path: dir, ...limits } : { path: dir, glob: args.glob, ...limits },
        );
        const filter = args.glob === undefined ? '' : ` (files matching ${quoteForMessage(args.glob)})`;
        if (matches.length === 0 && !matches.stopped) {
          return `No matches for ${quoteForMessage(args.pattern)} in ${quoteForMessage(dir)}${filter}`;
        }
        const lines = matches.slice(0, maxGrepMatches).map((match) => {
          const at = matchStart(match, regex);
          return `${match.path}:${match.line}: ${excerptAround(match.text, at, grepExcerptChars)}`;
        });
        const shown = fitLines(
          lines.map((line) => cutLine(line, maxLineChars)),
          budget,
        );
        const note = grepNote(matches, shown.length);
        return note === undefined ? shown.join('\n') : [...shown, note].join('\n');
      },
    }),
    spec<{ pattern: string; path?: string }>({
      name: 'glob',
      description:
        'Find files by path pattern: * matches within one path segment, ** any number of segments, ? one character, {a,b} either. ' +
        "Relative patterns are matched against paths relative to path (default /), e.g. '**/*.json'.",
      parameters: schema(
        {
          pattern: { type: 'string', description: "Glob pattern, e.g. '**/*.txt'." },
          path: { type: 'string', description: 'Directory to search. Default /.' },
        },
        ['pattern'],
      ),
      run: async (args, backend) => {
        const dir = path(args.path ?? '/');
        const files = await backend.glob(args.pattern, { path: dir });
        if (files.length === 0) return `No files match ${quoteForMessage(args.pattern)} in ${quoteForMessage(dir)}`;
        return listing(files.map(describeEntry), budget, 'files', 'narrow the pattern');
      },
    }),
    spec<{ path: string; content: string }>({
      name: 'write_file',
      description: 'Create a file, or replace its whole content.',
      parameters: schema(
        {
          path: { type: 'string', description: "Absolute path, e.g. '/notes.txt'." },
          content: { type: 'string', description: 'The complete new content.' },
        },
        ['path', 'content'],
      ),
      run: async (args, backend) => {
        const file = path(args.path);
        checkText(args.content, 'content');
        await backend.write(file, args.content);
        return `Wrote ${file} (${countLines(args.content)} lines, ${utf8Bytes(args.content)} bytes)`;
      },
    }),
    spec<{ path: string; old_text: string; new_text: string }>({
      name: 'edit_file',
      description:
        'Replace one exact piece of text in a file. old_text must occur exactly once in the file: include enough ' +
        'surrounding text to make it unique. Read the file first to copy the text exactly (without line numbers).',
      parameters: schema(
        {
          path: { type: 'string', description: 'Absolute path of the file to edit.' },
          old_text: { type: 'string', minLength: 1, description: 'The exact text to replace.' },
          new_text: { type: 'string', description: 'The text to put in its place.' },
        },
        ['path', 'old_text', 'new_text'],
      ),
      run: async (args, backend) => {
        const file = path(args.path);
        checkText(args.old_text, 'old_text');
        checkText(args.new_text, 'new_text');
        if (args.old_text === '')
          throw new BackendError('invalid-argument', 'old_text is empty: give the exact text to replace');
        await backend.edit(file, args.old_text, args.new_text);
        return `Edited ${file}: replaced 1 occurrence of old_text`;
      },
    }),
  ];
}

function schema(properties: Record<string, unknown>, required: string[]) {
  return { type: 'object', properties, required, additionalProperties: false };
}

function checkText(value: unknown, name: string): void {
  if (typeof value !== 'string') {
    throw new BackendError('invalid-argument', `${name} must be a string, got ${quoteForMessage(value)}`);
  }
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

function describeEntry(entry: FileInfo): string {
  return entry.isDir ? `${entry.path}/` : `${entry.path} (${entry.size} bytes)`;
}

/** The first lines that fit in `budget` characters joined by newlines (always at least the first). */
function fitLines(lines: readonly string[], budget: number): string[] {
  const shown: string[] = [];
  let used = 0;
  for (const line of lines) {
    if (shown.length > 0 && used + line.length + 1 > budget) break;
    shown.push(line);
    used += line.length + 1;
  }
  return shown;
}

/** Items one a line, within the budget; when some are left out, a last line says how many and what to do. */
function listing(items: readonly string[], budget: number, noun: string, advice: string, total = items.length): string {
  const shown = fitLines(
    items.map((item) => cutLine(item, maxLineChars)),
    budget,
  );
  if (shown.length === total) return shown.join('\n');
  return `${shown.join('\n')}\n[showing ${shown.length} of ${total} ${noun}; ${advice}]`;
}
