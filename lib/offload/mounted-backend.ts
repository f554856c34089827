import type { Backend, FileInfo, GrepMatches, GrepOptions, LinesPage } from '../backends/backend.js';
import { globMatcher } from '../backends/glob.js';
import { compileLinearRegex } from '../backends/linear-regex.js';
import { isWithin, joinPath, normalizePath } from '../backends/paths.js';
import type { ReadOptions } from '../backends/text-file.js';
import { BackendError } from '../shared/errors.js';
import type { OffloadBackend } from './offload-backend.js';
import { offloadMount } from './result-path.js';

const mountDir = offloadMount.slice(0, -1);

/**
 * One thread's OffloadBackend seen at its mount, as the read tools take paths: the file system an
 * agent has when it mounts `offload.backend(threadId)` at `ToolOutputOffload.mount` in a
 * CompositeBackend over an empty one — the same paths, listings and errors — without carrying a
 * general router in the offload. Read-only; grep takes no glob (the read tools' grep has none).
 */
export class MountedOffloadBackend implements Backend {
  constructor(readonly inner: OffloadBackend) {}

  /** The path inside the mount, or undefined for a path outside it. */
  #inner(path: string): string | undefined {
    return isWithin(path, mountDir) ? path.slice(mountDir.length) || '/' : undefined;
  }

  #outside(path: string): never {
    throw new BackendError('not-found', `not found: ${path}`);
  }

  #whole<T extends { path: string }>(results: T[]): T[] {
    return results.map((result) => ({ ...result, path: joinPath(mountDir, normalizePath(result.path)) }));
  }

  async ls(path: string): Promise<FileInfo[]> {
    const dir = normalizePath(path);
    const inner = this.#inner(dir);
    if (inner !== undefined) return this.#whole(await this.inner.ls(inner));
    if (dir === '/') return [{ path: mountDir, size: 0, isDir: true }];
    return this.#outside(dir);
  }

  async read(path: string, options?: ReadOptions): Promise<string> {
    const file = normalizePath(path);
    const inner = this.#inner(file);
    return inner === undefined ? this.#outside(file) : this.inner.read(inner, options);
  }

  async readLines(path: string, options?: ReadOptions): Promise<LinesPage> {
    const file = normalizePath(path);
    const inner = this.#inner(file);
    return inner === undefined ? this.#outside(file) : this.inner.readLines(inner, options);
  }

  async grep(pattern: string, options: GrepOptions = {}): Promise<GrepMatches> {
    await compileLinearRegex(pattern); // an invalid pattern fails wherever it searches
    const dir = normalizePath(options.path ?? '/', 'grep path');
    const inner = dir === '/' ? '/' : this.#inner(dir);
    if (inner === undefined) return this.#outside(dir);
    const found = await this.inner.grep(pattern, { ...options, path: inner });
    const matches: GrepMatches = this.#whole(found);
    if (found.stopped)
      matches.stopped = { ...found.stopped, path: joinPath(mountDir, normalizePath(found.stopped.path)) };
    return matches;
  }

  async glob(pattern: string, options: { path?: string } = {}): Promise<FileInfo[]> {
    const dir = normalizePath(options.path ?? '/', 'glob path');
    const inner = dir === '/' ? '/' : this.#inner(dir);
    if (inner === undefined) return this.#outside(dir);
    const matches = await globMatcher(pattern, dir);
    const own = dir === '/' || pattern.startsWith('/') ? '**' : pattern;
    return this.#whole(await this.inner.glob(own, { path: inner })).filter((info) => matches(info.path));
  }

  /** Read-only everywhere: the offload's backend says so, naming the whole path. */
  write(path: string, content: string): Promise<void> {
    return this.inner.write(this.#inner(normalizePath(path)) ?? path, content);
  }

  edit(path: string, oldText: string, newText: string): Promise<void> {
    return this.inner.edit(this.#inner(normalizePath(path)) ?? path, oldText, newText);
  }
}
