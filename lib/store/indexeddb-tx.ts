import { type OffloadTransaction, queueRange, textRange, threadRange } from './indexeddb-schema.js';
import type { RequestRecord, StoreFailure } from './offload-store.js';
import {
  byStepAndRank,
  chunkProblem,
  entryProblem,
  requestFields,
  requestProblem,
  UnreadableLog,
} from './record-checks.js';
import { failureFields } from './store-failures.js';
import {
  type ClearedRecord,
  defaultLogRetention,
  type EntryRecord,
  type LoggedEviction,
  type LogName,
  type SeenRecord,
  type StagedRecord,
  type StoreTx,
  type ThreadRecord,
  type UndoRecord,
} from './store-records.js';
import { checkedStores, clearUnreadable, type RecordStoreName } from './unreadable-scan.js';

/** Characters of text a stage serializes in one main-thread task at most (a chunk is never split). */
const charsPerTask = 262_144;

/**
 * `StoreTx` over one IndexedDB transaction. Every method awaits only IndexedDB requests of that
 * transaction, so it stays active for the whole operation (S1). A readonly transaction may be
 * passed for operations that only read. Every record read is checked (record-checks.ts): a
 * malformed one is skipped as if absent, reported to `unreadable`, and its damage noted for reads.
 */
export class IdbTx implements StoreTx {
  /** Why a key's entry or text was unreadable, met in this transaction: `${threadId} ${key}` → reason. */
  readonly #damage = new Map<string, string>();

  constructor(
    readonly tx: OffloadTransaction,
    readonly unreadable = new UnreadableLog(),
    readonly logRetention = defaultLogRetention,
  ) {}

  /** The record when it is well-formed (checkedStores), else undefined: skipped, and reported unless absent. */
  #checked<T>(name: RecordStoreName, record: unknown): T | undefined {
    const { problem, keyOf } = checkedStores[name];
    return this.unreadable.check<T>(name, keyOf(record as Record<string, unknown> | undefined), record, problem);
  }
  #entry(record: unknown): EntryRecord | undefined {
    const checked = this.#checked<EntryRecord>('entries', record);
    if (!checked && record !== undefined) {
      const { threadId, key } = record as { threadId: unknown; key: unknown };
      this.#damage.set(`${threadId} ${key}`, `its record is malformed: ${entryProblem(record)}`);
    }
    return checked;
  }

  damage(threadId: string, key: string): string | undefined {
    return this.#damage.get(`${threadId} ${key}`);
  }

  async thread(threadId: string) {
    return this.#checked<ThreadRecord>('threads', await this.tx.objectStore('threads').get(threadId));
  }
  /** The thread's record as stored, even malformed: a write that rebuilds it must know it was there. */
  async threadExists(threadId: string) {
    return (await this.tx.objectStore('threads').count(threadId)) > 0;
  }
  async putThread(record: ThreadRecord) {
    await this.tx.objectStore('threads').put(record);
  }

  async entry(threadId: string, key: string) {
    return this.#entry(await this.tx.objectStore('entries').get([threadId, key]));
  }
  async oldestEntry(threadId: string) {
    // The first record of the thread's [threadId, seq] range: one index seek, whatever the count
    // (a malformed record there is stepped over).
    const index = this.tx.objectStore('entries').index('bySeq');
    for (let cursor = await index.openCursor(queueRange(threadId)); cursor; cursor = await cursor.continue()) {
      const entry = this.#entry(cursor.value);
      if (entry) return entry;
    }
    return undefined;
  }
  async entries(threadId: string) {
    const all = await this.tx.objectStore('entries').index('bySeq').getAll(queueRange(threadId));
    return all.flatMap((record) => this.#entry(record) ?? []);
  }
  async highestSeq(threadId: string) {
    // A key cursor reads the index alone: an entry too damaged to read still has its key there.
    const index = this.tx.objectStore('entries').index('bySeq');
    const seq = ((await index.openKeyCursor(queueRange(threadId), 'prev'))?.key as [string, unknown] | undefined)?.[1];
    return typeof seq === 'number' && Number.isFinite(seq) ? seq : 0;
  }
  async allEntries() {
    const all = await this.tx.objectStore('entries').getAll();
    return all.flatMap((record) => this.#entry(record) ?? []);
  }
  /** Every record of the thread's entries, well-formed or not (also those the seq index misses). */
  async entryRecords(threadId: string) {
    return this.tx.objectStore('entries').getAll(threadRange(threadId)) as Promise<unknown[]>;
  }
  async putEntry(record: EntryRecord) {
    await this.tx.objectStore('entries').put(record);
  }
  deleteEntry(threadId: string, key: string) {
    return this.tx.objectStore('entries').delete([threadId, key]);
  }

  async staged(threadId: string, key: string) {
    return this.#checked<StagedRecord>('staged', await this.tx.objectStore('staged').get([threadId, key]));
  }
  async stagedOf(threadId: string) {
    const all = await this.tx.objectStore('staged').getAll(threadRange(threadId));
    return all.flatMap((record) => this.#checked<StagedRecord>('staged', record) ?? []);
  }
  async putStaged(record: StagedRecord) {
    await this.tx.objectStore('staged').put(record);
  }
  deleteStaged(threadId: string, key: string) {
    return this.tx.objectStore('staged').delete([threadId, key]);
  }

  async chunks(textId: string, first: number, last: number, owner?: { threadId: string; key: string }) {
    // One get a chunk, all at once: Chromium answers them faster than one getAll of the range.
    const chunks = this.tx.objectStore('chunks');
    const got = await Promise.all(Array.from({ length: last - first + 1 }, (_, i) => chunks.get([textId, first + i])));
    return got.map((chunk: unknown, i) => {
      const problem = chunk === undefined ? undefined : chunkProblem(chunk);
      if (problem === undefined) return chunk as string | undefined;
      const reason = `chunk ${first + i} of its text is ${problem}`;
      this.unreadable.report(
        'chunks',
        [textId, first + i],
        owner ? `${reason} (${owner.key})` : reason,
        owner?.threadId,
      );
      if (owner) this.#damage.set(`${owner.threadId} ${owner.key}`, reason);
      return undefined;
    });
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
  async evictionsOf(threadId?: string) {
    const evictions = this.tx.objectStore('evictions');
    const all = await (threadId === undefined ? evictions.getAll() : evictions.index('byThread').getAll(threadId));
    return all.flatMap((record) => this.#checked<LoggedEviction>('evictions', record) ?? []);
  }
  async evictionsOfKey(threadId: string, key: string) {
    // Index order is the primary key's within one [threadId, key]: ids only grow, so oldest first.
    const own = await this.tx
      .objectStore('evictions')
      .index('byKey')
      .getAll(IDBKeyRange.only([threadId, key]));
    return own.flatMap((record) => this.#checked<LoggedEviction>('evictions', record) ?? []);
  }

  async seen(threadId: string, key: string) {
    return this.#checked<SeenRecord>('seen', await this.tx.objectStore('seen').get([threadId, key]));
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

  logSize(log: LogName, threadId: string) {
    return this.tx.objectStore(log).index('byThread').count(threadId);
  }
  async deleteOldestLogged(log: LogName, threadId: string, count: number) {
    const store = this.tx.objectStore(log);
    // Within one index key, records come in primary key order: the oldest first.
    let left = count;
    for (let cursor = await store.index('byThread').openKeyCursor(threadId); cursor && left > 0; left--) {
      await store.delete(cursor.primaryKey);
      cursor = await cursor.continue();
    }
  }

  async failures(threadId?: string) {
    const failures = this.tx.objectStore('failures');
    const all = await (threadId === undefined ? failures.getAll() : failures.index('byThread').getAll(threadId));
    return all.flatMap((record) => {
      const failure = this.#checked<StoreFailure>('failures', record);
      return failure ? [failureFields(failure)] : [];
    });
  }
  async addFailure(record: StoreFailure) {
    await this.tx.objectStore('failures').add(record);
  }
  async deleteFailures(threadId: string) {
    const failures = this.tx.objectStore('failures');
    for (const id of await failures.index('byThread').getAllKeys(threadId)) await failures.delete(id);
  }
  deleteUnreadable(threadId: string) {
    return clearUnreadable(this.tx, threadId);
  }

  async undo(threadId: string, turnId: string) {
    return this.#checked<UndoRecord>('undo', await this.tx.objectStore('undo').get([threadId, turnId]));
  }
  async undoOf(threadId: string) {
    const all = await this.tx.objectStore('undo').getAll(threadRange(threadId));
    return all.flatMap((record) => this.#checked<UndoRecord>('undo', record) ?? []);
  }
  async putUndo(record: UndoRecord) {
    await this.tx.objectStore('undo').put(record);
  }
  deleteUndo(threadId: string, turnId: string) {
    return this.tx.objectStore('undo').delete([threadId, turnId]);
  }

  async clearedOne(threadId: string, toolCallId: string) {
    return this.#checked<ClearedRecord>('cleared', await this.tx.objectStore('cleared').get([threadId, toolCallId]));
  }
  async clearedOf(threadId: string) {
    // Through [threadId, step, rank]: in order already (a record lacking either is in no index;
    // the scan of unreadable records finds it).
    const range = IDBKeyRange.bound([threadId, -Infinity, -Infinity], [threadId, Infinity, Infinity]);
    const all = await this.tx.objectStore('cleared').index('byStep').getAll(range);
    return all.flatMap((record) => this.#checked<ClearedRecord>('cleared', record) ?? []).sort(byStepAndRank);
  }
  async putCleared(record: ClearedRecord) {
    await this.tx.objectStore('cleared').put(record);
  }
  deleteCleared(threadId: string, toolCallId: string) {
    return this.tx.objectStore('cleared').delete([threadId, toolCallId]);
  }
  deleteClearedOf(threadId: string) {
    return this.tx.objectStore('cleared').delete(threadRange(threadId));
  }

  async requestsOf(threadId: string, after?: number, newest?: number) {
    // Up to the thread's counter: a record past it is out of order (S2), never read as the ledger's
    // (the scan of unreadable records lists it).
    const counter = (await this.thread(threadId))?.requestStep ?? Infinity;
    if (after !== undefined && after >= counter) return [];
    const range = IDBKeyRange.bound([threadId, after ?? -Infinity], [threadId, counter], after !== undefined);
    const store = this.tx.objectStore('requests');
    const found: unknown[] = [];
    if (newest === undefined) found.push(...(await store.getAll(range)));
    else {
      // From the newest down, only as far as `newest` readable records.
      let kept = 0;
      for (
        let cursor = await store.openCursor(range, 'prev');
        cursor && kept < newest;
        cursor = await cursor.continue()
      ) {
        found.unshift(cursor.value);
        if (requestProblem(cursor.value) === undefined) kept++;
      }
    }
    return found.flatMap((record) => {
      const checked = this.#checked<RequestRecord>('requests', record);
      // Only its own fields: whatever else another writer put in (a text) is not handed on.
      return checked ? [requestFields(checked)] : [];
    });
  }
  async lastRequestStep(threadId: string) {
    const cursor = await this.tx
      .objectStore('requests')
      .openKeyCursor(IDBKeyRange.bound([threadId, -Infinity], [threadId, Infinity]), 'prev');
    const step = (cursor?.primaryKey as [string, unknown] | undefined)?.[1];
    // A key another writer gave a step that is no count is not one to count on.
    return typeof step === 'number' && Number.isSafeInteger(step) && step > 0 ? step : undefined;
  }
  async putRequest(record: RequestRecord) {
    await this.tx.objectStore('requests').put(record);
  }
  deleteRequestsThrough(threadId: string, maxStep: number) {
    return this.tx.objectStore('requests').delete(IDBKeyRange.bound([threadId, -Infinity], [threadId, maxStep]));
  }
}
