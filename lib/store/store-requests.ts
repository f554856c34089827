import { checkInteger, checkOptionNames, checkThreadId, isRecord } from '../shared/checks.js';
import type { ClearedResult, RecordedRequest, RequestChange, RequestsOptions, UsageChange } from './offload-store.js';
import { clearedFields, requestChangeProblem, requestFields, usageCounts, usageProblem } from './record-checks.js';
import type { Outcome, StoreTx, UndoRecord } from './store-records.js';
import { rebuiltThread } from './thread-record.js';

/**
 * The context ledger and the cleared results (C4, C7), over `StoreTx` like the rest of
 * the store's rules: each function one atomic operation, the same in memory and in IndexedDB.
 */

/** Checks what `recordRequest` is given, every field named from `change` (a TypeError). */
export function checkRequestChange(change: RequestChange): void {
  const problem = requestChangeProblem(change);
  if (problem) throw new TypeError(`recordRequest: ${problem}`);
}

/** Checks `requests`' options; returns `after` and `newest` (undefined: the whole ledger). */
export function checkRequestsOptions(options: RequestsOptions | undefined): { after?: number; newest?: number } {
  if (options === undefined) return {};
  checkOptionNames('requests', options, ['after', 'newest']);
  const { after, newest } = options;
  return {
    ...(after === undefined ? {} : { after: checkInteger('requests: options.after', after, 0) }),
    ...(newest === undefined ? {} : { newest: checkInteger('requests: options.newest', newest, 1) }),
  };
}

/**
 * One model request, recorded: the step is the thread's counter + 1 (past its newest ledger record
 * when the thread's record keeps no counter, lost or rebuilt), its ledger record is kept and the
 * oldest beyond `retention` go, and each result it cleared is kept unless its toolCallId has a
 * record already (the first wins, also within the change), with an undo step when the change names
 * a turn (C7). Every request is issued before any is awaited but the reads it needs first.
 */
export async function recordRequest(
  tx: StoreTx,
  change: RequestChange,
  retention: number,
  now: number,
): Promise<Outcome<RecordedRequest>> {
  const { threadId, turnId, at, record } = change;
  const fresh = new Map<string, RequestChange['cleared'][number]>();
  for (const result of change.cleared) if (!fresh.has(result.toolCallId)) fresh.set(result.toolCallId, result);
  const ids = [...fresh.keys()];
  const [thread, lastStep, undo, before] = await Promise.all([
    tx.thread(threadId),
    tx.lastRequestStep(threadId),
    turnId === undefined || ids.length === 0 ? undefined : tx.undo(threadId, turnId),
    Promise.all(ids.map((id) => tx.clearedOne(threadId, id))),
  ]);
  const base = thread ?? (await rebuiltThread(tx, threadId));
  // From the thread's own counter: a ledger record past it is out of order (S2), and trusted its
  // step would make retention delete the real ledger. The newest record counts only for a thread
  // whose record keeps no counter (lost, rebuilt).
  const step = (base.requestStep ?? lastStep ?? 0) + 1;
  const writes: Promise<unknown>[] = [
    tx.putThread({ ...base, requestStep: step }),
    tx.putRequest(requestFields({ ...record, threadId, step, at })),
  ];
  const undone: UndoRecord | undefined = turnId === undefined ? undefined : (undo ?? { threadId, turnId, steps: [] });
  let rank = 0;
  ids.forEach((toolCallId, i) => {
    if (before[i]) return; // cleared before: its first record and pointer stay (C4)
    const result: ClearedResult = { ...fresh.get(toolCallId)!, threadId, step, at };
    writes.push(tx.putCleared({ ...clearedFields(result), rank: rank++ }));
    undone?.steps.push({ kind: 'cleared', toolCallId, step });
  });
  if (undone && rank > 0) writes.push(tx.putUndo({ ...undone, at: now }));
  if (step > retention) writes.push(tx.deleteRequestsThrough(threadId, step - retention));
  for (const write of writes) write.catch(() => {}); // a failure fails the unit below, never unhandled
  await Promise.all(writes);
  const cleared = (await tx.clearedOf(threadId)).map(clearedFields);
  return { value: { step, cleared }, events: [{ type: 'request', threadId, step, tokens: record.tokens }] };
}

/** Checks what `recordUsage` is given (a TypeError naming the field); unknown names are refused. */
export function checkUsageChange(change: UsageChange): void {
  checkOptionNames('recordUsage', change, ['threadId', 'step', 'reported']);
  checkThreadId(change.threadId);
  checkInteger('recordUsage: change.step', change.step, 1);
  if (isRecord(change.reported)) checkOptionNames('recordUsage: change.reported', change.reported, usageCounts);
  const problem = usageProblem(change.reported, 'change.reported');
  if (problem) throw new TypeError(`recordUsage: ${problem}`);
}

/**
 * What the provider reported, added to the step's ledger record (replacing what was reported
 * before); nothing when the thread has no record of that step. Reads the records from that step
 * on, which is the last one or few: usage arrives with the reply to the request just recorded.
 */
export async function recordUsage(tx: StoreTx, change: UsageChange): Promise<Outcome<boolean>> {
  const { threadId, step, reported } = change;
  const [record] = await tx.requestsOf(threadId, step - 1);
  if (record?.step !== step) return { value: false, events: [] };
  const kept = requestFields({ ...record, reported });
  await tx.putRequest(kept);
  return { value: true, events: [{ type: 'request', threadId, step, tokens: kept.tokens, reported: kept.reported! }] };
}
