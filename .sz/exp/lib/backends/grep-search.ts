// One grep call's work: every line of every file searched is matched once, on RE2, in slices that
// give the page back between them, within limits on the lines scanned, the matches kept and the
// matching work, so no pattern and no amount of stored text can freeze the page.
import { checkInteger } from '../shared/checks.js';
import { BackendError } from '../shared/errors.js';
import type { GrepMatch, GrepMatches, GrepOptions, GrepStop } from './backend.js';
import type { LinearRegex } from './linear-regex.js';
import { nextTask } from './next-task.js';

const defaultMaxMatches = 1000;
export const defaultMaxLines = 1_000_000;
/** Characters × RE2 instructions one call may spend: ~70 M characters of a plain pattern. */
const maxWork = 2 ** 31;
/** Characters × instructions between two yields: about 1–15 ms of matching, whatever the pattern. */
const sliceWork = 2 ** 20;
/** Milliseconds of a slice after which it yields anyway (cheap per-line work adds up too). */
const sliceMs = 8;
/**
 * A line longer than this is matched in pieces of up to this many characters (fewer for a costly
 * pattern, so one piece stays within a slice), each overlapping the next by a quarter of a piece.
 */
export const longLineChars = 65_536;
/** The longest match a long line's pieces are sure to hold whole: the overlap at the costliest pattern. */
export const longMatchChars = 256;

function checkLimit(value: unknown, name: string): number | undefined {
  if (value === undefined) return undefined;
  return checkInteger(`grep ${name}`, value, 1, undefined, (message) => new BackendError('invalid-argument', message));
}

/** Checks a grep call's limits; the defaults where none are given. */
export function grepLimits(options: GrepOptions | undefined): { maxMatches: number; maxLines: number } {
  return {
    maxMatches: checkLimit(options?.maxMatches, 'maxMatches') ?? defaultMaxMatches,
    maxLines: checkLimit(options?.maxLines, 'maxLines') ?? defaultMaxLines,
  };
}

/** The matches found so far, and where and why the search stopped if a limit ended it. */
export class GrepSearch {
  readonly #regex: LinearRegex;
  readonly #signal: AbortSignal | undefined;
  readonly #maxMatches: number;
  readonly #maxLines: number;
  readonly #matches: GrepMatch[] = [];
  /** Characters per piece of a long line, and the overlap between pieces, for this pattern's cost. */
  readonly #piece: number;
  readonly #overlap: number;
  #lines = 0;
  #work = 0;
  #sliceWork = 0;
  #sliceStart = performance.now();
  #stopped: GrepStop | undefined;

  constructor(regex: LinearRegex, options?: GrepOptions) {
    const { maxMatches, maxLines } = grepLimits(options);
    this.#regex = regex;
    this.#signal = options?.signal;
    this.#maxMatches = maxMatches;
    this.#maxLines = maxLines;
    this.#piece = Math.max(4 * longMatchChars, Math.min(longLineChars, Math.floor(sliceWork / regex.cost)));
    this.#overlap = this.#piece / 4;
  }

  /** Whether a limit has ended the search: search no more files. */
  get stopped(): boolean {
    return this.#stopped !== undefined;
  }

  /** The matches, in the order the files were searched, with the reason the search stopped early. */
  result(): GrepMatches {
    const result: GrepMatches = this.#matches;
    if (this.#stopped) result.stopped = this.#stopped;
    return result;
  }

  /** Searches the lines of one file (split on '\n', numbered from 1), yielding between slices. */
  async searchText(path: string, text: string): Promise<void> {
    this.#signal?.throwIfAborted();
    let start = 0;
    for (let line = 1; start < text.length && !this.#stopped; line++) {
      if (this.#lines >= this.#maxLines) {
        this.#stopped = { reason: 'max-lines', path, line };
        return;
      }
      const newline = text.indexOf('\n', start);
      const end = newline === -1 ? text.length : newline;
      this.#lines++;
      await this.#searchLine(path, line, text.slice(start, end));
      start = end + 1;
    }
  }

  async #searchLine(path: string, line: number, content: string): Promise<void> {
    if (content.length <= this.#piece + this.#overlap) {
      if (!(await this.#spend(content.length, path, line))) return;
      if (!this.#regex.test(content)) return;
      await this.#spend(content.length, path, line);
      this.#add(path, line, content, this.#regex.find(content)?.[0] ?? 0);
      return;
    }
    // Each piece holds one character before it, so `^` and `\b` at its start see the real neighbour.
    for (let from = 0; from < content.length; from += this.#piece) {
      const to = Math.min(content.length, from + this.#piece + this.#overlap);
      const piece = content.slice(Math.max(0, from - 1), to);
      const at = from === 0 ? 0 : 1;
      if (!(await this.#spend(to - from, path, line))) return;
      if (!this.#regex.test(piece, at)) continue;
      await this.#spend(to - from, path, line);
      const found = this.#regex.find(piece, at);
      // A match ending at a piece's end may lean on `$` or `\b` there, where the line goes on: the next
      // piece, which overlaps this one, decides.
      if (found && (found[1] < piece.length || to === content.length)) {
        this.#add(path, line, content, found[0] - at + from);
        return;
      }
    }
  }

  #add(path: string, line: number, text: string, at: number): void {
    this.#matches.push({ path, line, text, column: at + 1 });
    if (this.#matches.length >= this.#maxMatches) this.#stopped = { reason: 'max-matches', path, line };
  }

  /**
   * Accounts for matching `chars` characters; yields first when the slice is spent. False when the
   * call's work limit is reached (the search stops there).
   */
  async #spend(chars: number, path: string, line: number): Promise<boolean> {
    const work = Math.max(1, chars) * this.#regex.cost;
    if (this.#work + work > maxWork) {
      this.#stopped = { reason: 'max-work', path, line };
      return false;
    }
    if (this.#sliceWork + work > sliceWork || performance.now() - this.#sliceStart > sliceMs) {
      await nextTask();
      this.#signal?.throwIfAborted();
      this.#sliceWork = 0;
      this.#sliceStart = performance.now();
    }
    this.#work += work;
    this.#sliceWork += work;
    return true;
  }
}
