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
  ls(path: string): Promise<FileInfo[]>;
  /** Lines [offset, offset + limit), 0-based. */
  read(path: string, options?: { offset?: number; limit?: number }): Promise<string>;
  grep(pattern: string, options?: { path?: string; glob?: string }): Promise<GrepMatch[]>;
  glob(pattern: string, options?: { path?: string }): Promise<FileInfo[]>;
  write(path: string, content: string): Promise<void>;
  edit(path: string, oldText: string, newText: string): Promise<void>;
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
