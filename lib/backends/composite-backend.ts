import { BackendError } from '../shared/errors.js';
import {
  type Backend,
  type FileInfo,
  type GrepMatches,
  type GrepOptions,
  type GrepStop,
  isBackend,
  type LinesPage,
} from './backend.js';
import { fileFilter, globMatcher, isNameFilter } from './glob.js';
import { grepLimits } from './grep-search.js';
import { compileLinearRegex } from './linear-regex.js';
import { byPath, isWithin, joinPath, normalizePath, quoteForMessage, relativeTo } from './paths.js';
import { type ReadOptions, readPage } from './text-file.js';

interface Route {
  /** Normalized ('/memories'); '' for the fallback. */
  prefix: string;
  backend: Backend;
}

interface Target {
  route: Route;
  /** The path as the routed backend sees it. */
  inner: string;
}

/**
 * Serves several backends as one tree: each path goes to the route with the longest prefix that
 * contains it on a segment boundary, with the prefix stripped; everything else goes to the fallback.
 * Paths in results, and in error messages, come back whole.
 */
export class CompositeBackend implements Backend {
  readonly #fallback: Route;
  /** Longest prefix first, so the first route that contains a path is the one it belongs to. */
  readonly #routes: Route[] = [];

  constructor(fallback: Backend, routes: Record<string, Backend> = {}) {
    if (!isBackend(fallback)) throw new TypeError('CompositeBackend fallback must be a Backend');
    if (typeof routes !== 'object' || routes === null) throw new TypeError('CompositeBackend routes must be an object');
    this.#fallback = { prefix: '', backend: fallback };
    for (const [prefix, backend] of Object.entries(routes)) {
      let normalized: string;
      try {
        normalized = normalizePath(prefix, 'route prefix');
      } catch (error) {
        throw new TypeError(`CompositeBackend: ${(error as Error).message}`);
      }
      if (normalized === '/') {
        throw new TypeError(
          "CompositeBackend: route prefix '/' would take every path; pass that backend as the fallback",
        );
      }
      if (this.#routes.some((route) => route.prefix === normalized)) {
        throw new TypeError(`CompositeBackend: route prefix ${quoteForMessage(prefix)} is given twice`);
      }
      if (!isBackend(backend))
        throw new TypeError(`CompositeBackend: route ${quoteForMessage(prefix)} is not a Backend`);
      this.#routes.push({ prefix: normalized, backend });
    }
    this.#routes.sort((a, b) => b.prefix.length - a.prefix.length);
  }

  async ls(path: string): Promise<FileInfo[]> {
    const dir = normalizePath(path);
    const owner = this.#target(dir);
    const below = this.#routesUnder(dir);
    const entries = new Map<string, FileInfo>();
    for (const entry of await this.#search(owner, dir, below.length > 0, (b, inner) => b.ls(inner))) {
      entries.set(entry.path, entry);
    }
    // Each route shows as a directory in its parent, with any directories leading to it.
    for (const route of below) {
      const child = joinPath(dir, relativeTo(route.prefix, dir).split('/')[0]!);
      entries.set(child, { path: child, size: 0, isDir: true });
    }
    return [...entries.values()].sort(byPath);
  }

  async read(path: string, options?: ReadOptions): Promise<string> {
    return this.#call(normalizePath(path), (backend, inner) => backend.read(inner, options));
  }

  /** The routed backend's `readLines`, or its `read` where it has none (see `readPage`). */
  async readLines(path: string, options: ReadOptions = {}): Promise<LinesPage> {
    return this.#call(normalizePath(path), (backend, inner) => readPage(backend, inner, options));
  }

  /**
   * Searches the owner of `path` and every route under it at once, each within the call's limits;
   * the merged matches keep the first `maxMatches` in path order.
   */
  async grep(pattern: string, options: GrepOptions = {}): Promise<GrepMatches> {
    await compileLinearRegex(pattern); // an invalid pattern fails alike whichever backends are searched
    const { maxMatches } = grepLimits(options);
    const dir = normalizePath(options.path ?? '/', 'grep path');
    const { glob, path: _path, ...limits } = options;
    const include = glob === undefined ? () => true : await fileFilter(glob, dir);
    // A name-only filter means the same under any prefix; a path filter is applied here, on whole paths.
    const passOn = glob !== undefined && isNameFilter(glob) ? { ...limits, glob } : limits;
    const below = this.#routesUnder(dir);
    const stops: GrepStop[] = [];
    const searched = (route: Route) => async (backend: Backend, inner: string) => {
      const found = await backend.grep(pattern, { ...passOn, path: inner });
      if (found.stopped)
        stops.push({ ...found.stopped, path: joinPath(route.prefix, normalizePath(found.stopped.path)) });
      return found;
    };
    const target = this.#target(dir);
    const found = await Promise.all([
      this.#search(target, dir, below.length > 0, searched(target.route)),
      ...below.map((route) => this.#search({ route, inner: '/' }, dir, false, searched(route))),
    ]);
    const merged: GrepMatches = found
      .flat()
      .filter((match) => include(match.path))
      .sort((a, b) => byPath(a, b) || a.line - b.line);
    const last = merged[maxMatches - 1];
    if (merged.length > maxMatches && last) {
      merged.length = maxMatches;
      stops.push({ reason: 'max-matches', path: last.path, line: last.line });
    }
    const first = stops.sort((a, b) => byPath(a, b) || a.line - b.line)[0];
    if (first) merged.stopped = first;
    return merged;
  }

  async glob(pattern: string, options: { path?: string } = {}): Promise<FileInfo[]> {
    const dir = normalizePath(options.path ?? '/', 'glob path');
    const matches = await globMatcher(pattern, dir);
    const below = this.#routesUnder(dir);
    // The owner takes a relative pattern as it is; other backends list their files and are filtered here.
    const ownPattern = pattern.startsWith('/') ? '**' : pattern;
    const found = await Promise.all([
      this.#search(this.#target(dir), dir, below.length > 0, (b, inner) => b.glob(ownPattern, { path: inner })),
      ...below.map((route) => this.#search({ route, inner: '/' }, dir, false, (b) => b.glob('**'))),
    ]);
    return found
      .flat()
      .filter((info) => matches(info.path))
      .sort(byPath);
  }

  async write(path: string, content: string): Promise<void> {
    return this.#call(normalizePath(path), (backend, inner) => backend.write(inner, content));
  }

  async edit(path: string, oldText: string, newText: string): Promise<void> {
    return this.#call(normalizePath(path), (backend, inner) => backend.edit(inner, oldText, newText));
  }

  #target(path: string): Target {
    for (const route of this.#routes) {
      if (isWithin(path, route.prefix)) return { route, inner: path.slice(route.prefix.length) || '/' };
    }
    return { route: this.#fallback, inner: path };
  }

  /** Routes lying strictly under `dir`: searched whole when `dir` is searched. */
  #routesUnder(dir: string): Route[] {
    return this.#routes.filter((route) => route.prefix !== dir && isWithin(route.prefix, dir));
  }

  async #call<T>(path: string, operation: (backend: Backend, inner: string) => Promise<T>): Promise<T> {
    const { route, inner } = this.#target(path);
    try {
      return await operation(route.backend, inner);
    } catch (error) {
      throw wholePaths(error, inner, path);
    }
  }

  /**
   * Runs a listing on one backend and returns its results with whole paths, leaving out what a longer
   * route shadows. `dir` missing there is no error when routes lie under it (`optional`).
   */
  async #search<T extends { path: string }>(
    { route, inner }: Target,
    dir: string,
    optional: boolean,
    operation: (backend: Backend, inner: string) => Promise<T[]>,
  ): Promise<T[]> {
    let results: T[];
    try {
      results = await operation(route.backend, inner);
    } catch (error) {
      if (optional && error instanceof BackendError && error.code === 'not-found') return [];
      throw wholePaths(error, inner, dir);
    }
    return results
      .map((result) => ({ ...result, path: joinPath(route.prefix, normalizePath(result.path)) }))
      .filter((result) => this.#target(result.path).route === route);
  }
}

/** A routed backend's error with the path it saw (`inner`) replaced by the whole path (`outer`). */
function wholePaths(error: unknown, inner: string, outer: string): unknown {
  if (!(error instanceof BackendError) || inner === outer) return error;
  // Only where `inner` stands alone: not inside a longer path or word.
  const escaped = inner.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const standalone = new RegExp(`(?<![\\w./-])${escaped}(?![\\w./-])`, 'g');
  return new BackendError(
    error.code,
    error.message.replace(standalone, () => outer),
  );
}
