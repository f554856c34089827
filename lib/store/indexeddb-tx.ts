import type { IDBPTransaction } from 'idb';
import { type OffloadDb, type OffloadStoreName, queueRange, textRange, threadRange } from './indexeddb-schema.js';
import type {
  EntryRecord,
  LoggedEviction,
  SeenRecord,
  StagedRecord,
  StoreTx,
  ThreadRecord,
  UndoRecord,
} from './store-records.js';

/** Characters of text a stage serializes in one main-thread task at most (a chunk is never split). */
const charsPerTask = 262_144;

export type OffloadTransaction = IDBPTransaction<OffloadDb, OffloadStoreName[], 'readwrite'>;

/**
 * `StoreTx` over one IndexedDB transaction. Every method awaits only IndexedDB requests of that
 * transaction, so it stays active for the whole operation (S1). A readonly transaction may be
 * passed for operations that only read.
 */
export class IdbTx implements StoreTx {
  constructor(readonly tx: OffloadTransaction) {}

  thread(threadId: string) {
    return this.tx.objectStore('threads').get(threadId);
  }
  async putThread(record: ThreadRecord) {
    await this.tx.objectStore('threads').put(record);
  }

  entry(threadId: string, key: string) {
    return this.tx.objectStore('entries').get([threadId, key]);
  }
  async oldestEntry(threadId: string) {
    // The first record of the thread's [threadId, seq] range: one index seek, whatever the count.
    const cursor = await this.tx.objectStore('entries').index('bySeq').openCursor(queueRange(threadId));
    return cursor?.value;
  }
  entries(threadId: string) {
    return this.tx.objectStore('entries').index('bySeq').getAll(queueRange(threadId));
  }
  async putEntry(record: EntryRecord) {
    await this.tx.objectStore('entries').put(record);
  }
  deleteEntry(threadId: string, key: string) {
    return this.tx.objectStore('entries').delete([threadId, key]);
  }

  staged(threadId: string, key: string) {
    return this.tx.objectStore('staged').get([threadId, key]);
  }
  stagedOf(threadId: string) {
    return this.tx.objectStore('staged').getAll(threadRange(threadId));
  }
  async putStaged(record: StagedRecord) {
    await this.tx.objectStore('staged').put(record);
  }
  deleteStaged(threadId: string, key: string) {
    return this.tx.objectStore('staged').delete([threadId, key]);
  }

  chunks(textId: string, first: number, last: number) {
    // One get a chunk, all at once: Chromium answers them faster than one getAll of the range.
    const chunks = this.tx.objectStore('chunks');
    return Promise.all(Array.from({ length: last - first + 1 }, (_, i) => chunks.get([textId, first + i])));
  }
  async putText(textId: string, parts: readonly string[]) {
    // Each put serializes its chunk on this thread: a megabyte at once would block it for long, so
    // puts go in batches of at most `charsPerTask`, each waited for (the next batch is a new task).
    const chunks = this.tx.objectStore('chunks');
    let batch: Promise<unknown>[] = [];
    let chars = 0;
    for (const [index, part] of parts.entries()) {
      if (batch.length > 0 && chars + part.length > charsPerTask) {
        await Promise.all(batch);
        batch = [];
        chars = 0;
      }
      const request = chunks.put(part, [textId, index]);
      // A failed put (or a later one throwing) fails the stage; never an unhandled rejection meanwhile.
      request.catch(() => {});
      batch.push(request);
      chars += part.length;
    }
    await Promise.all(batch);
  }
  deleteText(textId: string) {
    return this.tx.objectStore('chunks').delete(textRange(textId));
  }

  addEviction(record: Omit<LoggedEviction, 'id'>) {
    // The store's key generator fills in `id`.
    return this.tx.objectStore('evictions').add(record as LoggedEviction);
  }
  deleteEviction(id: number) {
    return this.tx.objectStore('evictions').delete(id);
  }
  async lastEviction(threadId: string, key: string) {
    const index = this.tx.objectStore('evictions').index('byKey');
    const cursor = await index.openCursor(IDBKeyRange.only([threadId, key]), 'prev');
    return cursor?.value;
  }
  async evictionOf(threadId: string, key: string, seq: number) {
    // A key is evicted a few times at most: its own records, through the [threadId, key] index.
    const index = this.tx.objectStore('evictions').index('byKey');
    for (
      let cursor = await index.openCursor(IDBKeyRange.only([threadId, key]));
      cursor;
      cursor = await cursor.continue()
    ) {
      if (cursor.value.seq === seq) return cursor.value;
    }
    return undefined;
  }
  evictionsOf(threadId: string) {
    return this.tx.objectStore('evictions').index('byThread').getAll(threadId);
  }

  seen(threadId: string, key: string) {
    return this.tx.objectStore('seen').get([threadId, key]);
  }
  async putSeen(record: SeenRecord) {
    await this.tx.objectStore('seen').put(record);
  }
  async deleteSeenThrough(threadId: string, maxSeq: number) {
    if (maxSeq < 1) return;
    // The thread's oldest first, through the [threadId, seq] index: only what goes is visited.
    const range = IDBKeyRange.bound([threadId, -Infinity], [threadId, maxSeq]);
    const index = this.tx.objectStore('seen').index('bySeq');
    for (let cursor = await index.openCursor(range); cursor; cursor = await cursor.continue()) await cursor.delete();
  }

  undo(threadId: string, turnId: string) {
    return this.tx.objectStore('undo').get([threadId, turnId]);
  }
  undoOf(threadId: string) {
    return this.tx.objectStore('undo').getAll(threadRange(threadId));
  }
  async putUndo(record: UndoRecord) {
    await this.tx.objectStore('undo').put(record);
  }
  deleteUndo(threadId: string, turnId: string) {
    return this.tx.objectStore('undo').delete([threadId, turnId]);
  }
}
