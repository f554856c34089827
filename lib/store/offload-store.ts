/** One stored result, without its text. */
export interface StoredResultInfo {
  threadId: string;
  /** The call's idempotency key. */
  key: string;
  path: string;
  toolName: string;
  /** UTF-8 bytes stored (after the cut). */
  bytes: number;
  /** UTF-8 bytes of the tool's text. */
  originalBytes: number;
  estimatedTokens: number;
  truncated: boolean;
  /** Position in the thread's eviction queue: higher is newer. */
  seq: number;
  createdAt: number;
  /** Exactly the text the model was shown instead. */
  preview: string;
}

export type EvictionReason = 'bound' | 'summarized' | 'blocked' | 'replaced';

export interface EvictionRecord {
  threadId: string;
  key: string;
  path: string;
  bytes: number;
  at: number;
  reason: EvictionReason;
}

export type StoreEvent =
  | {
      type: 'stored' | 'evicted' | 'restored';
      threadId: string;
      key: string;
      totalBytes: number;
    }
  /** A result could not be stored (e.g. a full quota, S3); `error` says why. */
  | { type: 'failed'; threadId: string; key: string; totalBytes: number; error: string };

/** A result that could not be stored (S3): the tool result was cut instead of offloaded. */
export interface StoreFailure {
  threadId: string;
  key: string;
  path: string;
  toolName: string;
  /** UTF-8 bytes that could not be stored. */
  bytes: number;
  at: number;
  /** Why, in words (e.g. the QuotaExceededError's message). */
  error: string;
}

/** What `stage` writes: the text and everything about it but its place in the queue. */
export interface StagedResult extends Omit<StoredResultInfo, 'seq'> {
  text: string;
  /** The turn that staged it: `restoreTurn`/`settle` delete what a turn staged but never committed. */
  turnId?: string;
}

/**
 * One change, applied atomically (one transaction in a persistent store).
 * `turnId` tags what the change did so an output Block can undo that turn (O8).
 */
export type StoreChange =
  | { type: 'commit'; threadId: string; key: string; turnId: string; maxTotalBytes: number }
  | { type: 'drop'; threadId: string; keys: readonly string[]; turnId: string; reason: 'summarized' };

export interface AppliedChange {
  stored: string[];
  evicted: EvictionRecord[];
  totalBytes: number;
  entries: number;
}

/** What `readLines` returns: the lines asked for and the text's line count. */
export interface LinesRead {
  text: string;
  totalLines: number;
}

export interface OffloadStore {
  /** Entries, oldest first; all threads when no thread is given. */
  list(threadId?: string): Promise<StoredResultInfo[]>;
  /** The stored text; throws BackendError 'evicted' (saying why) or 'not-found'. */
  read(threadId: string, key: string): Promise<string>;
  /**
   * Lines [offset, offset + limit) of the stored text, 0-based, with their newlines ('' past the
   * end; no limit reads to the end), and how many lines the text has. Reads only the part of the
   * text that holds them (limit 0 reads none). Throws like `read`.
   */
  readLines(threadId: string, key: string, offset: number, limit?: number): Promise<LinesRead>;
  /** The eviction log, oldest first. */
  evictions(threadId?: string): Promise<EvictionRecord[]>;
  totalBytes(threadId: string): Promise<number>;
  subscribe(listener: (event: StoreEvent) => void): () => void;
  /** Results that could not be stored (S3), oldest first; all threads when no thread is given. */
  failures(threadId?: string): Promise<StoreFailure[]>;

  /** Writes a result's text where no reader sees it yet; may throw QuotaExceededError (S3). */
  stage(result: StagedResult): Promise<void>;
  /**
   * Makes a staged result live, or drops entries. A commit replaces the key's own older entry
   * (reason 'replaced') and evicts the oldest (reason 'bound') until the thread fits maxTotalBytes.
   * A commit whose staged text is missing (already committed, or never staged) changes nothing.
   */
  apply(change: StoreChange): Promise<AppliedChange>;
  /** Undoes everything the turn did: its entries go (reason 'blocked'), what it evicted comes back. */
  restoreTurn(threadId: string, turnId: string): Promise<void>;
  /** Forgets how to undo turns other than `keepTurnId`: their evicted texts are deleted for good. */
  settle(threadId: string, keepTurnId?: string): Promise<void>;
  /** Records a result that could not be stored (the middleware calls it when `stage` threw). */
  reportFailure(failure: StoreFailure): Promise<void>;
  /** Deletes a thread's entries, staged texts, undo data, eviction log and failures. */
  clearThread(threadId: string): Promise<void>;
}
