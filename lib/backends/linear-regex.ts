// Model-chosen patterns run on RE2 (re2js, pure JS, no eval): matching takes time linear in the text,
// so no pattern can make a search backtrack for hours (`(a+)+$` over 'aaaa…b' is as fast as 'a').
// re2js is most of the package's weight and only grep and glob use it: it is loaded on the first
// pattern compiled (a bundler splits it into its own chunk; builds that cannot load chunks, such as
// an MV3 service worker, inline it).
import type { RE2JS } from 're2js';
import { quoteForMessage } from '../shared/checks.js';
import { BackendError } from '../shared/errors.js';

/**
 * The most RE2 instructions a pattern may compile to. Matching costs about this many steps per
 * character at worst (10–15 µs a character at 1,000 when RE2's DFA cache thrashes), so the cap keeps
 * a hostile pattern's search over 32 MiB within minutes of sliced work, not hours.
 */
const maxProgramSize = 1000;

/** RE2's `UNANCHORED`: a match may start anywhere in the range searched. */
const unanchored = 0;

type Engine = typeof RE2JS;

/** re2js once it is loaded; undefined again after a failed load, so a later call tries again. */
let engine: Promise<Engine> | undefined;

/** Loads re2js on first use; a failure is a BackendError the tool shows, saying what could not load. */
function loadEngine(what: string): Promise<Engine> {
  engine ??= import('re2js').then(
    (module) => module.RE2JS,
    (error: unknown) => {
      engine = undefined;
      throw new BackendError(
        'not-found',
        `${what} could not be run: its regular-expression engine (re2js, loaded on the first grep or glob) failed to load: ` +
          `${error instanceof Error ? error.message : String(error)}. read_file and ls still work.`,
      );
    },
  );
  return engine;
}

/** JS patterns whose meaning on one line changes when a line is searched among others: RE2's text anchors and inline flags. */
const textWide = /\\[AzZ]|\(\?[a-zA-Z]*-?[a-zA-Z]*[ms]/;

/** JS syntax RE2 has no linear-time form of, found before RE2 sees it so the error says what it is. */
const unsupported: ReadonlyArray<[RegExp, string]> = [
  [/^\\[1-9]/, 'a backreference'],
  [/^\\k</, 'a named backreference'],
  [/^\(\?[=!]/, 'a lookahead'],
  [/^\(\?<[=!]/, 'a lookbehind'],
  [/^\(\?>/, 'an atomic group'],
];

/** The first construct of `pattern` outside a character class that RE2 cannot run, and where. */
function unsupportedConstruct(pattern: string): { what: string; at: number } | undefined {
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\' && inClass) i++;
    else if (c === '[') inClass = true;
    else if (c === ']') inClass = false;
    else if (!inClass && (c === '\\' || c === '(')) {
      const rest = pattern.slice(i, i + 4);
      const found = unsupported.find(([test]) => test.test(rest));
      if (found) return { what: found[1], at: i };
      if (c === '\\') i++;
    }
  }
  return undefined;
}

/**
 * A regular expression that matches in linear time. Built from JavaScript syntax by
 * `compileLinearRegex`; searches a range of a text with the text around it as context, so `^`, `\b`
 * at the range's start see the character before it.
 */
export class LinearRegex {
  /** RE2 instructions: the cost of matching one character, at worst. */
  readonly cost: number;
  readonly #re2: ReturnType<RE2JS['re2']>;
  /**
   * The same pattern with `^` and `$` at every line's ends, to search many lines in one call: every
   * match within a line is a match of this one at the same place (it may find more, across lines).
   * Undefined where that does not hold (see `textWide`): lines are then searched one by one.
   */
  readonly lines: LinearRegex | undefined;

  constructor(compiled: RE2JS, lines?: RE2JS) {
    this.cost = Math.max(1, compiled.programSize());
    this.#re2 = compiled.re2();
    this.lines = lines && new LinearRegex(lines);
  }

  /** Whether a match starts in [start, end) and ends by `end` (`end` counts as the text's end). */
  test(text: string, start = 0, end = text.length): boolean {
    return this.#re2.matchWithGroup(text, start, end, unanchored, 0)[0] === true;
  }

  /** Where the leftmost match in [start, end) lies, as [from, to), or undefined. */
  find(text: string, start = 0, end = text.length): [number, number] | undefined {
    const [found, groups] = this.#re2.matchWithGroup(text, start, end, unanchored, 1);
    return found === true ? [groups[0], groups[1]] : undefined;
  }
}

/**
 * A JavaScript regular expression source (no flags; `(?i)` in front for case-insensitive) as a
 * LinearRegex, once re2js is loaded. Syntax RE2 has no linear-time form of (backreferences,
 * lookaround, atomic groups), an invalid pattern, or one over `maxProgramSize` is
 * BackendError('invalid-argument') naming the pattern.
 */
export async function compileLinearRegex(pattern: unknown, what = 'grep pattern'): Promise<LinearRegex> {
  if (typeof pattern !== 'string' || pattern === '') {
    throw new BackendError('invalid-argument', `${what} must be a non-empty string, got ${quoteForMessage(pattern)}`);
  }
  const construct = unsupportedConstruct(pattern);
  if (construct) {
    throw new BackendError(
      'invalid-argument',
      `${what} ${quoteForMessage(pattern)} uses ${construct.what} (at character ${construct.at + 1}), which is not supported: ` +
        'patterns run on a linear-time engine (RE2) that has no backreferences, lookahead, lookbehind or atomic groups. ' +
        'Match the text without it (e.g. search for each part, or a wider pattern), then read the lines found.',
    );
  }
  const RE2JS = await loadEngine(what.split(' ')[0]!);
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(RE2JS.translateRegExp(pattern));
  } catch (error) {
    const reason = (error as Error).message.replace(/^error parsing regexp: /, '');
    throw new BackendError('invalid-argument', `invalid regular expression ${quoteForMessage(pattern)}: ${reason}`);
  }
  const size = compiled.programSize();
  if (size > maxProgramSize) {
    throw new BackendError(
      'invalid-argument',
      `${what} ${quoteForMessage(pattern)} is too complex: it compiles to ${size} instructions, at most ${maxProgramSize}. ` +
        'Use fewer or smaller {n,m} repeats and alternatives.',
    );
  }
  const lines = textWide.test(pattern) ? undefined : RE2JS.compile(RE2JS.translateRegExp(pattern), RE2JS.MULTILINE);
  return new LinearRegex(compiled, lines);
}
