import type { Backend, FileInfo, GrepMatches, GrepOptions, LinesPage } from '../backends/backend.js';
import { fileFilter, globMatcher } from '../backends/glob.js';
import { GrepSearch } from '../backends/grep-search.js';
import { compileLinearRegex } from '../backends/linear-regex.js';
import { byPath, isWithin, joinPath, normalizePath, quoteForMessage } from '../backends/paths.js';
import { checkReadOptions, pastTheEnd, type ReadOptions } from '../backends/text-file.js';
import { checkOptionNames } from '../shared/checks.js';
import { BackendError } from '../shared/errors.js';
import { isIdempotencyKey } from '../shared/ids.js';
import type { LinesRead, StoredResultInfo, WritableOffloadStore } from '../store/offload-store.js';
import { offloadMount } from './result-path.js';
import { readFailureInWords } from './words.js';

const mountDir = offloadMount.slice(0, -1);

/** The path as the model wrote it (the mount restored), for error messages. */
function fullPath(path: string): string {
  return joinPath(mountDir, path);
}

interface OffloadBackendOptions {
  /**
   * Whether the result under `key` was stored earlier (the offload remembers what it stored): a
   * read of it that the store does not know at all (its database deleted or wiped) says it was
   * cleared, not that it was never stored.
   */
  storedBefore?: (key: string) => boolean;
}

/**
 * One thread's stored results as a read-only file system (O6), to mount at
 * `ToolOutputOffload.mount` in a CompositeBackend: it sees paths with the mount stripped, so a
 * result is the file `/<idempotencyKey>`. `ls`, `read`, `grep` and `glob` work; `write` and `edit`
 * fail with 'read-only'. Reading an evicted result fails with 'evicted', saying why (O4).
 */
export class OffloadBackend implements Backend {
  readonly #storedBefore: (key: string) => boolean;

  constructor(
    readonly store: WritableOffloadStore,
    readonly threadId: string,
    options: OffloadBackendOptions = {},
  ) {
    checkOptionNames('OffloadBackend', options, ['storedBefore']);
    this.#storedBefore = options.storedBefore ?? (() => false);
    if (typeof threadId !== 'string' || threadId === '') {
      throw new TypeError(`OffloadBackend: threadId must be a non-empty string, got ${JSON.stringify(threadId)}`);
    }
  }

  /** Normalizes a path within the mount: '/' (the mount itself) or '/<key>'. Anything else is 'invalid-path'. */
  #check(path: unknown): string {
    const normalized = normalizePath(path);
    if (normalized === '/') return normalized;
    const key = normalized.slice(1);
    if (!isIdempotencyKey(key)) {
      throw new BackendError(
        'invalid-path',
        `${quoteForMessage(fullPath(normalized))} is not a stored result: they are named ${offloadMount}<key>, where key is 1 to 64 of A-Z a-z 0-9 _ -`,
      );
    }
    return normalized;
  }

  /** The stored text of `/<key>`; 'evicted' (saying why) or 'not-found' naming the full path. */
  #text(path: string): Promise<string> {
    return this.#reading(path, (key) => this.store.read(this.threadId, key));
  }

  /** The stored text of `/<key>` as the store's chunks (not joined), or whole where the store cannot give them. */
  #chunks(path: string): Promise<readonly string[]> {
    const { store } = this;
    return this.#reading(path, async (key) =>
      store.readChunks ? store.readChunks(this.threadId, key) : [await store.read(this.threadId, key)],
    );
  }

  /** Lines of `/<key>` and its line count, reading only the part of the text that holds them. */
  #lines(path: string, offset: number, limit?: number): Promise<LinesRead> {
    return this.#reading(path, (key) => this.store.readLines(this.threadId, key, offset, limit));
  }

  /** Runs a read of the result at `path`; why it cannot be read is put in words for the model, naming the full path. */
  async #reading<T>(path: string, read: (key: string) => Promise<T>): Promise<T> {
    const key = path.slice(1);
    try {
      return await read(key);
    } catch (error) {
      throw readFailureInWords(error, fullPath(path), () => this.#storedBefore(key));
    }
  }

  #entries(): Promise<StoredResultInfo[]> {
    return this.store.list(this.threadId);
  }

  #info(entry: StoredResultInfo): FileInfo {
    return { path: `/${entry.key}`, size: entry.bytes };
  }

  async ls(path: string): Promise<FileInfo[]> {
    const dir = this.#check(path);
    const entries = await this.#entries();
    if (dir === '/') return entries.map((entry) => this.#info(entry)).sort(byPath);
    const entry = entries.find((e) => `/${e.key}` === dir);
    if (entry) return [this.#info(entry)];
    await this.#text(dir); // throws 'evicted' or 'not-found'
    return [];
  }

  async read(path: string, options?: ReadOptions): Promise<string> {
    const file = this.#file(path);
    const { offset, limit } = checkReadOptions(options);
    if (offset === 0 && limit === undefined) return this.#text(file);
    const { text, totalLines } = await this.#lines(file, offset, limit);
    if (offset > 0 && offset >= totalLines) throw pastTheEnd(fullPath(file), offset, totalLines);
    return text;
  }

  /** The lines and the text's line count in one read of the store, of only the chunks that hold them. */
  async readLines(path: string, options?: ReadOptions): Promise<LinesPage> {
    const file = this.#file(path);
    const { offset, limit } = checkReadOptions(options);
    return this.#lines(file, offset, limit);
  }

  /** A path that must name a file, not the mount itself. */
  #file(path: string): string {
    const file = this.#check(path);
    if (file === '/')
      throw new BackendError('invalid-argument', `${offloadMount} is a directory; read one of its files`);
    return file;
  }

  async grep(pattern: string, options?: GrepOptions): Promise<GrepMatches> {
    const search = new GrepSearch(await compileLinearRegex(pattern), options);
    const dir = this.#check(options?.path ?? '/');
    const wanted = options?.glob === undefined ? () => true : await fileFilter(options.glob, dir);
    if (dir !== '/') {
      // One named file: an evicted or missing one is an error, not an empty result.
      if (wanted(dir)) await search.searchChunks(dir, await this.#chunks(dir));
      return search.result();
    }
    for (const entry of await this.#entries()) {
      if (search.stopped) break;
      const file = `/${entry.key}`;
      if (!isWithin(file, dir) || !wanted(file)) continue;
      let chunks: readonly string[];
      try {
        chunks = await this.#chunks(file);
      } catch (error) {
        // Evicted by another writer since it was listed: no longer part of the mount.
        if (error instanceof BackendError && (error.code === 'evicted' || error.code === 'not-found')) continue;
        throw error;
      }
      await search.searchChunks(file, chunks);
    }
    return search.result();
  }

  async glob(pattern: string, options?: { path?: string }): Promise<FileInfo[]> {
    const dir = this.#check(options?.path ?? '/');
    const matches = await globMatcher(pattern, dir);
    const entries = await this.#entries();
    return entries.map((entry) => this.#info(entry)).filter((info) => matches(info.path));
  }

  async write(path: string, _content: string): Promise<void> {
    throw this.#readOnly(path, 'written');
  }

  async edit(path: string, _oldText: string, _newText: string): Promise<void> {
    throw this.#readOnly(path, 'edited');
  }

  #readOnly(path: unknown, verb: string): BackendError {
    const shown = typeof path === 'string' ? quoteForMessage(fullPath(path)) : quoteForMessage(path);
    return new BackendError(
      'read-only',
      `${shown} is read-only: ${offloadMount} holds stored tool results, which cannot be ${verb}`,
    );
  }
}
