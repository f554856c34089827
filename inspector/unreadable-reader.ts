import { toRows, toUnreadableRow, type UnreadableRow } from './records.js';
import type { PanelSource, SourceChange } from './source.js';

/** Unreadable records are read at most this often: IndexedDbOffloadStore finds them by checking every record. */
export const UNREADABLE_BATCH_MS = 2000;

/** Changed threads read one by one at most; more in one batch read every record again. */
export const MAX_THREAD_READS = 16;

/** The key of records that name no thread: only a read of every thread finds them. */
const NO_THREAD = '\u0000no thread';

const noRecords: readonly UnreadableRow[] = [];

/**
 * The records a source skipped as malformed, read whole once, then kept current thread by thread:
 * a change can only alter the records of its own thread (a clear deletes them, a write replaces
 * them), so after changes only the threads they name are read again, at most once every
 * `batchMs`. A notice that names nothing reads every record again. A failed read keeps what was
 * known (a store exposed by an older version never answers: none shown).
 */
export class UnreadableReader {
  readonly #byThread = new Map<string, UnreadableRow[]>();
  #dirty: Set<string> | 'all' = 'all';
  #reading = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopped = false;
  #unsubscribe: (() => void) | undefined;

  constructor(
    private readonly source: PanelSource,
    private readonly publish: (rows: readonly UnreadableRow[]) => void,
    private readonly batchMs = UNREADABLE_BATCH_MS,
  ) {}

  start(): void {
    this.#unsubscribe = this.source.onChange((changes) => this.#changed(changes));
    void this.#read();
  }

  stop(): void {
    this.#stopped = true;
    this.#unsubscribe?.();
    clearTimeout(this.#timer);
  }

  #changed(changes: readonly SourceChange[] | undefined): void {
    if (this.#dirty !== 'all') {
      for (const { threadId } of changes ?? []) this.#dirty.add(threadId);
      if (!changes || this.#dirty.size > MAX_THREAD_READS) this.#dirty = 'all';
    }
    this.#schedule();
  }

  #schedule(): void {
    if (this.#stopped || this.#reading) return;
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      void this.#read();
    }, this.batchMs);
  }

  async #read(): Promise<void> {
    const dirty = this.#dirty;
    this.#dirty = new Set();
    this.#reading = true;
    if (dirty === 'all') await this.#readAll();
    else await Promise.all([...dirty].map((threadId) => this.#readThread(threadId)));
    this.#reading = false;
    if (this.#stopped) return;
    const rows = [...this.#byThread.values()].flat();
    this.publish(rows.length === 0 ? noRecords : rows);
    // Changes that came during the read (the field was reassigned meanwhile).
    const next = this.#dirty as Set<string> | 'all';
    if (next === 'all' || next.size > 0) this.#schedule();
  }

  async #readAll(): Promise<void> {
    try {
      const { rows } = toRows(await this.source.unreadable(), toUnreadableRow);
      this.#byThread.clear();
      for (const row of rows) {
        const key = row.threadId ?? NO_THREAD;
        const group = this.#byThread.get(key);
        if (group) group.push(row);
        else this.#byThread.set(key, [row]);
      }
    } catch {
      // Kept as it was: the records the store could not read are a side note to the lists.
    }
  }

  async #readThread(threadId: string): Promise<void> {
    try {
      const { rows } = toRows(await this.source.unreadable(threadId), toUnreadableRow);
      // A store exposed by an older version answers with every thread's: keep the one asked for.
      const own = rows.filter((row) => row.threadId === threadId);
      if (own.length === 0) this.#byThread.delete(threadId);
      else this.#byThread.set(threadId, own);
    } catch {
      // Kept as it was, as above.
    }
  }
}
