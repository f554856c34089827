import { isRecord } from '../shared/checks.js';
import { type OffloadStoreName, type OffloadTransaction, textRange, threadRange } from './indexeddb-schema.js';
import type { UnreadableRecord } from './offload-store.js';
import {
  clearedProblem,
  entryProblem,
  evictionProblem,
  failureProblem,
  keyText,
  requestOrderProblem,
  requestProblem,
  seenProblem,
  stagedProblem,
  threadOf,
  threadProblem,
  type UnreadableLog,
  undoProblem,
} from './record-checks.js';

/** A kind of record but chunks (an object store of records). */
export type RecordStoreName = Exclude<OffloadStoreName, 'chunks'>;

type Fields = Record<string, unknown> | undefined;

/**
 * Each kind of record but chunks: how one is checked, and its key in its object store (its key
 * path). The transaction's checked reads and the scan of unreadable records both go by it.
 */
export const checkedStores: Record<
  RecordStoreName,
  { problem: (record: unknown) => string | undefined; keyOf: (record: Fields) => unknown }
> = {
  threads: { problem: threadProblem, keyOf: (record) => record?.threadId },
  entries: { problem: entryProblem, keyOf: (record) => [record?.threadId, record?.key] },
  staged: { problem: stagedProblem, keyOf: (record) => [record?.threadId, record?.key] },
  undo: { problem: undoProblem, keyOf: (record) => [record?.threadId, record?.turnId] },
  evictions: { problem: evictionProblem, keyOf: (record) => record?.id },
  failures: { problem: failureProblem, keyOf: (record) => record?.id },
  seen: { problem: seenProblem, keyOf: (record) => [record?.threadId, record?.key] },
  cleared: { problem: clearedProblem, keyOf: (record) => [record?.threadId, record?.toolCallId] },
  requests: { problem: requestProblem, keyOf: (record) => [record?.threadId, record?.step] },
};

const kinds = Object.entries(checkedStores).map(([name, kind]) => ({ name: name as RecordStoreName, ...kind }));

/** The records of one kind, of one thread (or all), as stored. */
async function recordsOf(tx: OffloadTransaction, name: RecordStoreName, threadId?: string) {
  const store = tx.objectStore(name);
  if (threadId === undefined) return (await store.getAll()) as unknown[];
  if (name === 'threads') return [await store.get(threadId)].filter((record) => record !== undefined) as unknown[];
  if (name === 'evictions' || name === 'failures') {
    return (await tx.objectStore(name).index('byThread').getAll(threadId)) as unknown[];
  }
  return (await store.getAll(threadRange(threadId))) as unknown[];
}

/** The request counter of each thread (or of one) whose record is readable and keeps one. */
async function requestCounters(tx: OffloadTransaction, threadId?: string): Promise<Map<string, number>> {
  const counters = new Map<string, number>();
  for (const record of await recordsOf(tx, 'threads', threadId)) {
    if (threadProblem(record) !== undefined) continue;
    const { threadId: owner, requestStep } = record as { threadId: string; requestStep?: number };
    if (requestStep !== undefined) counters.set(owner, requestStep);
  }
  return counters;
}

/** What is wrong with a record of `name` (a ledger record past its thread's counter too, S2). */
function recordProblem(name: RecordStoreName, record: unknown, counters: Map<string, number>): string | undefined {
  const problem = checkedStores[name].problem(record);
  if (problem !== undefined || name !== 'requests') return problem;
  const { threadId, step } = record as { threadId: string; step: number };
  return requestOrderProblem(step, counters.get(threadId));
}

/**
 * The malformed records of one thread (or all), read anew in `tx`: every kind of record, and the
 * chunks that reads found not to be text (a text is read only when asked for, so only they are known).
 */
export async function unreadableRecords(
  tx: OffloadTransaction,
  log: UnreadableLog,
  threadId?: string,
): Promise<UnreadableRecord[]> {
  const found: UnreadableRecord[] = [];
  const counters = await requestCounters(tx, threadId);
  for (const { name, keyOf } of kinds) {
    for (const record of await recordsOf(tx, name, threadId)) {
      const reason = recordProblem(name, record, counters);
      if (reason === undefined) continue;
      const key = isRecord(record) ? keyOf(record) : undefined;
      const owner = name === 'threads' ? threadId : threadOf(record);
      found.push({ store: name, key: keyText(key), ...(owner === undefined ? {} : { threadId: owner }), reason });
    }
  }
  for (const { record, key } of log.found('chunks', threadId)) {
    const chunk: unknown = await tx.objectStore('chunks').get(key as [string, number]);
    if (chunk !== undefined && typeof chunk !== 'string') found.push({ ...record });
    else log.forget('chunks', key);
  }
  return found;
}

/** Deletes the thread's malformed records, which checked reads skip (clearThread deletes the rest). */
export async function clearUnreadable(tx: OffloadTransaction, threadId: string): Promise<void> {
  const counters = await requestCounters(tx, threadId);
  for (const { name } of kinds) {
    if (name === 'failures') continue; // all of the thread's go anyway
    const store = tx.objectStore(name);
    const source = name === 'evictions' ? tx.objectStore('evictions').index('byThread') : store;
    const range = name === 'evictions' || name === 'threads' ? IDBKeyRange.only(threadId) : threadRange(threadId);
    for (let cursor = await source.openCursor(range); cursor; cursor = await cursor.continue()) {
      if (recordProblem(name, cursor.value, counters) === undefined) continue;
      const textId = (cursor.value as { textId?: unknown }).textId;
      if (typeof textId === 'string') await tx.objectStore('chunks').delete(textRange(textId));
      await store.delete(cursor.primaryKey as never);
    }
  }
}
