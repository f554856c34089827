import {
  type DBSchema,
  deleteDB,
  type IDBPDatabase,
  type IDBPTransaction,
  type OpenDBCallbacks,
  openDB,
  type StoreNames,
} from 'idb';
import { quoteForMessage } from './checks.js';
import { isQuotaError } from './errors.js';

interface ConnectionOptions<Schema extends DBSchema> {
  name: string;
  version: number;
  /** idb's upgrade callback: it may go on with requests of the versionchange transaction it is given. */
  upgrade: NonNullable<OpenDBCallbacks<Schema>['upgrade']>;
  /** How long an open or delete may stay blocked by another connection before it fails. */
  blockedTimeoutMs: number;
}

/**
 * One lazily opened connection to an IndexedDB database, shared by the stores built on it (S4).
 * Another tab's upgrade ('versionchange') closes it, as does the browser ('terminated'); the next
 * call opens it again. An open or delete that another connection keeps blocked fails after
 * `blockedTimeoutMs` with an error that says so, instead of hanging. Uses only `indexedDB`, so it
 * works in workers and service workers (S5).
 */
export class IdbConnection<Schema extends DBSchema> {
  #opening: Promise<IDBPDatabase<Schema>> | undefined;
  /**
   * Set when a readwrite transaction failed for the quota. Firefox then turns the connection's next
   * readwrite transaction into a "cleanup" one, in which put and add throw InvalidStateError ("A
   * mutation operation was attempted on a database that did not allow mutations"; only deletions
   * pass, and the database is compacted when it commits): Gecko's IDBDatabase::Transaction,
   * dom/indexedDB/IDBDatabase.cpp. An empty transaction takes that turn, so the eviction that makes
   * room, or the next result, can write.
   */
  #afterQuotaError = false;

  constructor(readonly options: ConnectionOptions<Schema>) {
    const { name, blockedTimeoutMs } = options;
    if (typeof name !== 'string' || name === '') {
      throw new TypeError(`IndexedDB database name must be a non-empty string, got ${quoteForMessage(name)}`);
    }
    if (!Number.isFinite(blockedTimeoutMs) || blockedTimeoutMs < 0) {
      throw new RangeError(
        `blockedTimeoutMs must be a finite number of milliseconds >= 0, got ${quoteForMessage(blockedTimeoutMs)}`,
      );
    }
  }

  get name(): string {
    return this.options.name;
  }

  /** The open database, opening it if needed. */
  database(): Promise<IDBPDatabase<Schema>> {
    if (!this.#opening) {
      const forget = () => {
        if (this.#opening === opening) this.#opening = undefined;
      };
      const opening = this.#open(forget);
      this.#opening = opening;
      opening.catch(forget);
    }
    return this.#opening;
  }

  /** A transaction; reopens once if the connection was closed under us (another tab's upgrade). */
  async transaction<Names extends StoreNames<Schema>[], Mode extends IDBTransactionMode>(stores: Names, mode: Mode) {
    for (let attempt = 0; ; attempt++) {
      const opening = this.database();
      const database = await opening;
      try {
        if (mode === 'readwrite' && this.#afterQuotaError) {
          this.#afterQuotaError = false;
          database.transaction(stores, 'readwrite'); // empty: commits at once
        }
        return database.transaction(stores, mode, { durability: 'strict' });
      } catch (error) {
        if (attempt > 0 || (error as DOMException)?.name !== 'InvalidStateError') throw error;
        if (this.#opening === opening) this.#opening = undefined;
      }
    }
  }

  /**
   * Runs `operation` in one transaction and waits for it to commit. If anything fails, the
   * transaction is aborted and nothing it wrote stays. `operation` must await nothing but requests
   * of this transaction (S1), or the transaction commits early.
   */
  async run<Names extends StoreNames<Schema>[], Mode extends IDBTransactionMode, T>(
    stores: Names,
    mode: Mode,
    operation: (tx: IDBPTransaction<Schema, Names, Mode>) => Promise<T>,
  ): Promise<T> {
    const tx = await this.transaction(stores, mode);
    const done = tx.done;
    done.catch(() => {});
    try {
      const value = await operation(tx);
      await done;
      return value;
    } catch (error) {
      try {
        tx.abort();
      } catch {
        // Already aborted (a failed request aborts it) or finished.
      }
      if (mode === 'readwrite' && isQuotaError(error)) {
        await done.catch(() => {}); // the abort has been seen by the browser too
        this.#afterQuotaError = true;
      }
      throw error;
    }
  }

  /** Closes the connection; a later call opens it again. */
  async close(): Promise<void> {
    const opening = this.#opening;
    this.#opening = undefined;
    (await opening?.catch(() => undefined))?.close();
  }

  /** Closes the connection and deletes the database. */
  async deleteDatabase(): Promise<void> {
    await this.close();
    const name = this.options.name;
    await this.#unblocked(
      (blocked) => deleteDB(name, { blocked }),
      () => {},
      `Could not delete IndexedDB database "${name}"`,
    );
  }

  /** Opens the database; `forget` is called once this connection is closed by another tab or the browser. */
  async #open(forget: () => void): Promise<IDBPDatabase<Schema>> {
    const { name, version, upgrade } = this.options;
    const callbacks = (blocked: () => void) => ({
      blocked,
      upgrade,
      // Another tab wants to upgrade or delete the database: let it, and reopen on the next call.
      blocking: (_current: number, _next: number | null, event: IDBVersionChangeEvent) => {
        (event.target as IDBDatabase).close();
        forget();
      },
      terminated: forget,
    });
    const describe = `Could not open IndexedDB database "${name}"`;
    try {
      return await this.#unblocked((blocked) => openDB<Schema>(name, version, callbacks(blocked)), close, describe);
    } catch (error) {
      if ((error as DOMException)?.name !== 'VersionError') throw error;
      // Another tab upgraded it: its records may be in a shape this code does not know, so it is
      // neither read nor written (no silent downgrade). Opened without a version only to name it.
      const newer = await this.#unblocked((blocked) => openDB(name, undefined, { blocked }), close, describe);
      newer.close();
      throw new Error(
        `${describe}: it was written by a newer version of this app (schema version ${newer.version}; this code ` +
          `knows up to ${version}). Reload this tab to run the newer version; nothing stored is changed meanwhile.`,
      );
    }
  }

  /** Runs an open or delete; fails it if it stays blocked longer than the timeout. */
  #unblocked<T>(start: (blocked: () => void) => Promise<T>, discard: (late: T) => void, describe: string): Promise<T> {
    const { blockedTimeoutMs, name } = this.options;
    return new Promise<T>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      let timedOut = false;
      const blocked = () => {
        timer ??= setTimeout(() => {
          timedOut = true;
          reject(
            new Error(
              `${describe}: it stayed blocked for ${blockedTimeoutMs} ms because another tab or worker holds an ` +
                `older version of "${name}" open. Close the other tabs of this app (or reload them) and try again.`,
            ),
          );
        }, blockedTimeoutMs);
      };
      start(blocked).then(
        (value) => {
          clearTimeout(timer);
          if (timedOut) discard(value);
          else resolve(value);
        },
        (error) => {
          clearTimeout(timer);
          reject(error);
        },
      );
    });
  }
}

function close(database: { close(): void }): void {
  database.close();
}
