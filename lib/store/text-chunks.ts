import { checkInteger } from '../shared/checks.js';

/**
 * Stored texts are kept in chunks, so reading a page of a large result reads only the chunks that
 * hold it. A record keeps how many newlines each chunk has; lines are counted as the file tools
 * count them (lib/shared/text.ts: a final '\n' ends the last line, '' has no lines).
 */

/** Where a text's lines fall in its chunks; kept on the entry and staged records. */
export interface TextLayout {
  /** The newlines in each chunk, in order; its length is the number of chunks. */
  chunkNewlines: number[];
  /** Lines in the whole text. */
  lines: number;
}

/**
 * Code units in a chunk, at most. Each value put costs a fixed amount beside its size (Chromium
 * writes one over 64 KiB as a file of its own), while a page read costs about its chunk's size: at
 * 262,144 a text of 256 KiB is one put, 1 MiB is put faster in four values than in one, and a page
 * of 1 MiB reads a quarter of it (bench/store.bench.ts, `stage-vs-raw-idb` and `read-page-1mib-ms`).
 */
export const defaultChunkChars = 262_144;

/** Checks a chunk size: an integer of at least 2 (a surrogate pair must fit). */
export function checkChunkChars(chunkChars: unknown): number {
  return checkInteger('chunkChars', chunkChars, 2);
}

function countNewlines(text: string, from: number, to: number): number {
  let count = 0;
  for (let i = text.indexOf('\n', from); i !== -1 && i < to; i = text.indexOf('\n', i + 1)) count++;
  return count;
}

/**
 * Where the chunk starting at `start` ends: after the last newline in its second half when there is
 * one (so pages rarely straddle two chunks), else at `chunkChars`, never inside a surrogate pair.
 */
function chunkEnd(text: string, start: number, chunkChars: number): number {
  const end = start + chunkChars;
  if (end >= text.length) return text.length;
  // Searched in the second half only: lastIndexOf on the whole text would scan back to its start
  // when the half has no newline (minified JSON, base64), each chunk again.
  const half = Math.ceil(start + chunkChars / 2);
  const newline = text.slice(half, end).lastIndexOf('\n');
  if (newline !== -1) return half + newline + 1;
  const code = text.charCodeAt(end - 1);
  const splitsPair = code >= 0xd800 && code <= 0xdbff && (text.charCodeAt(end) & 0xfc00) === 0xdc00;
  return splitsPair ? end - 1 : end;
}

/** `text` cut into chunks of at most `chunkChars` code units, and its layout. '' has no chunks. */
export function chunkText(text: string, chunkChars: number): { chunks: string[]; layout: TextLayout } {
  const chunks: string[] = [];
  const chunkNewlines: number[] = [];
  for (let start = 0; start < text.length; ) {
    const end = chunkEnd(text, start, chunkChars);
    chunks.push(text.slice(start, end));
    chunkNewlines.push(countNewlines(text, start, end));
    start = end;
  }
  const newlines = chunkNewlines.reduce((sum, count) => sum + count, 0);
  const lines = text === '' || text.endsWith('\n') ? newlines : newlines + 1;
  return { chunks, layout: { chunkNewlines, lines } };
}

/** The chunks that hold some lines: `first` to `last`, and how many lines to skip in them. */
interface ChunkSpan {
  first: number;
  last: number;
  /** Lines of chunk `first` before the wanted ones (sliceLines' offset into the joined chunks). */
  skip: number;
}

/**
 * The chunks holding lines [offset, offset + limit), or undefined when there is no such line (past
 * the end, or limit 0). Line n > 0 starts just after the text's n-th newline, and a page ends with
 * its last line's newline (or the text), so the span runs from the chunk of newline `offset` to
 * the chunk of newline `offset + limit`.
 */
export function chunkSpan(layout: TextLayout, offset: number, limit = Number.POSITIVE_INFINITY): ChunkSpan | undefined {
  if (offset >= layout.lines || limit <= 0) return undefined;
  const counts = layout.chunkNewlines;
  /** The chunk holding the n-th newline (1-based), or the last chunk when there are fewer. */
  const chunkOfNewline = (n: number): { chunk: number; before: number } => {
    let before = 0;
    for (let chunk = 0; chunk < counts.length - 1; chunk++) {
      if (before + counts[chunk]! >= n) return { chunk, before };
      before += counts[chunk]!;
    }
    return { chunk: counts.length - 1, before };
  };
  const start = offset === 0 ? { chunk: 0, before: 0 } : chunkOfNewline(offset);
  const end = offset + limit >= layout.lines ? counts.length - 1 : chunkOfNewline(offset + limit).chunk;
  return { first: start.chunk, last: end, skip: offset - start.before };
}
