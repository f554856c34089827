import type { DBSchema } from 'idb';
import { checkOptionNames, checkThreadId } from '../shared/checks.js';
import { IdbConnection } from '../shared/indexeddb-connection.js';
import type { Checkpointer } from './checkpoint.js';

interface CheckpointDb extends DBSchema {
  /** One checkpoint per thread, by threadId (out-of-line keys), stored as a structured clone. */
  checkpoints: { key: string; value: unknown };
}

/** The options of `new IndexedDbCheckpointer(options)`. */
export interface IndexedDbCheckpointerOptions {
  /**
   * The database name.
   * @default 'tool-output-offload-threads'
   */
  name?: string;
  /**
   * How long opening may stay blocked by another tab before it fails, in milliseconds.
   * @default 3000
   */
  blockedTimeoutMs?: number;
}

/**
 * Saves each thread's checkpoint in IndexedDB, one record per thread. The shared connection closes on
 * another tab's `versionchange`, reopens on the next call, and fails a blocked open after the timeout.
 */
export class IndexedDbCheckpointer implements Checkpointer {
  readonly name: string;
  readonly #connection: IdbConnection<CheckpointDb>;

  constructor(options: IndexedDbCheckpointerOptions = {}) {
    checkOptionNames('IndexedDbCheckpointer', options, ['name', 'blockedTimeoutMs']);
    this.name = options.name ?? 'tool-output-offload-threads';
    this.#connection = new IdbConnection<CheckpointDb>({
      name: this.name,
      version: 1,
      upgrade: (database, oldVersion) => {
        if (oldVersion < 1) database.createObjectStore('checkpoints');
      },
      layouts: { 1: ['checkpoints'] },
      blockedTimeoutMs: options.blockedTimeoutMs ?? 3000,
    });
  }

  async load(threadId: string): Promise<unknown> {
    checkThreadId(threadId);
    return this.#connection.run(['checkpoints'], 'readonly', (tx) => tx.objectStore('checkpoints').get(threadId));
  }

  async save(threadId: string, checkpoint: unknown): Promise<void> {
    checkThreadId(threadId);
    // A function or class instance makes put throw DataCloneError; the saved checkpoint stays.
    await this.#connection.run(['checkpoints'], 'readwrite', async (tx) => {
      await tx.objectStore('checkpoints').put(checkpoint, threadId);
    });
  }

  /** Closes the connection; a later call opens it again. */
  close(): Promise<void> {
    return this.#connection.close();
  }

  /** Closes and deletes the whole database. */
  deleteDatabase(): Promise<void> {
    return this.#connection.deleteDatabase();
  }
}
