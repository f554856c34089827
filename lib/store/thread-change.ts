import type { AppliedChange, EvictionReason, EvictionRecord, StoreEvent } from './offload-store.js';
import {
  type EntryRecord,
  previewFacts,
  type StoreTx,
  type ThreadRecord,
  trimLog,
  type UndoRecord,
} from './store-records.js';
import { rebuiltThread } from './thread-record.js';

/** A change to a thread's entries, told with the thread's total after it (not a ledger record's 'request'). */
type EntryEvent = Extract<StoreEvent, { totalBytes: number }>;

/**
 * The running state of one operation on one thread. Writes are issued without waiting for each
 * (a store runs them in order, and later reads see them); `finish` waits for them all.
 */
export class ThreadChange {
  readonly events: EntryEvent[] = [];
  readonly evicted: EvictionRecord[] = [];
  readonly stored: string[] = [];
  readonly #writes: Promise<unknown>[] = [];

  constructor(
    readonly tx: StoreTx,
    readonly thread: ThreadRecord,
    readonly undo: UndoRecord | undefined,
    readonly now: number,
  ) {}

  static async open(tx: StoreTx, threadId: string, turnId: string | undefined, now: number) {
    const [thread, undo] = await Promise.all([
      tx.thread(threadId),
      turnId === undefined ? undefined : tx.undo(threadId, turnId),
    ]);
    return new ThreadChange(
      tx,
      thread ?? (await rebuiltThread(tx, threadId)),
      turnId === undefined ? undefined : (undo ?? { threadId, turnId, steps: [] }),
      now,
    );
  }

  write(request: Promise<unknown>): void {
    // A failed write fails `finish` (or the transaction, first); never an unhandled rejection meanwhile.
    request.catch(() => {});
    this.#writes.push(request);
  }

  /** Takes a live entry out. Its text stays for undo, unless `deleteText` or the change cannot be undone. */
  evict(entry: EntryRecord, reason: EvictionReason, turnId: string, deleteText = false): void {
    this.write(this.tx.deleteEntry(entry.threadId, entry.key));
    this.thread.totalBytes -= entry.bytes;
    this.thread.entries -= 1;
    const { threadId, key, path, bytes, toolName } = entry;
    const logged = { threadId, key, path, bytes, at: this.now, toolName, ...previewFacts(entry) };
    this.write(this.tx.addEviction({ ...logged, reason, turnId, seq: entry.seq }));
    this.evicted.push({ ...logged, reason });
    if (deleteText || !this.undo) this.write(this.tx.deleteText(entry.textId));
    else this.undo.steps.push({ kind: 'evicted', entry });
    this.events.push({ type: 'evicted', threadId: entry.threadId, key: entry.key, totalBytes: 0 });
  }

  add(entry: EntryRecord, event: 'stored' | 'restored'): void {
    this.write(this.tx.putEntry(entry));
    this.thread.totalBytes += entry.bytes;
    this.thread.entries += 1;
    this.events.push({ type: event, threadId: entry.threadId, key: entry.key, totalBytes: 0 });
  }

  /**
   * No readable entry is left to evict: whatever the total still counts was unreadable (skipped
   * and reported), so the thread holds nothing.
   */
  nothingLeft(): void {
    this.thread.totalBytes = 0;
    this.thread.entries = 0;
  }

  /** Saves the thread and the undo log, waits for every write, and stamps every event with the final total (and the bound). */
  async finish(): Promise<AppliedChange> {
    this.write(this.tx.putThread(this.thread));
    // Each logged eviction is of a distinct seq below nextSeq (restoring one deletes its record), so
    // a thread with fewer results than the retention cannot be over it: no count to make.
    if (this.evicted.length > 0)
      this.write(trimLog(this.tx, 'evictions', this.thread.threadId, this.thread.nextSeq - 1));
    if (this.undo && this.undo.steps.length > 0) this.write(this.tx.putUndo({ ...this.undo, at: this.now }));
    await Promise.all(this.#writes);
    const { totalBytes, maxTotalBytes: bound } = this.thread;
    for (const event of this.events) {
      event.totalBytes = totalBytes;
      if (bound !== undefined) event.bound = bound;
    }
    return this.summary();
  }

  summary(): AppliedChange {
    return {
      stored: this.stored,
      evicted: this.evicted,
      totalBytes: this.thread.totalBytes,
      entries: this.thread.entries,
    };
  }
}
