// The per-file halves of the Backend contract, shared by every backend that holds whole texts
// (MemoryBackend, the offload's read-only backend), so they read and search alike.
import { checkInteger } from '../shared/checks.js';
import { BackendError } from '../shared/errors.js';
import { countLines, sliceLines } from '../shared/text.js';
import type { Backend } from './backend.js';

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
export function readLines(path: string, text: string, options?: ReadOptions): string {
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

/**
 * How many lines the file at `path` has, as `read` counts them: through the backend's optional
 * `lineCount` when it has one, else by reading the whole file once.
 */
export async function totalLines(backend: Backend, path: string): Promise<number> {
  if (backend.lineCount) return backend.lineCount(path);
  return countLines(await backend.read(path));
}
