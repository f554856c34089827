import { clip } from '../format.js';
import { ALL_BUT_REQUESTS, type ChangeRegistry, type Registration } from './changes.js';
import {
  type EntryRow,
  type EvictionRow,
  type FailureRow,
  toEntryRow,
  toEvictionRow,
  toFailureRow,
  toRows,
} from './records.js';
import type { PanelSource, SourceChange } from './source.js';
import { isBound, isCount } from './store-info.js';

/** Everything the panel shows but stored texts, as last read. */
interface Snapshot {
  /** Every thread's entries, oldest first. */
  entries: readonly EntryRow[];
  /** Every thread's evictions, oldest first. */
  evictions: readonly EvictionRow[];
  failures: readonly FailureRow[];
  /** Every thread the lists mention, sorted. */
  threads: readonly string[];
  /**
   * The store's total per thread, as far as known: told by change events, or read when a gauge
   * shows the thread (`SnapshotReader.wantTotals`). A thread not in the map was not read yet.
   */
  totals: ReadonlyMap<string, number>;
  /**
   * Each thread's bound as the store reports it: told by change events, or read with the total. A
   * thread not in the map has none known (not read yet, or the store does not say).
   */
  bounds: ReadonlyMap<string, number>;
  /** Items of the lists read that were no records at all (not objects), so not shown. */
  skipped: number;
}

export interface SnapshotState {
  snapshot?: Snapshot;
  /** Why the last read failed; cleared by the next good read. */
  error?: string;
}

export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  try {
    return String(error);
  } catch {
    return 'unknown error';
  }
}

type Part = 'entries' | 'evictions' | 'failures';
type Row = EntryRow | EvictionRow | FailureRow;
const allParts: readonly Part[] = ['entries', 'evictions', 'failures'];

/**
 * The lists a change can alter; a type this version does not know may alter anything. A Map: a
 * custom source's change typed `__proto__` or `toString` finds nothing, as any unknown type.
 */
const partsChangedBy: ReadonlyMap<string, readonly Part[]> = new Map<string, readonly Part[]>([
  ['stored', ['entries']],
  ['restored', ['entries', 'evictions']],
  ['evicted', ['entries', 'evictions']],
  ['failed', ['failures']],
]);

/**
 * `clearThread` drops the thread's failures and rewrites its eviction log: the store tells it
 * ('thread-cleared', after the 'evicted' of each key). An eviction whose total is not told (a
 * custom store's) may be one too.
 */
function partsOf(change: SourceChange): readonly Part[] {
  if (change.type === 'thread-cleared') return clearedParts;
  if (change.type === 'evicted' && change.totalBytes === undefined) return allParts;
  return partsChangedBy.get(change.type) ?? allParts;
}
const clearedParts: readonly Part[] = ['evictions', 'failures'];

/**
 * What changed in one thread: which lists, which keys (null: any, read the whole lists), how many
 * evictions (Infinity: maybe a clear, read the whole log).
 */
interface ThreadChange {
  parts: Set<Part>;
  keys: Set<string> | null;
  evicted: number;
}

/** The changes that name an entry's key: only that key's entry is read again. */
const keyedTypes = new Set(['stored', 'evicted', 'restored']);

const reads: Record<
  Part,
  {
    read: (source: PanelSource, threadId?: string, keys?: readonly string[]) => Promise<unknown>;
    toRow: (value: unknown) => Row | undefined;
  }
> = {
  entries: { read: (source, threadId, keys) => source.list(threadId, keys && { keys }), toRow: toEntryRow },
  evictions: { read: (source, threadId, keys) => source.evictions(threadId, keys && { keys }), toRow: toEvictionRow },
  failures: { read: (source, threadId) => source.failures(threadId), toRow: toFailureRow },
};

/** A time to order by: records without one go first, as the oldest. */
const orderTime = (time: number) => (Number.isNaN(time) ? Number.NEGATIVE_INFINITY : time);
const byAge = (a: EntryRow, b: EntryRow) =>
  orderTime(a.createdAt) - orderTime(b.createdAt) || orderTime(a.seq) - orderTime(b.seq);
const byTime = (a: EvictionRow | FailureRow, b: EvictionRow | FailureRow) => orderTime(a.at) - orderTime(b.at);

function groupByThread<T extends Row>(rows: readonly T[]): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const group = groups.get(row.threadId);
    if (group) group.push(row);
    else groups.set(row.threadId, [row]);
  }
  return groups;
}

/**
 * Reads a source into a Snapshot, and keeps it current by reading again only what changed: a
 * change notice names its thread and what happened, so one thread's lists are read, not every
 * list of every thread; totals come with the events. Notices are coalesced: those of one task
 * cause one read, and those during a read one more read after it. A notice that does not say
 * what changed (an older exposing window, a custom store's event) reads everything again.
 */
export class SnapshotReader {
  readonly #source: PanelSource;
  readonly #publish: (state: SnapshotState) => void;
  readonly #byThread: Record<Part, Map<string, Row[]>> = {
    entries: new Map(),
    evictions: new Map(),
    failures: new Map(),
  };
  readonly #flat: Record<Part, readonly Row[]> = { entries: [], evictions: [], failures: [] };
  /** Skipped items per list read: `part` for a whole list, `part\0thread` for one thread's. */
  readonly #skipped = new Map<string, number>();
  readonly #totals = new Map<string, number>();
  /** Bounds known or asked for: undefined where the store said it does not know (not asked again). */
  readonly #bounds = new Map<string, number | undefined>();
  readonly #boundsAsked = new Set<string>();
  /** Bumped by every change to a thread, so a total read before it is not kept after it. */
  readonly #generation = new Map<string, number>();
  readonly #totalsAsked = new Set<string>();
  #dirty: Map<string, ThreadChange> | 'all' = 'all';
  /** Lists whose last whole read failed. */
  readonly #unread = new Set<Part>();
  #loaded = false;
  #publishScheduled = false;
  #stopped = false;
  #error: string | undefined;
  #registration: Registration | undefined;
  #snapshot: Snapshot | undefined;

  constructor(source: PanelSource, publish: (state: SnapshotState) => void) {
    this.#source = source;
    this.#publish = publish;
  }

  /** Registers with the panel's changes (read at once after each task's changes, one read at a time) and reads. */
  start(changes: ChangeRegistry): void {
    this.#registration = changes.register({
      types: ALL_BUT_REQUESTS,
      batchMs: 0,
      hear: (heard) => {
        this.#changed(heard);
        return true;
      },
      read: () => this.#read(),
    });
    this.#registration.schedule();
  }

  /** Stops listening; reads in flight are dropped when they end. */
  stop(): void {
    this.#stopped = true;
    this.#registration?.stop();
    this.#registration = undefined;
  }

  /**
   * Reads the totals of these threads (those in view) where not known yet, and their bounds with
   * them where not known either: an event that tells a total tells the bound too (a built-in
   * store's), so neither is read again after it.
   */
  wantTotals(threads: readonly string[]): void {
    for (const threadId of threads) {
      if (this.#stopped) return;
      this.#wantBound(threadId);
      if (this.#totals.has(threadId) || this.#totalsAsked.has(threadId)) continue;
      this.#totalsAsked.add(threadId);
      const generation = this.#generation.get(threadId) ?? 0;
      const settle = (total: number) => {
        this.#totalsAsked.delete(threadId);
        if (this.#stopped || (this.#generation.get(threadId) ?? 0) !== generation) return;
        this.#totals.set(threadId, total);
        this.#schedulePublish();
      };
      this.#source.totalBytes(threadId).then(
        (total) => settle(isCount(total) ? total : Number.NaN),
        () => settle(Number.NaN),
      );
    }
  }

  /** Reads the thread's bound unless known or asked; a failed read (an older exposing side) counts as unknown. */
  #wantBound(threadId: string): void {
    if (this.#bounds.has(threadId) || this.#boundsAsked.has(threadId)) return;
    this.#boundsAsked.add(threadId);
    const generation = this.#generation.get(threadId) ?? 0;
    const settle = (bound: unknown) => {
      this.#boundsAsked.delete(threadId);
      if (this.#stopped) return;
      if ((this.#generation.get(threadId) ?? 0) !== generation) {
        // A change came meanwhile: what it told stands; if it told no bound, read it again.
        this.#wantBound(threadId);
        return;
      }
      this.#bounds.set(threadId, isBound(bound) ? bound : undefined);
      this.#schedulePublish();
    };
    this.#source.bound(threadId).then(settle, () => settle(undefined));
  }

  #changed(changes: readonly SourceChange[] | undefined): void {
    if (this.#stopped) return;
    if (!changes || this.#dirty === 'all') {
      this.#dirty = 'all';
    } else {
      for (const change of changes) {
        // A model request recorded in the context ledger changes no list, total or bound (the Context tab reads it).
        if (change.type === 'request') continue;
        const thread = this.#dirty.get(change.threadId) ?? {
          parts: new Set<Part>(),
          keys: new Set<string>(),
          evicted: 0,
        };
        this.#dirty.set(change.threadId, thread);
        const parts = partsOf(change);
        for (const part of parts) thread.parts.add(part);
        // A clear rewrites the whole log (the entries it emptied were named by their evictions).
        if (change.type === 'thread-cleared') {
          thread.evicted = Infinity;
          continue;
        }
        if (!keyedTypes.has(change.type)) thread.keys = null;
        else thread.keys?.add(change.key);
        // Each eviction logs one record; one that may be a clear (every list) may rewrite them all.
        if (change.type === 'evicted') thread.evicted += parts === allParts ? Infinity : 1;
        this.#generation.set(change.threadId, (this.#generation.get(change.threadId) ?? 0) + 1);
        if (change.totalBytes === undefined) this.#totals.delete(change.threadId);
        else this.#totals.set(change.threadId, change.totalBytes);
        // A change that tells no total may have changed the bound unseen: both are read again.
        if (change.bound !== undefined) this.#bounds.set(change.threadId, change.bound);
        else if (change.totalBytes === undefined) this.#bounds.delete(change.threadId);
      }
    }
  }

  async #read(): Promise<void> {
    if (this.#stopped) return;
    const dirty = this.#dirty;
    // Lists that could not be read last time are read whole at the next chance.
    const whole = dirty === 'all' || !this.#loaded ? allParts : [...this.#unread];
    const threads = dirty === 'all' ? new Map<string, ThreadChange>() : dirty;
    if (whole.length === 0 && threads.size === 0) return;
    this.#dirty = new Map();
    this.#unread.clear();
    const failures: string[] = [];
    try {
      await Promise.all([this.#readWhole(whole, failures), this.#readThreads(threads, whole, failures)]);
    } catch (error) {
      failures.push(errorMessage(error)); // a bug here: the next change reads again
    }
    this.#error = failures.length === 0 ? undefined : failures.join('; ');
    // A whole read of a store that answers in microtasks (MemoryOffloadStore) would otherwise be
    // read, checked and rendered in one long task: the page gets its turn before the render.
    if (whole.length > 0) await new Promise((resolve) => setTimeout(resolve, 0));
    if (this.#stopped) return;
    this.#publishNow();
    // Lists that failed are read again at the next chance, as before.
    if (this.#unread.size > 0) this.#registration?.schedule();
  }

  /** Reads these lists for every thread; a list that fails is kept as it was and read again next time. */
  async #readWhole(parts: readonly Part[], failures: string[]): Promise<void> {
    if (parts.length === 0) return;
    const results = await Promise.allSettled(parts.map((part) => this.#readPart(part)));
    parts.forEach((part, index) => {
      const result = results[index]!;
      if (result.status === 'rejected') {
        this.#unread.add(part);
        failures.push(`Could not read the ${part}: ${errorMessage(result.reason)}`);
        return;
      }
      this.#byThread[part] = groupByThread(result.value.rows);
      for (const key of [...this.#skipped.keys()]) if (key.startsWith(part)) this.#skipped.delete(key);
      this.#skipped.set(part, result.value.skipped);
      this.#flatten(part);
    });
    if (this.#unread.size < parts.length) {
      this.#loaded = true;
      if (parts.length === allParts.length) {
        // Read again for the gauges in view.
        this.#totals.clear();
        this.#bounds.clear();
      }
    }
  }

  /**
   * Reads the changed lists of the changed threads (but those read whole anyway): of the entries,
   * only those of the keys the changes named, merged into the thread's list.
   */
  async #readThreads(dirty: Map<string, ThreadChange>, whole: readonly Part[], failures: string[]): Promise<void> {
    const asked = [...dirty].flatMap(([threadId, change]) =>
      [...change.parts]
        .filter((part) => !whole.includes(part))
        .map((part) => ({ threadId, part, keys: this.#keysToRead(part, threadId, change) })),
    );
    if (asked.length === 0) return;
    const results = await Promise.allSettled(
      asked.map(({ threadId, part, keys }) => this.#readPart(part, threadId, keys ?? undefined)),
    );
    const touched = new Set<Part>();
    asked.forEach(({ threadId, part }, index) => {
      const result = results[index]!;
      if (result.status === 'rejected') {
        failures.push(`Could not read the ${part} of thread ${clip(threadId, 80)}: ${errorMessage(result.reason)}`);
        return;
      }
      const { keys } = asked[index]!;
      const rows = keys ? this.#merged(part, threadId, keys, result.value.rows) : result.value.rows;
      if (rows.length === 0) this.#byThread[part].delete(threadId);
      else this.#byThread[part].set(threadId, rows);
      if (!keys) this.#skipped.set(`${part}\u0000${threadId}`, result.value.skipped);
      touched.add(part);
    });
    for (const part of touched) this.#flatten(part);
  }

  async #readPart(
    part: Part,
    threadId?: string,
    keys?: ReadonlySet<string>,
  ): Promise<{ rows: Row[]; skipped: number }> {
    const { read, toRow } = reads[part];
    const { rows, skipped } = toRows(await read(this.#source, threadId, keys && [...keys]), toRow);
    // An older exposing window or a custom store may answer with more than asked for (every
    // thread, every key): keep what was asked for.
    if (threadId === undefined) return { rows, skipped };
    return { rows: rows.filter((row) => row.threadId === threadId && (!keys || keys.has(row.key))), skipped };
  }

  /**
   * The keys whose records to read again, or null for the whole list: of the entries, those the
   * changes named; of the eviction log, those too and the keys of its oldest records, one an
   * eviction (each logged one) — what the store's log retention may have trimmed to make room.
   */
  #keysToRead(part: Part, threadId: string, { keys, evicted }: ThreadChange): Set<string> | null {
    if (!keys || part === 'failures') return null;
    if (part === 'entries') return keys;
    if (evicted === Infinity) return null;
    const oldest = (this.#byThread.evictions.get(threadId) ?? []).slice(0, evicted);
    return new Set([...keys, ...oldest.map((row) => row.key)]);
  }

  /** The thread's list with the rows of `keys` replaced by `rows` (a key not in `rows` is gone). */
  #merged(part: Part, threadId: string, keys: ReadonlySet<string>, rows: Row[]): Row[] {
    const merged = (this.#byThread[part].get(threadId) ?? []).filter((row) => !keys.has(row.key));
    // Nearly in order already (the new rows are usually the newest): a sort of one pass.
    return merged.concat(rows).sort((part === 'entries' ? byAge : byTime) as (a: Row, b: Row) => number);
  }

  #flatten(part: Part): void {
    const lists = [...this.#byThread[part].values()];
    // One thread's list is in order already (the common case: one agent's conversation).
    if (lists.length === 1) {
      this.#flat[part] = lists[0]!;
      return;
    }
    const rows = lists.flat();
    if (part === 'entries') (rows as EntryRow[]).sort(byAge);
    else (rows as Array<EvictionRow | FailureRow>).sort(byTime);
    this.#flat[part] = rows;
  }

  #schedulePublish(): void {
    if (this.#publishScheduled) return;
    this.#publishScheduled = true;
    queueMicrotask(() => {
      this.#publishScheduled = false;
      if (!this.#stopped) this.#publishNow();
    });
  }

  #publishNow(): void {
    if (!this.#loaded) {
      this.#publish({ error: this.#error });
      return;
    }
    const threads = new Set<string>();
    for (const part of allParts) for (const threadId of this.#byThread[part].keys()) threads.add(threadId);
    let skipped = 0;
    for (const count of this.#skipped.values()) skipped += count;
    const previous = this.#snapshot;
    const sameThreads =
      previous && previous.threads.length === threads.size && previous.threads.every((id) => threads.has(id));
    this.#snapshot = {
      entries: this.#flat.entries as EntryRow[],
      evictions: this.#flat.evictions as EvictionRow[],
      failures: this.#flat.failures as FailureRow[],
      threads: sameThreads ? previous.threads : [...threads].sort(),
      totals: new Map(this.#totals),
      bounds: new Map([...this.#bounds].filter((pair): pair is [string, number] => pair[1] !== undefined)),
      skipped,
    };
    this.#publish({ snapshot: this.#snapshot, error: this.#error });
  }
}
