import { quoteForMessage } from '../shared/checks.js';
import { BackendError } from '../shared/errors.js';

/** The longest path a backend accepts, in characters. */
export const maxPathLength = 4096;

/** Why `path` is not a valid absolute path, or undefined when it is. */
function pathProblem(path: unknown): string | undefined {
  if (typeof path !== 'string') return `must be a string, got ${path === null ? 'null' : typeof path}`;
  if (path === '') return 'is empty';
  if (path.length > maxPathLength) return `is ${path.length} characters long; at most ${maxPathLength} are allowed`;
  if (path.includes('\0')) return 'contains a NUL character';
  if (!path.startsWith('/')) return "is relative; paths start with '/'";
  const segments = path.slice(1, path.endsWith('/') ? -1 : undefined).split('/');
  if (path !== '/' && segments.includes('')) return "has an empty segment ('//')";
  if (segments.includes('..')) return "contains a '..' segment";
  if (segments.includes('.')) return "contains a '.' segment";
  return undefined;
}

// Messages quote paths and patterns as every other error does (cut short, never throwing).
export { quoteForMessage };

/**
 * Checks an absolute path and returns it without a trailing '/' ('/' stays '/').
 * Throws BackendError('invalid-path') naming the path and what is wrong with it.
 */
export function normalizePath(path: unknown, what = 'path'): string {
  const problem = pathProblem(path);
  if (problem) throw new BackendError('invalid-path', `${what} ${quoteForMessage(path)} ${problem}`);
  const p = path as string;
  return p.length > 1 && p.endsWith('/') ? p.slice(0, -1) : p;
}

/** `prefix` + `path` as one path, never with '//': ('/mnt', '/') → '/mnt', ('/mnt', '/a') → '/mnt/a'. */
export function joinPath(prefix: string, path: string): string {
  const head = prefix.endsWith('/') ? prefix.slice(0, -1) : prefix;
  if (path === '/' || path === '') return head === '' ? '/' : head;
  return `${head}${path.startsWith('/') ? '' : '/'}${path}`;
}

/** Whether normalized `path` is `dir` itself or lies under it. */
export function isWithin(path: string, dir: string): boolean {
  return dir === '/' || path === dir || path.startsWith(`${dir}/`);
}

/** `path` relative to `dir`, without a leading '/' ('' when they are equal); `path` must lie within `dir`. */
export function relativeTo(path: string, dir: string): string {
  if (path === dir) return '';
  return dir === '/' ? path.slice(1) : path.slice(dir.length + 1);
}

/** The last segment of a normalized path ('' for '/'). */
export function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** Orders entries by path (code unit order, as Array.prototype.sort does for strings). */
export function byPath(a: { path: string }, b: { path: string }): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}
