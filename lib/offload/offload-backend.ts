import type { Backend, FileInfo, GrepMatches, GrepOptions, LinesPage } from '../backends/backend.js';
import type { ReadOptions } from '../backends/text-file.js';
import type { WritableOffloadStore } from '../store/offload-store.js';
import type { OffloadFiles } from './offload-files.js';
import { loadReadSide } from './read-side-loader.js';

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
 *
 * Made at once; the code that reads (OffloadFiles) is loaded on the first call, so an app that only
 * offloads does not carry it.
 */
export class OffloadBackend implements Backend {
  readonly #storedBefore: (key: string) => boolean;
  /** The loaded implementation; undefined again after a failed load, so a later call tries again. */
  #files: Promise<OffloadFiles> | undefined;

  constructor(
    readonly store: WritableOffloadStore,
    readonly threadId: string,
    options: OffloadBackendOptions = {},
  ) {
    this.#storedBefore = options.storedBefore ?? (() => false);
    if (typeof threadId !== 'string' || threadId === '') {
      throw new TypeError(`OffloadBackend: threadId must be a non-empty string, got ${JSON.stringify(threadId)}`);
    }
  }

  #open(what: string): Promise<OffloadFiles> {
    this.#files ??= loadReadSide(what).then(
      (side) => new side.OffloadFiles(this.store, this.threadId, this.#storedBefore),
      (error: unknown) => {
        this.#files = undefined;
        throw error;
      },
    );
    return this.#files;
  }

  async ls(path: string): Promise<FileInfo[]> {
    return (await this.#open('ls')).ls(path);
  }

  async read(path: string, options?: ReadOptions): Promise<string> {
    return (await this.#open('read')).read(path, options);
  }

  /** The lines and the text's line count in one read of the store, of only the chunks that hold them. */
  async readLines(path: string, options?: ReadOptions): Promise<LinesPage> {
    return (await this.#open('read')).readLines(path, options);
  }

  async grep(pattern: string, options?: GrepOptions): Promise<GrepMatches> {
    return (await this.#open('grep')).grep(pattern, options);
  }

  async glob(pattern: string, options?: { path?: string }): Promise<FileInfo[]> {
    return (await this.#open('glob')).glob(pattern, options);
  }

  async write(path: string, content: string): Promise<void> {
    return (await this.#open('write')).write(path, content);
  }

  async edit(path: string, oldText: string, newText: string): Promise<void> {
    return (await this.#open('edit')).edit(path, oldText, newText);
  }
}
