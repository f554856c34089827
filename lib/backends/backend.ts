export interface FileInfo {
  path: string;
  size: number;
  isDir?: boolean;
}

export interface GrepMatch {
  path: string;
  /** 1-based. */
  line: number;
  text: string;
}

/** A file system as the file tools see it. Paths are absolute (`/a/b.txt`). */
export interface Backend {
  /** The entries directly in a directory (whole paths, sorted), or the file itself; missing → 'not-found'. */
  ls(path: string): Promise<FileInfo[]>;
  /**
   * Lines [offset, offset + limit), 0-based, with their newlines (so pages concatenate to the file).
   * An offset past the last line throws BackendError('invalid-argument', 'offset N is past the end: the file has M lines …').
   */
  read(path: string, options?: { offset?: number; limit?: number }): Promise<string>;
  /**
   * Lines matching a JS RegExp source (invalid → 'invalid-argument' naming it) in the files under `path`
   * (default '/'); `glob` filters the files: without '/' it matches file names, with '/' paths relative to `path`.
   */
  grep(pattern: string, options?: { path?: string; glob?: string }): Promise<GrepMatch[]>;
  /** Files (not directories) under `path` (default '/') whose path relative to it matches `pattern`; '**' lists them all. */
  glob(pattern: string, options?: { path?: string }): Promise<FileInfo[]>;
  write(path: string, content: string): Promise<void>;
  edit(path: string, oldText: string, newText: string): Promise<void>;
  /**
   * Optional: how many lines the file has, counted as `read` counts them (a final newline ends the
   * last line; an empty file has none). `read_file` calls it to say "lines 1-100 of N" when a page
   * does not reach the end; a backend without it is read whole once to count.
   */
  lineCount?(path: string): Promise<number>;
}

export type BackendErrorCode = 'not-found' | 'evicted' | 'read-only' | 'invalid-path' | 'invalid-argument';

export class BackendError extends Error {
  override readonly name = 'BackendError';
  constructor(
    readonly code: BackendErrorCode,
    message: string,
  ) {
    super(message);
  }
}

const backendMethods = ['ls', 'read', 'grep', 'glob', 'write', 'edit'] as const;

/** Whether `value` has every method of a Backend (for clear errors when something else is passed). */
export function isBackend(value: unknown): value is Backend {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return backendMethods.every((method) => typeof record[method] === 'function');
}
