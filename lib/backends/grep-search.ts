// One grep call's work: every line of every file searched is matched on RE2 (ranges of lines at
// once, then alone only where a range may match), in slices that give the page back between them,
// within limits on the lines scanned, the matches kept and the matching work, so no pattern and no
// amount of stored text can freeze the page.
import { checkInteger } from '../shared/checks.js';
import { BackendError } from '../shared/errors.js';
import type { GrepMatch, GrepMatches, GrepOptions, GrepStop } from './backend.js';
import type { LinearRegex } from './linear-regex.js';
import { nextTask } from './next-task.js';

const defaultMaxMatches = 1000;
export const defaultMaxLines = 1_000_000;
/** Characters × RE2 instructions one call may spend: ~70 M characters of a plain pattern. */
const maxWork = 2 ** 31;
/** Characters × instructions of one piece's matching: about 1–15 ms, whatever the pattern. */
const sliceWork = 2 ** 20;
/** Milliseconds of a slice, after which it yields. */
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
  searchText(path: string, text: string): Promise<void> {
    return this.searchChunks(path, [text]);
  }

  /**
   * Searches one file held as pieces that concatenate to its text (a store's chunks, each ending on
   * a newline where it can), without joining them: a line that runs from one piece into the next is
   * the only text put together. Whole lines are searched many at a time, in a synchronous loop that
   * yields only when a slice of work or time is spent, never per line.
   */
  async searchChunks(path: string, chunks: readonly string[]): Promise<void> {
    this.#signal?.throwIfAborted();
    const at = { path, line: 1 };
    /** The start of a line that an earlier piece ended in. */
    let carried: string[] = [];
    for (const chunk of chunks) {
      if (this.#stopped) return;
      let from = 0;
      if (carried.length > 0) {
        const newline = chunk.indexOf('\n');
        if (newline === -1) {
          carried.push(chunk);
          continue;
        }
        carried.push(chunk.slice(0, newline));
        await this.#searchLine(at, carried.join(''));
        carried = [];
        from = newline + 1;
      }
      const last = chunk.lastIndexOf('\n');
      if (from <= last) await this.#searchLines(at, chunk, from, last);
      const tail = Math.max(from, last + 1);
      if (tail < chunk.length) carried.push(chunk.slice(tail));
    }
    if (carried.length > 0 && !this.#stopped) await this.#searchLine(at, carried.join(''));
  }

  /** Whether a line may be searched: false, and the search stopped there, when `maxLines` are scanned. */
  #mayScan(at: Position): boolean {
    if (this.#lines < this.#maxLines) return true;
    this.#stopped = { reason: 'max-lines', path: at.path, line: at.line };
    return false;
  }

  /**
   * Searches the whole lines of `chunk` from `from` (a line's start) to the newline at `last`, in
   * ranges of lines that fit in a slice; a line longer than a range is searched alone, in pieces.
   */
  async #searchLines(at: Position, chunk: string, from: number, last: number): Promise<void> {
    let start = from;
    while (start <= last && !this.#stopped) {
      if (this.#sliceSpent()) await this.#yield();
      if (!this.#mayScan(at)) return;
      // Half a piece: a range may be matched twice (all at once, then line by line) within its slice.
      const room = Math.min(this.#piece >> 1, Math.floor((maxWork - this.#work) / this.#regex.cost / 2));
      const allowed = this.#maxLines - this.#lines;
      // The range: lines from `start` whose newlines lie within `room` characters, at most `allowed` of them.
      let end = -1;
      let count = 0;
      for (let newline = chunk.indexOf('\n', start); newline !== -1 && newline - start <= room; ) {
        end = newline;
        if (++count === allowed || newline === last) break;
        newline = chunk.indexOf('\n', newline + 1);
      }
      if (count === 0) {
        const newline = chunk.indexOf('\n', start);
        await this.#searchLine(at, chunk.slice(start, newline));
        start = newline + 1;
        continue;
      }
      this.#charge(end - start);
      this.#lines += count;
      this.#searchRange(at, chunk, start, end);
      at.line += count;
      start = end + 1;
    }
  }

  /**
   * Matches the lines in [start, end) of `chunk` (`end` a newline), numbered from `at.line`, within
   * one slice. One call over the whole range says whether any of its lines may match (every match
   * within a line is one of `regex.lines` there): most ranges have none, and only the others are
   * searched line by line.
   */
  #searchRange(at: Position, chunk: string, start: number, end: number): void {
    const many = this.#regex.lines;
    if (many) {
      // Matched in a slice of its own (the character before it kept, so `^` and `\b` see it): re2js
      // looks for a pattern's literal part with indexOf, which would scan on past `end` to the end of the chunk.
      const before = start > 0 ? 1 : 0;
      if (!many.test(chunk.slice(start - before, end), before)) return;
      this.#charge(end - start);
    }
    let line = at.line;
    for (let lineStart = start; lineStart <= end && !this.#stopped; line++) {
      const lineEnd = chunk.indexOf('\n', lineStart);
      const content = chunk.slice(lineStart, lineEnd);
      if (this.#regex.test(content)) {
        this.#charge(content.length);
        this.#add(at.path, line, content, this.#regex.find(content)?.[0] ?? 0);
      }
      lineStart = lineEnd + 1;
    }
  }

  /** Searches one line on its own: in pieces when it is long, yielding between them. */
  async #searchLine(at: Position, content: string): Promise<void> {
    if (!this.#mayScan(at)) return;
    this.#lines++;
    const line = at.line++;
    const { path } = at;
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

  /** Counts matching `chars` characters as work done (the caller made sure it fits the call's limit). */
  #charge(chars: number): void {
    const work = Math.max(1, chars) * this.#regex.cost;
    this.#work += work;
    this.#sliceWork += work;
  }

  /**
   * Whether this slice's time is spent: the next range yields first. A range's work is bounded (half
   * a piece), so time alone decides: a pattern's cost is its worst case, and one with a literal part
   * is matched by indexOf far faster than that, so yielding by work would yield hundreds of times
   * for nothing.
   */
  #sliceSpent(): boolean {
    return performance.now() - this.#sliceStart > sliceMs;
  }

  /** Gives the page back for a task, then goes on (or rejects if the signal was aborted meanwhile). */
  async #yield(): Promise<void> {
    await nextTask();
    this.#signal?.throwIfAborted();
    this.#sliceWork = 0;
    this.#sliceStart = performance.now();
  }

  /**
   * Accounts for matching `chars` characters of a line searched alone; yields first when the slice
   * is spent. False when the call's work limit is reached (the search stops there).
   */
  async #spend(chars: number, path: string, line: number): Promise<boolean> {
    const work = Math.max(1, chars) * this.#regex.cost;
    if (this.#work + work > maxWork) {
      this.#stopped = { reason: 'max-work', path, line };
      return false;
    }
    if (this.#sliceWork + work > sliceWork || performance.now() - this.#sliceStart > sliceMs) await this.#yield();
    this.#charge(chars);
    return true;
  }
}

/** Where a file's search is: its path and the number of the next line. */
interface Position {
  path: string;
  line: number;
}
