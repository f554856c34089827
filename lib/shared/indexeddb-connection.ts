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

/** The schema's upgrade from `oldVersion` (0: a new database); a promise it returns fails the upgrade if it rejects. */
type Upgrade<Schema extends DBSchema> = (
  database: IDBPDatabase<Schema>,
  oldVersion: number,
  newVersion: number | null,
  tx: IDBPTransaction<Schema, StoreNames<Schema>[], 'versionchange'>,
) => void | Promise<void>;

interface ConnectionOptions<Schema extends DBSchema> {
  name: string;
  version: number;
  /** Makes the schema's object stores; it may go on with requests of the versionchange transaction it is given. */
  upgrade: Upgrade<Schema>;
  /**
   * The object store names a database of this schema holds at each version it has had (1 to
   * `version`): a database under this name holding anything else is another's, and is refused.
   */
  layouts: Readonly<Record<number, readonly string[]>>;
  /** How long an open or delete may stay blocked by another connection before it fails. */
  blockedTimeoutMs: number;
}

/**
 * One lazily opened connection to an IndexedDB database, shared by the stores built on it (S4).
 * Another tab's upgrade ('versionchange') closes it, as does the browser ('terminated'); the next
 * call opens it again. An open or delete that another connection keeps blocked fails after
 * `blockedTimeoutMs` with an error that says so, instead of hanging. Uses only `indexedDB`, so it
 * works in workers and service workers (S5).
 *
 * Any script of the origin may have opened a database under the same name (S6). Before upgrading
 * one, the connection looks at it as it is: one holding no object store at all (a bare
 * `indexedDB.open(name)`) is adopted, the schema's stores made in it; one holding other stores than
 * the schema's at its version is refused at once, untouched, with an error naming what it holds;
 * one of a higher version (a newer copy of the app) is refused too.
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
  /** A request that stayed blocked past the timeout and is still pending (see #unblocked). */
  #stuck: Stuck | undefined;

  constructor(readonly options: ConnectionOptions<Schema>) {
    const { name, blockedTimeoutMs } = options;
    if (typeof name !== 'string' || name === '') {
      throw new TypeError(`IndexedDB database name must be a non-empty string, got ${quoteForMessage(name)}`);
    }
    if (!options.layouts[options.version]) {
      throw new RangeError(`IdbConnection: no object store layout for version ${options.version}`);
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
    const { name, version } = this.options;
    const callbacks = (blocked: () => void) => ({
      blocked,
      // Another tab wants to upgrade or delete the database: let it, and reopen on the next call.
      blocking: (_current: number, _next: number | null, event: IDBVersionChangeEvent) => {
        (event.target as IDBDatabase).close();
        forget();
      },
      terminated: forget,
    });
    const describe = `Could not open IndexedDB database ${quoteForMessage(name)}`;
    // First as it is, at its own version: never blocked by another connection, so a database this
    // code must refuse is refused at once, even while the script that made it holds it open.
    const found = await this.#unblocked((blocked) => this.#look(callbacks(blocked)), close, describe);
    if (found) {
      const stores = [...found.objectStoreNames];
      const layout = this.options.layouts[found.version];
      if (found.version === version && layout && sameNames(stores, layout)) return found;
      found.close();
      if (stores.length > 0) {
        if (found.version > version) throw newerError(describe, found.version, version);
        if (!layout || !sameNames(stores, layout)) throw foreignError(describe, found.version, stores);
      } else if (found.version >= version) {
        // Empty, but no upgrade can reach it without claiming a version this code does not know:
        // it holds nothing, so it is made again.
        await this.#unblocked(
          (blocked) => deleteDB(name, { blocked }),
          () => {},
          describe,
        );
      }
    }
    let refused: Error | undefined;
    const upgrade = (
      database: IDBPDatabase<Schema>,
      oldVersion: number,
      newVersion: number | null,
      tx: IDBPTransaction<Schema, StoreNames<Schema>[], 'versionchange'>,
    ) => {
      tx.done.catch(() => {}); // an abort fails the open, which says why
      const stores = [...database.objectStoreNames];
      // Checked again: another tab may have changed it since it was looked at.
      const from = stores.length === 0 ? 0 : oldVersion;
      const layout = this.options.layouts[from];
      if (from > 0 && (!layout || !sameNames(stores, layout))) {
        refused = foreignError(describe, oldVersion, stores);
        tx.abort();
        return;
      }
      // The upgrade fails as a whole (the database stays as it was) and the open says why.
      const fail = (error: unknown) => {
        refused ??= new Error(
          `${describe}: its upgrade from version ${from} to ${version} failed, so nothing was changed: ${errorText(error)}`,
        );
        abortQuietly(tx);
      };
      try {
        Promise.resolve(this.options.upgrade(database, from, newVersion, tx)).catch(fail);
      } catch (error) {
        fail(error);
      }
    };
    try {
      return await this.#unblocked(
        (blocked) => openDB<Schema>(name, version, { ...callbacks(blocked), upgrade }),
        close,
        describe,
      );
    } catch (error) {
      if (refused) throw refused;
      if ((error as DOMException)?.name !== 'VersionError') throw error;
      // Another tab upgraded it since it was looked at: its records may be in a shape this code
      // does not know, so it is neither read nor written (no silent downgrade).
      const newer = await this.#unblocked((blocked) => this.#look(callbacks(blocked)), close, describe);
      newer?.close();
      throw newerError(describe, newer?.version ?? version + 1, version);
    }
  }

  /** The database at its own version, or undefined when there is none (and none is made). */
  async #look(callbacks: Omit<OpenDBCallbacks<Schema>, 'upgrade'>): Promise<IDBPDatabase<Schema> | undefined> {
    try {
      return await openDB<Schema>(this.options.name, undefined, {
        ...callbacks,
        // Only a database that does not exist is upgraded here (from version 0): it is not made.
        upgrade: (_database, _old, _new, tx) => {
          tx.done.catch(() => {});
          tx.abort();
        },
      });
    } catch (error) {
      if ((error as DOMException)?.name === 'AbortError') return undefined;
      throw error;
    }
  }

  /**
   * Runs an open or delete; fails it if it stays blocked longer than the timeout. The request
   * itself cannot be cancelled, and IndexedDB runs a database's requests in order: until it is
   * let through, every later one would wait behind it. So the next waits for it up to the timeout
   * too, and once that wait ran out, the rest fail at once with the same error until it is let
   * through (when the other connection closes).
   */
  async #unblocked<T>(
    start: (blocked: () => void) => Promise<T>,
    discard: (late: T) => void,
    describe: string,
  ): Promise<T> {
    await this.#behindStuck();
    const { blockedTimeoutMs, name } = this.options;
    return new Promise<T>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      let stuck: Stuck | undefined;
      let letThrough: () => void = () => {};
      const blocked = () => {
        timer ??= setTimeout(() => {
          const error = new Error(
            `${describe}: it stayed blocked for ${blockedTimeoutMs} ms because another tab or worker holds an ` +
              `older version of ${quoteForMessage(name)} open. Close the other tabs of this app (or reload them) and try again.`,
          );
          stuck = { error, settled: new Promise<void>((resolve) => (letThrough = resolve)) };
          this.#stuck = stuck;
          reject(error);
        }, blockedTimeoutMs);
      };
      const settled = () => {
        clearTimeout(timer);
        if (!stuck) return false;
        if (this.#stuck === stuck) this.#stuck = undefined;
        letThrough();
        return true;
      };
      start(blocked).then(
        (value) => {
          if (settled()) discard(value);
          else resolve(value);
        },
        (error) => {
          if (!settled()) reject(error);
        },
      );
    });
  }

  /** Waits (up to the timeout, once) for a request that timed out blocked and is still pending. */
  #behindStuck(): Promise<void> {
    const stuck = this.#stuck;
    if (!stuck) return Promise.resolve();
    stuck.waiting ??= new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(stuck.error), this.options.blockedTimeoutMs);
      stuck.settled.then(() => {
        clearTimeout(timer);
        resolve();
      });
    });
    return stuck.waiting;
  }
}

/** An open or delete that stayed blocked past the timeout, still pending. */
interface Stuck {
  error: Error;
  /** Resolves once it is let through (or fails). */
  settled: Promise<void>;
  /** The one wait for it the next requests share; rejected once it ran out. */
  waiting?: Promise<void>;
}

function close(database: { close(): void } | undefined): void {
  database?.close();
}

/** Whether two lists of object store names hold the same names. */
function sameNames(found: readonly string[], expected: readonly string[]): boolean {
  return found.length === expected.length && expected.every((name) => found.includes(name));
}

function abortQuietly(tx: { abort(): void }): void {
  try {
    tx.abort();
  } catch {
    // Already aborted or finished.
  }
}

function errorText(error: unknown): string {
  return cutName(error instanceof Error ? `${error.name}: ${error.message}` : String(error), 200);
}

function cutName(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** How many of a refused database's object stores its error names, and how much of each: they are another's, any length. */
const namedStores = 5;
const storeNameChars = 40;

function newerError(describe: string, found: number, known: number): Error {
  return new Error(
    `${describe}: it was written by a newer version of this app (schema version ${found}; this code ` +
      `knows up to ${known}). Reload this tab to run the newer version; nothing stored is changed meanwhile.`,
  );
}

function foreignError(describe: string, version: number, stores: readonly string[]): Error {
  const named = stores.slice(0, namedStores).map((store) => JSON.stringify(cutName(store, storeNameChars)));
  const more = stores.length > namedStores ? ` and ${stores.length - namedStores} more` : '';
  return new Error(
    `${describe}: it is not this store's database (at version ${version} it holds the object stores ` +
      `${named.join(', ')}${more}). Nothing in it was read or changed: give the store another name, or delete ` +
      `that database if nothing needs it.`,
  );
}
