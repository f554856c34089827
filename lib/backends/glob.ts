import { BackendError } from '../shared/errors.js';
import { compileLinearRegex, type LinearRegex } from './linear-regex.js';
import { baseName, isWithin, quoteForMessage, relativeTo } from './paths.js';

const regexSpecial = /[\\^$.*+?()[\]{}|/]/;

/**
 * A glob pattern as an anchored regular expression over '/'-separated paths, run in linear time
 * (a backtracking RegExp takes exponential time on '**' repeated or many '*'): `*` matches within one
 * segment, `?` one character of a segment, `**` as a whole segment any number of segments (also
 * none), and `{a,b}` either alternative. Every other character is literal. Loads re2js on first use.
 */
export function globToRegExp(pattern: string): Promise<LinearRegex> {
  let source = '';
  let inBraces = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*') {
      const wholeSegment = pattern[i + 1] === '*' && (i === 0 || pattern[i - 1] === '/');
      if (wholeSegment && (i + 2 === pattern.length || pattern[i + 2] === '/')) {
        // '**/' matches zero or more whole segments; a final '**' matches the rest of the path.
        source += i + 2 === pattern.length ? '.*' : '(?:[^/]*/)*';
        i += i + 2 === pattern.length ? 1 : 2;
      } else {
        source += '[^/]*';
        while (pattern[i + 1] === '*') i++;
      }
    } else if (c === '?') source += '[^/]';
    else if (c === '{' && !inBraces && pattern.indexOf('}', i) !== -1) {
      inBraces = true;
      source += '(?:';
    } else if (c === ',' && inBraces) source += '|';
    else if (c === '}' && inBraces) {
      inBraces = false;
      source += ')';
    } else source += regexSpecial.test(c) ? `\\${c}` : c;
  }
  return compileLinearRegex(`^${source}$`, `glob ${quoteForMessage(pattern)} as the regular expression`);
}

function checkPattern(pattern: unknown, what: string): string {
  if (typeof pattern !== 'string' || pattern === '') {
    throw new BackendError('invalid-argument', `${what} must be a non-empty string, got ${quoteForMessage(pattern)}`);
  }
  return pattern;
}

/**
 * A test for the files a `glob(pattern, { path: dir })` call returns: a relative pattern is matched against
 * the path relative to `dir`, an absolute one ('/a/*.txt') against the whole path. Either way the file
 * must lie under `dir`.
 */
export async function globMatcher(pattern: string, dir: string): Promise<(path: string) => boolean> {
  const regex = await globToRegExp(checkPattern(pattern, 'glob pattern'));
  if (pattern.startsWith('/')) return (path) => isWithin(path, dir) && regex.test(path);
  return (path) => path !== dir && isWithin(path, dir) && regex.test(relativeTo(path, dir));
}

/**
 * A test for the files `grep` searches when given a `glob` filter: a pattern without '/' ('*.ts') is
 * matched against the file's name wherever it lies; one with '/' as in `globMatcher`.
 */
export async function fileFilter(glob: string, dir: string): Promise<(path: string) => boolean> {
  if (checkPattern(glob, 'glob filter').includes('/')) return globMatcher(glob, dir);
  const regex = await globToRegExp(glob);
  return (path) => isWithin(path, dir) && regex.test(baseName(path));
}

/** Whether a grep `glob` filter means the same to a backend mounted under another prefix (name-only filters). */
export function isNameFilter(glob: string): boolean {
  return !glob.includes('/');
}
