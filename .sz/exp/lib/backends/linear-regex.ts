// Model-chosen patterns run on RE2 (re2js, pure JS, no eval): matching takes time linear in the text,
// so no pattern can make a search backtrack for hours (`(a+)+$` over 'aaaa…b' is as fast as 'a').
import { RE2JS } from 're2js';
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

  constructor(compiled: RE2JS) {
    this.cost = Math.max(1, compiled.programSize());
    this.#re2 = compiled.re2();
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
 * LinearRegex. Syntax RE2 has no linear-time form of (backreferences, lookaround, atomic groups), an
 * invalid pattern, or one over `maxProgramSize` is BackendError('invalid-argument') naming the pattern.
 */
export function compileLinearRegex(pattern: unknown, what = 'grep pattern'): LinearRegex {
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
  return new LinearRegex(compiled);
}
