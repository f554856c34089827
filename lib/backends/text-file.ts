// The per-file halves of the Backend contract, shared by every backend that holds whole texts
// (MemoryBackend, the offload's read-only backend), so they read and search alike.
import { checkInteger } from '../shared/checks.js';
import { BackendError } from '../shared/errors.js';
import { countLines, sliceLines } from '../shared/text.js';
import type { Backend, LinesPage } from './backend.js';

export interface ReadOptions {
  offset?: number;
  limit?: number;
}

function checkCount(value: unknown, name: string, min: number): number | undefined {
  if (value === undefined) return undefined;
  return checkInteger(name, value, min, undefined, (message) => new BackendError('invalid-argument', message));
}

/** Checks read options: offset a non-negative integer, limit a positive integer (both optional). */
export function checkReadOptions(options: ReadOptions | undefined): { offset: number; limit?: number } {
  const offset = checkCount(options?.offset, 'offset', 0) ?? 0;
  const limit = checkCount(options?.limit, 'limit', 1);
  return limit === undefined ? { offset } : { offset, limit };
}

/**
 * `Backend.read` over a text held whole: lines [offset, offset + limit), 0-based, with their newlines.
 * An offset past the last line is BackendError('invalid-argument') saying how many lines the file has
 * (offset 0 of an empty file reads '').
 */
export function linesOf(path: string, text: string, options?: ReadOptions): string {
  const { offset, limit } = checkReadOptions(options);
  if (offset === 0 && limit === undefined) return text;
  const page = sliceLines(text, offset, limit);
  if (page === '' && offset > 0) throw pastTheEnd(path, offset, countLines(text));
  return page;
}

/** The error for reading from `offset` of a file that has only `lines` lines. */
export function pastTheEnd(path: string, offset: number, lines: number): BackendError {
  return new BackendError(
    'invalid-argument',
    `offset ${offset} is past the end: the file has ${lines} line${lines === 1 ? '' : 's'} (${path})`,
  );
}

/** `Backend.readLines` over a text held whole: lines [offset, offset + limit) and the text's line count. */
export function linesPageOf(text: string, options?: ReadOptions): LinesPage {
  const { offset, limit } = checkReadOptions(options);
  return {
    text: offset === 0 && limit === undefined ? text : sliceLines(text, offset, limit),
    totalLines: countLines(text),
  };
}

/**
 * Lines of the file at `path` and its line count: in one call through the backend's optional
 * `readLines`; else (a custom backend) through `read` (options checked here), and, when the page
 * does not show where the file ends, by reading the whole file once more to count its lines.
 */
export async function readPage(backend: Backend, path: string, options: ReadOptions): Promise<LinesPage> {
  if (backend.readLines) return backend.readLines(path, options);
  const { offset, limit } = checkReadOptions(options);
  const text = await backend.read(path, limit === undefined ? { offset } : { offset, limit });
  const lines = countLines(text);
  const reachesEnd = lines > 0 && (limit === undefined || lines < limit);
  if (reachesEnd || (offset === 0 && lines === 0)) return { text, totalLines: offset + lines };
  return { text, totalLines: countLines(await backend.read(path)) };
}
