import type { IDBPTransaction } from 'idb';
import { type OffloadDb, type OffloadStoreName, queueRange, threadRange } from './indexeddb-schema.js';
import type { EntryRecord, LoggedEviction, StagedRecord, StoreTx, ThreadRecord, UndoRecord } from './store-records.js';

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

  text(textId: string) {
    return this.tx.objectStore('texts').get(textId);
  }
  async putText(textId: string, text: string) {
    await this.tx.objectStore('texts').put(text, textId);
  }
  deleteText(textId: string) {
    return this.tx.objectStore('texts').delete(textId);
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
  evictionsOf(threadId: string) {
    return this.tx.objectStore('evictions').index('byThread').getAll(threadId);
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
