/** One file or directory as `ls` and `glob` list it; `size` in bytes. */
export interface FileInfo {
  path: string;
  size: number;
  isDir?: boolean;
}

/** One line grep matched. */
export interface GrepMatch {
  path: string;
  /** 1-based. */
  line: number;
  text: string;
  /** 1-based column (UTF-16 code units) where the line's first match starts, when the backend knows it. */
  column?: number;
}

/** Where grep searches and how much work one call may do. */
export interface GrepOptions {
  /**
   * Directory or file to search.
   * @default '/'
   */
  path?: string;
  /** Only files matching this glob: without '/' it matches file names, with '/' paths relative to `path`. */
  glob?: string;
  /**
   * Stop after this many matching lines.
   * @default 1000
   */
  maxMatches?: number;
  /**
   * Stop after scanning this many lines, all files together.
   * @default 1_000_000
   */
  maxLines?: number;
  /** Aborts the search between slices of work (it rejects with the signal's reason). */
  signal?: AbortSignal;
}

/**
 * Why a search ended before it had searched everything: `maxMatches` reached (`line`: the last match),
 * `maxLines` reached or the call's matching work spent (`line`: the first line of `path` not searched).
 */
export interface GrepStop {
  reason: 'max-matches' | 'max-lines' | 'max-work';
  path: string;
  line: number;
}

/** grep's matches in path order, then line order; `stopped` is set when a limit ended the search early. */
export type GrepMatches = GrepMatch[] & { stopped?: GrepStop };

/** What `Backend.readLines` returns: the lines asked for, with their newlines, and the file's line count. */
export interface LinesPage {
  text: string;
  totalLines: number;
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
   * Lines matching a regular expression in JavaScript syntax, run in linear time (RE2; see
   * `compileLinearRegex`: backreferences and lookaround are 'invalid-argument', as is an invalid
   * pattern, naming it), in the files under `options.path` (default '/'). Bounded by
   * `maxMatches` and `maxLines`; a search cut short says where in `stopped`.
   */
  grep(pattern: string, options?: GrepOptions): Promise<GrepMatches>;
  /** Files (not directories) under `path` (default '/') whose path relative to it matches `pattern`; '**' lists them all. */
  glob(pattern: string, options?: { path?: string }): Promise<FileInfo[]>;
  write(path: string, content: string): Promise<void>;
  edit(path: string, oldText: string, newText: string): Promise<void>;
  /**
   * Optional: lines [offset, offset + limit) as `read` returns them, and how many lines the file has
   * (counted as `read` counts them: a final newline ends the last line; an empty file has none), in
   * one call. An offset past the last line is no error here: `text` is '' and `totalLines` says how
   * many there are. `read_file` uses it (one read for a page that ends before the file); a backend
   * without it is read with `read`, and read whole once more to count when a page does not reach the end.
   */
  readLines?(path: string, options?: { offset?: number; limit?: number }): Promise<LinesPage>;
}

const backendMethods = ['ls', 'read', 'grep', 'glob', 'write', 'edit'] as const;

/** Whether `value` has every method of a Backend (for clear errors when something else is passed). */
export function isBackend(value: unknown): value is Backend {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return backendMethods.every((method) => typeof record[method] === 'function');
}
