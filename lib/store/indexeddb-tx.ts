import { type OffloadTransaction, queueRange, textRange, threadRange } from './indexeddb-schema.js';
import type { RequestRecord, StoreFailure } from './offload-store.js';
import {
  byStepAndRank,
  chunkProblem,
  clearedProblem,
  entryProblem,
  evictionProblem,
  failureProblem,
  requestFields,
  requestProblem,
  seenProblem,
  stagedProblem,
  threadProblem,
  UnreadableLog,
  undoProblem,
} from './record-checks.js';
import { failureFields } from './store-failures.js';
import {
  type ClearedRecord,
  defaultLogRetention,
  type EntryRecord,
  type LoggedEviction,
  type SeenRecord,
  type StagedRecord,
  type StoreTx,
  type ThreadRecord,
  type UndoRecord,
} from './store-records.js';
import { clearUnreadable } from './unreadable-scan.js';

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

  #entry(record: unknown): EntryRecord | undefined {
    const checked = this.unreadable.check<EntryRecord>('entries', keyOf(record, 'key'), record, entryProblem);
    if (!checked && record !== undefined) {
      const { threadId, key } = record as { threadId: unknown; key: unknown };
      this.#damage.set(`${threadId} ${key}`, `its record is malformed: ${entryProblem(record)}`);
    }
    return checked;
  }
  #eviction(record: unknown): LoggedEviction | undefined {
    return this.unreadable.check<LoggedEviction>(
      'evictions',
      (record as { id?: unknown })?.id,
      record,
      evictionProblem,
    );
  }
  #undo(record: unknown): UndoRecord | undefined {
    return this.unreadable.check<UndoRecord>('undo', keyOf(record, 'turnId'), record, undoProblem);
  }
  #staged(record: unknown): StagedRecord | undefined {
    return this.unreadable.check<StagedRecord>('staged', keyOf(record, 'key'), record, stagedProblem);
  }

  damage(threadId: string, key: string): string | undefined {
    return this.#damage.get(`${threadId} ${key}`);
  }

  async thread(threadId: string) {
    const record = await this.tx.objectStore('threads').get(threadId);
    return this.unreadable.check<ThreadRecord>('threads', threadId, record, threadProblem);
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
    return this.#staged(await this.tx.objectStore('staged').get([threadId, key]));
  }
  async stagedOf(threadId: string) {
    const all = await this.tx.objectStore('staged').getAll(threadRange(threadId));
    return all.flatMap((record) => this.#staged(record) ?? []);
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
    return all.flatMap((record) => this.#eviction(record) ?? []);
  }
  async evictionsOfKey(threadId: string, key: string) {
    // Index order is the primary key's within one [threadId, key]: ids only grow, so oldest first.
    const own = await this.tx
      .objectStore('evictions')
      .index('byKey')
      .getAll(IDBKeyRange.only([threadId, key]));
    return own.flatMap((record) => this.#eviction(record) ?? []);
  }

  async seen(threadId: string, key: string) {
    const record = await this.tx.objectStore('seen').get([threadId, key]);
    return this.unreadable.check<SeenRecord>('seen', keyOf(record, 'key'), record, seenProblem);
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

  async trimEvictions(threadId: string, loggedAtMost = Number.POSITIVE_INFINITY) {
    if (loggedAtMost > this.logRetention) await trimThreadLog(this.tx, 'evictions', threadId, this.logRetention);
  }

  async failures(threadId?: string) {
    const failures = this.tx.objectStore('failures');
    const all = await (threadId === undefined ? failures.getAll() : failures.index('byThread').getAll(threadId));
    return all.flatMap((record) => {
      const failure = this.unreadable.check<StoreFailure>('failures', record?.id, record, failureProblem);
      return failure ? [failureFields(failure)] : [];
    });
  }
  async addFailure(record: StoreFailure) {
    await this.tx.objectStore('failures').add(record);
  }
  trimFailures(threadId: string) {
    return trimThreadLog(this.tx, 'failures', threadId, this.logRetention);
  }
  async deleteFailures(threadId: string) {
    const failures = this.tx.objectStore('failures');
    for (const id of await failures.index('byThread').getAllKeys(threadId)) await failures.delete(id);
  }
  deleteUnreadable(threadId: string) {
    return clearUnreadable(this.tx, threadId);
  }

  async undo(threadId: string, turnId: string) {
    return this.#undo(await this.tx.objectStore('undo').get([threadId, turnId]));
  }
  async undoOf(threadId: string) {
    const all = await this.tx.objectStore('undo').getAll(threadRange(threadId));
    return all.flatMap((record) => this.#undo(record) ?? []);
  }
  async putUndo(record: UndoRecord) {
    await this.tx.objectStore('undo').put(record);
  }
  deleteUndo(threadId: string, turnId: string) {
    return this.tx.objectStore('undo').delete([threadId, turnId]);
  }

  #cleared(record: unknown): ClearedRecord | undefined {
    return this.unreadable.check<ClearedRecord>('cleared', keyOf(record, 'toolCallId'), record, clearedProblem);
  }
  async clearedOne(threadId: string, toolCallId: string) {
    return this.#cleared(await this.tx.objectStore('cleared').get([threadId, toolCallId]));
  }
  async clearedOf(threadId: string) {
    // Through [threadId, step, rank]: in order already (a record lacking either is in no index;
    // the scan of unreadable records finds it).
    const range = IDBKeyRange.bound([threadId, -Infinity, -Infinity], [threadId, Infinity, Infinity]);
    const all = await this.tx.objectStore('cleared').index('byStep').getAll(range);
    return all.flatMap((record) => this.#cleared(record) ?? []).sort(byStepAndRank);
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

  async requestsOf(threadId: string, after?: number) {
    const range = IDBKeyRange.bound([threadId, after ?? -Infinity], [threadId, Infinity], after !== undefined);
    const all = await this.tx.objectStore('requests').getAll(range);
    return all.flatMap((record) => {
      const checked = this.unreadable.check<RequestRecord>('requests', keyOf(record, 'step'), record, requestProblem);
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

/** A record's key in an object store keyed by [threadId, field] (IndexedDB requires both to be there). */
function keyOf(record: unknown, field: string): unknown[] {
  const fields = record as Record<string, unknown> | undefined;
  return [fields?.threadId, fields?.[field]];
}

/** Deletes the oldest records of a thread's log (evictions or failures) beyond `keep`: ids only grow. */
async function trimThreadLog(
  tx: OffloadTransaction,
  name: 'evictions' | 'failures',
  threadId: string,
  keep: number,
): Promise<void> {
  const store = tx.objectStore(name);
  const index = store.index('byThread');
  let excess = (await index.count(threadId)) - keep;
  // Within one index key, records come in primary key order: the oldest first.
  for (let cursor = excess > 0 ? await index.openKeyCursor(threadId) : null; cursor && excess > 0; excess--) {
    await store.delete(cursor.primaryKey);
    cursor = await cursor.continue();
  }
}
