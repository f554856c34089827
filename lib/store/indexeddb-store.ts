import { checkOptionNames, quoteForMessage } from '../shared/checks.js';
import { IdbEngine, persistStorage } from './indexeddb-engine.js';
import { checkLogRetention, checkRequestRetention } from './store-records.js';
import { OffloadStoreShell } from './store-shell.js';
import { checkChunkChars, defaultChunkChars } from './text-chunks.js';

/** The options of `new IndexedDbOffloadStore(options)`. */
export interface IndexedDbOffloadStoreOptions {
  /**
   * The database name.
   * @default 'tool-output-offload'
   */
  name?: string;
  /**
   * How long opening may stay blocked by another tab before it fails, in milliseconds.
   * @default 3000
   */
  blockedTimeoutMs?: number;
  /**
   * Code units in each chunk a text is stored in (a page reads only its chunks).
   * @default 262_144
   */
  chunkChars?: number;
  /**
   * Ask the browser, once, at the first stored result, to keep this origin's storage under
   * pressure (`navigator.storage.persist()`), so stored results are not cleared behind the agent's
   * back. Off unless asked: the browser may show the user a prompt.
   * @default false
   */
  persist?: boolean;
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

const optionNames = [
  'name',
  'blockedTimeoutMs',
  'chunkChars',
  'persist',
  'logRetention',
  'requestRetention',
] satisfies (keyof IndexedDbOffloadStoreOptions)[];

/**
 * The OffloadStore in IndexedDB (S1–S5): crash-safe, a full quota never loses stored data, another
 * tab's upgrade closes this connection, and it runs without a DOM (workers, service workers).
 * Each operation is one transaction; a commit's eviction walks the thread's [threadId, seq] index
 * from its start, so its cost does not grow with the number of entries. Other instances on the same
 * database hear of each change through a BroadcastChannel named `<name>:changes`, and their
 * subscribers get the same events.
 */
export class IndexedDbOffloadStore extends OffloadStoreShell {
  readonly name: string;
  readonly #engine: IdbEngine;

  /** Checks its options: a value out of range is a RangeError naming it; an unknown option name or a wrong kind a TypeError. */
  constructor(options: IndexedDbOffloadStoreOptions = {}) {
    checkOptionNames('IndexedDbOffloadStore', options, optionNames);
    const name = options.name ?? 'tool-output-offload';
    const chunkChars = checkChunkChars(options.chunkChars ?? defaultChunkChars);
    if (options.persist !== undefined && typeof options.persist !== 'boolean') {
      throw new TypeError(`IndexedDbOffloadStore: persist must be a boolean, got ${quoteForMessage(options.persist)}`);
    }
    const logRetention = checkLogRetention('IndexedDbOffloadStore', options.logRetention);
    const requestRetention = checkRequestRetention('IndexedDbOffloadStore', options.requestRetention);
    const engine = new IdbEngine({
      name,
      blockedTimeoutMs: options.blockedTimeoutMs ?? 3000,
      persist: options.persist === true,
      logRetention,
    });
    super(engine, { chunkChars, logRetention, requestRetention });
    this.name = name;
    this.#engine = engine;
  }

  /** Asks the browser to keep this origin's storage under pressure; false where it cannot be asked. */
  persist(): Promise<boolean> {
    return persistStorage();
  }

  /** Whether the browser already keeps this origin's storage under pressure (never asks, unlike persist()). */
  async persisted(): Promise<boolean> {
    const storage = globalThis.navigator?.storage;
    return typeof storage?.persisted === 'function' ? storage.persisted() : false;
  }

  /** The origin's usage and quota, where the browser tells. */
  async estimate(): Promise<StorageEstimate | undefined> {
    const storage = globalThis.navigator?.storage;
    return typeof storage?.estimate === 'function' ? storage.estimate() : undefined;
  }

  /**
   * Closes the connection and the change channel, so the database can be deleted or upgraded
   * without waiting; a later call opens them again.
   */
  override close(): Promise<void> {
    return super.close();
  }

  /** Closes and deletes the whole database (every thread). */
  async deleteDatabase(): Promise<void> {
    await super.close();
    this.forgetUnsavedFailures();
    await this.#engine.deleteDatabase();
  }
}
