import { checkOptionNames } from '../shared/checks.js';
import { MapJournal } from './memory-journal.js';
import { MemoryTables, MemoryTx } from './memory-tables.js';
import type { UnreadableRecord } from './offload-store.js';
import type { StoreEngine } from './store-engine.js';
import { checkLogRetention, checkRequestRetention, type StoreTx } from './store-records.js';
import { OffloadStoreShell } from './store-shell.js';
import { checkChunkChars, defaultChunkChars } from './text-chunks.js';

/** The options of `new MemoryOffloadStore(options)`. */
export interface MemoryOffloadStoreOptions {
  /**
   * Code units in each chunk a text is kept in (the same rule as IndexedDbOffloadStore).
   * @default 262_144
   */
  chunkChars?: number;
  /**
   * Eviction and failure records kept per thread, the newest.
   * @default 1000
   */
  logRetention?: number;
  /**
   * Context ledger records (`requests`) kept per thread, the newest.
   * @default 10_000
   */
  requestRetention?: number;
}

const optionNames = ['chunkChars', 'logRetention', 'requestRetention'] satisfies (keyof MemoryOffloadStoreOptions)[];

/**
 * The memory engine: operations run one at a time over the tables, and one that throws is rolled
 * back through its journal, so each is atomic like a transaction. Only this process hears of changes.
 */
class MemoryEngine implements StoreEngine {
  #queue: Promise<unknown> = Promise.resolve();

  constructor(readonly tables: MemoryTables) {}

  transaction<T>(_kinds: unknown, _mode: unknown, operation: (tx: StoreTx) => Promise<T>): Promise<T> {
    const run = this.#queue.then(async () => {
      const journal = new MapJournal();
      try {
        return await operation(new MemoryTx(this.tables, journal));
      } catch (error) {
        journal.rollback();
        this.tables.afterRollback();
        throw error;
      }
    });
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /** Never any: these records are written only by this store, from results `stage` checked. */
  async unreadable(): Promise<UnreadableRecord[]> {
    return [];
  }

  /** Nothing to release: the records stay, for later calls. */
  async close(): Promise<void> {}
}

/**
 * An `OffloadStore` in memory: the same shell and rules as the IndexedDB store
 * (store-shell.ts), for Node, tests, and wherever `indexedDB` is missing.
 */
export class MemoryOffloadStore extends OffloadStoreShell {
  /** Checks its options: a value out of range is a RangeError naming it; an unknown option name a TypeError. */
  constructor(options: MemoryOffloadStoreOptions = {}) {
    checkOptionNames('MemoryOffloadStore', options, optionNames);
    const chunkChars = checkChunkChars(options.chunkChars ?? defaultChunkChars);
    const logRetention = checkLogRetention('MemoryOffloadStore', options.logRetention);
    const requestRetention = checkRequestRetention('MemoryOffloadStore', options.requestRetention);
    super(new MemoryEngine(new MemoryTables(logRetention)), { chunkChars, logRetention, requestRetention });
  }
}
