import { BackendError } from '../shared/errors.js';
import { utf8Bytes } from '../shared/text.js';
import type { Backend, FileInfo, GrepMatches, GrepOptions, LinesPage } from './backend.js';
import { fileFilter, globMatcher } from './glob.js';
import { GrepSearch } from './grep-search.js';
import { compileLinearRegex } from './linear-regex.js';
import { byPath, isWithin, normalizePath, quoteForMessage, relativeTo } from './paths.js';
import { linesOf, linesPageOf, type ReadOptions } from './text-file.js';

interface StoredFile {
  text: string;
  bytes: number;
}

/** A Backend that keeps its files in memory. Directories exist while a file lies under them. */
export class MemoryBackend implements Backend {
  readonly #files = new Map<string, StoredFile>();
  /** Every directory some file lies under ('/a' and '/a/b' for '/a/b/c.txt'); files are never removed. */
  readonly #dirs = new Set<string>();

  constructor(files: Record<string, string> = {}) {
    if (typeof files !== 'object' || files === null) throw new TypeError('MemoryBackend files must be an object');
    for (const [path, text] of Object.entries(files)) {
      try {
        this.#put(this.#filePath(path), text);
      } catch (error) {
        throw new TypeError(`MemoryBackend file ${quoteForMessage(path)}: ${(error as Error).message}`);
      }
    }
  }

  async ls(path: string): Promise<FileInfo[]> {
    const dir = normalizePath(path);
    const file = this.#files.get(dir);
    if (file) return [{ path: dir, size: file.bytes }];
    const entries = new Map<string, FileInfo>();
    for (const [filePath, { bytes }] of this.#files) {
      if (!isWithin(filePath, dir)) continue;
      const rest = relativeTo(filePath, dir);
      const slash = rest.indexOf('/');
      const child = `${dir === '/' ? '' : dir}/${slash === -1 ? rest : rest.slice(0, slash)}`;
      entries.set(child, slash === -1 ? { path: child, size: bytes } : { path: child, size: 0, isDir: true });
    }
    if (entries.size === 0 && dir !== '/') throw notFound(dir);
    return [...entries.values()].sort(byPath);
  }

  async read(path: string, options?: ReadOptions): Promise<string> {
    const filePath = normalizePath(path);
    return linesOf(filePath, this.#get(filePath).text, options);
  }

  async readLines(path: string, options?: ReadOptions): Promise<LinesPage> {
    return linesPageOf(this.#get(normalizePath(path)).text, options);
  }

  async grep(pattern: string, options: GrepOptions = {}): Promise<GrepMatches> {
    const search = new GrepSearch(await compileLinearRegex(pattern), options);
    const dir = this.#existing(options.path);
    const include = options.glob === undefined ? (p: string) => isWithin(p, dir) : await fileFilter(options.glob, dir);
    for (const path of this.#sortedPaths()) {
      if (search.stopped) break;
      if (include(path)) await search.searchText(path, this.#files.get(path)!.text);
    }
    return search.result();
  }

  async glob(pattern: string, options: { path?: string } = {}): Promise<FileInfo[]> {
    const dir = this.#existing(options.path);
    const matches = await globMatcher(pattern, dir);
    return this.#sortedPaths()
      .filter(matches)
      .map((path) => ({ path, size: this.#files.get(path)!.bytes }));
  }

  async write(path: string, content: string): Promise<void> {
    this.#put(this.#filePath(path), content);
  }

  async edit(path: string, oldText: string, newText: string): Promise<void> {
    const filePath = normalizePath(path);
    const { text } = this.#get(filePath);
    if (typeof oldText !== 'string' || oldText === '') {
      throw new BackendError('invalid-argument', `old text must be a non-empty string (editing ${filePath})`);
    }
    if (typeof newText !== 'string')
      throw new BackendError('invalid-argument', `new text must be a string (editing ${filePath})`);
    const at = text.indexOf(oldText);
    if (at === -1) throw new BackendError('invalid-argument', `old text not found in ${filePath}`);
    const count = countOccurrences(text, oldText);
    if (count > 1) {
      throw new BackendError(
        'invalid-argument',
        `old text found ${count} times in ${filePath}; it must occur exactly once: include more of the surrounding text`,
      );
    }
    // Slicing, not String.replace, so '$&' and friends in newText stay literal.
    this.#put(filePath, text.slice(0, at) + newText + text.slice(at + oldText.length));
  }

  /** A path that names a file: valid and without a trailing '/'. */
  #filePath(path: string): string {
    const filePath = normalizePath(path);
    if (filePath === '/' || path.endsWith('/')) {
      throw new BackendError('invalid-path', `${quoteForMessage(path)} names a directory, not a file`);
    }
    return filePath;
  }

  #put(path: string, text: string): void {
    if (typeof text !== 'string') {
      throw new BackendError('invalid-argument', `content of ${path} must be a string, got ${typeof text}`);
    }
    if (!this.#files.has(path)) {
      if (this.#dirs.has(path)) throw new BackendError('invalid-path', `${path} is a directory`);
      const parents = parentsOf(path);
      const file = parents.find((parent) => this.#files.has(parent));
      if (file) throw new BackendError('invalid-path', `${file} is a file, so ${path} cannot be created`);
      for (const parent of parents) this.#dirs.add(parent);
    }
    this.#files.set(path, { text, bytes: utf8Bytes(text) });
  }

  #get(path: string): StoredFile {
    const file = this.#files.get(path);
    if (file) return file;
    if (path === '/' || this.#dirs.has(path)) {
      throw new BackendError('invalid-argument', `${path} is a directory; use ls to list it`);
    }
    throw notFound(path);
  }

  /** The search root of grep/glob: '/' by default; a path that names nothing is 'not-found'. */
  #existing(path: string | undefined): string {
    const dir = path === undefined ? '/' : normalizePath(path);
    if (dir !== '/' && !this.#dirs.has(dir) && !this.#files.has(dir)) throw notFound(dir);
    return dir;
  }

  #sortedPaths(): string[] {
    return [...this.#files.keys()].sort();
  }
}

function notFound(path: string): BackendError {
  return new BackendError('not-found', `not found: ${path}`);
}

/** The directories above a path, nearest last: '/a/b/c' → ['/a', '/a/b']. */
function parentsOf(path: string): string[] {
  const parents: string[] = [];
  for (let slash = path.indexOf('/', 1); slash !== -1; slash = path.indexOf('/', slash + 1)) {
    parents.push(path.slice(0, slash));
  }
  return parents;
}

function countOccurrences(text: string, part: string): number {
  let count = 0;
  for (let i = text.indexOf(part); i !== -1; i = text.indexOf(part, i + part.length)) count++;
  return count;
}
