import { useCallback, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { ChangeRegistry, ChangeType, Registration } from '../source/changes.js';
import { type ClearedRow, toClearedRow, toRows } from '../source/records.js';
import type { PanelSource, SourceChange } from '../source/source.js';
import { isBound } from '../source/store-info.js';
import { type LedgerRecord, mergeLedger } from './records.js';

/** What the panel shows of one thread's context (C2–C4): what was cleared from its requests, and its budget. */
export interface ThreadContext {
  /** Each path a cleared record names, with the step that first cleared it. */
  cleared: ReadonlyMap<string, number>;
  /** The latest ledger record's budget (maxRequestTokens); undefined when it has none, or no record was read. */
  budget?: number;
  /** The latest step read from the ledger (0: none). */
  step: number;
}

const noContext: ThreadContext = { cleared: new Map(), step: 0 };

/** Model requests come a few a second during a run: one read per thread per this window. */
const CONTEXT_BATCH_MS = 150;

/** A model request recorded, a turn undone (C7), an eviction, a thread cleared. */
const CONTEXT_CHANGES: ReadonlySet<ChangeType> = new Set<ChangeType>([
  'request',
  'restored',
  'evicted',
  'thread-cleared',
]);

/** What to read again of a thread: its cleared records, and its ledger ('after': the records after the last step read). */
interface Wanted {
  cleared: boolean;
  ledger: 'none' | 'after' | 'all';
}

const more = (a: Wanted['ledger'], b: Wanted['ledger']): Wanted['ledger'] =>
  a === 'all' || b === 'all' ? 'all' : a === 'after' || b === 'after' ? 'after' : 'none';

/**
 * Keeps the context of the threads in view: their cleared records and the budget of their latest
 * request, read when a thread first comes into view and again when the store says a request of it
 * was recorded (only the ledger records after the last step read), a turn was undone or the
 * thread cleared. Whatever is read is checked record by record: a record that is not well-formed
 * marks nothing.
 */
class ContextReader {
  readonly #source: PanelSource;
  readonly #publish: (contexts: ReadonlyMap<string, ThreadContext>) => void;
  readonly #contexts = new Map<string, ThreadContext>();
  /** Threads in view at least once: kept current. */
  readonly #watched = new Set<string>();
  readonly #dirty = new Map<string, Wanted>();
  /**
   * Reads that failed (an exposing side of an older version never answers them): not asked again
   * until the source tells a model request (it has them) or that anything may have changed.
   */
  readonly #failed = new Set<'cleared' | 'ledger'>();
  #stopped = false;
  #registration: Registration | undefined;

  constructor(source: PanelSource, publish: (contexts: ReadonlyMap<string, ThreadContext>) => void) {
    this.#source = source;
    this.#publish = publish;
  }

  /** Registers with the panel's changes: the threads marked are read once per CONTEXT_BATCH_MS. */
  start(changes: ChangeRegistry): void {
    this.#registration = changes.register({
      types: CONTEXT_CHANGES,
      batchMs: CONTEXT_BATCH_MS,
      hear: (heard) => this.#changed(heard),
      read: () => this.#readMarked(),
    });
  }

  stop(): void {
    this.#stopped = true;
    this.#registration?.stop();
  }

  /** Reads the context of these threads where not read yet. */
  want(threads: readonly string[]): void {
    for (const threadId of threads) {
      if (this.#watched.has(threadId)) continue;
      this.#watched.add(threadId);
      this.#mark(threadId, { cleared: true, ledger: 'all' });
      this.#registration?.schedule();
    }
  }

  /** Marks what the changes make to read again; true when they marked a thread. */
  #changed(changes: readonly SourceChange[] | undefined): boolean {
    if (!changes || changes.some((change) => change.type === 'request')) this.#failed.clear();
    if (!changes) {
      for (const threadId of this.#watched) this.#mark(threadId, { cleared: true, ledger: 'all' });
      return this.#dirty.size > 0;
    }
    for (const change of changes) {
      if (!this.#watched.has(change.threadId)) continue;
      const known = this.#contexts.get(change.threadId)?.step ?? 0;
      if (change.type === 'request') {
        // A step not after the last one read: the ledger was cleared and counts again from 1.
        const restarted = change.step !== undefined && change.step <= known;
        this.#mark(change.threadId, { cleared: true, ledger: restarted ? 'all' : 'after' });
      } else if (change.type === 'restored' || change.type === 'evicted') {
        // A Block takes back the turn's clearings (C7).
        this.#mark(change.threadId, { cleared: true, ledger: 'none' });
      } else if (change.type === 'thread-cleared') {
        // clearThread deleted its cleared results and its ledger, whose steps count from 1 again.
        this.#mark(change.threadId, { cleared: true, ledger: 'all' });
      }
    }
    return this.#dirty.size > 0;
  }

  #mark(threadId: string, wanted: Wanted): void {
    if (this.#stopped) return;
    const before = this.#dirty.get(threadId);
    this.#dirty.set(
      threadId,
      before ? { cleared: before.cleared || wanted.cleared, ledger: more(before.ledger, wanted.ledger) } : wanted,
    );
  }

  /** Reads every thread marked; what is marked meanwhile is read in the registry's next run. */
  async #readMarked(): Promise<void> {
    await Promise.all([...this.#dirty.keys()].map((threadId) => this.#read(threadId)));
  }

  async #read(threadId: string): Promise<void> {
    const wanted = this.#dirty.get(threadId);
    if (!wanted || this.#stopped) return;
    this.#dirty.delete(threadId);
    const known = (this.#contexts.get(threadId) ?? noContext).step;
    const afterStep = wanted.ledger === 'after' && known > 0 ? known : undefined;
    // Each read is shown as it comes: marks need not wait for a ledger that is slow (or never answers).
    await Promise.all([
      wanted.cleared &&
        !this.#failed.has('cleared') &&
        this.#rows(this.#source.cleared(threadId), toClearedRow, threadId).then(
          (rows) => rows && this.#update(threadId, () => ({ cleared: pathsCleared(rows) })),
        ),
      wanted.ledger !== 'none' &&
        !this.#failed.has('ledger') &&
        this.#ledger(threadId, afterStep).then(
          (records) =>
            records && this.#update(threadId, (known) => latest(records, afterStep === undefined ? noContext : known)),
        ),
    ]);
  }

  #update(threadId: string, change: (known: ThreadContext) => Partial<ThreadContext>): void {
    if (this.#stopped) return;
    const known = this.#contexts.get(threadId) ?? noContext;
    this.#contexts.set(threadId, { ...known, ...change(known) });
    this.#publish(new Map(this.#contexts));
  }

  /**
   * The thread's newest ledger record after `after` (of all, without), checked as the Context tab
   * checks records; [] when there is none; undefined when the read failed (what was known stays).
   */
  async #ledger(threadId: string, after: number | undefined): Promise<LedgerRecord[] | undefined> {
    try {
      // The newest record only: one crosses a channel, not the ledger (the Context tab reads that).
      const answer = await this.#source.latestRequest(threadId, after === undefined ? undefined : { after });
      return mergeLedger({ threadId, records: [], dropped: 0 }, answer === undefined ? [] : [answer])
        .records as LedgerRecord[];
    } catch {
      this.#failed.add('ledger');
      return undefined;
    }
  }

  /** The thread's well-formed records, or undefined when the read failed (what was known stays). */
  async #rows<T extends { threadId: string; problems?: readonly string[] }>(
    read: Promise<unknown>,
    toRow: (value: unknown) => T | undefined,
    threadId: string,
  ): Promise<T[] | undefined> {
    try {
      return toRows(await read, toRow).rows.filter((row) => row.threadId === threadId && !row.problems);
    } catch {
      this.#failed.add('cleared'); // a store or an exposing side without these reads: nothing to mark
      return undefined;
    }
  }
}

function pathsCleared(rows: readonly ClearedRow[]): Map<string, number> {
  const paths = new Map<string, number>();
  for (const { path, step } of rows) {
    if (path === undefined) continue;
    const known = paths.get(path);
    if (known === undefined || step < known) paths.set(path, step);
  }
  return paths;
}

/** The step and budget of the newest record, or what was known when none is newer. */
function latest(rows: readonly LedgerRecord[], known: ThreadContext): Pick<ThreadContext, 'step' | 'budget'> {
  let newest: LedgerRecord | undefined;
  for (const row of rows) if (row.step > known.step && (!newest || row.step > newest.step)) newest = row;
  if (!newest) return { step: known.step, budget: known.budget };
  return { step: newest.step, budget: isBound(newest.budget) ? newest.budget : undefined };
}

/**
 * The context of the threads the panel shows (`want` them as they come into view): the paths
 * cleared from their requests and the budget of each one's latest request.
 */
export function useThreadContexts(
  source: PanelSource,
  changes: ChangeRegistry,
): {
  contexts: ReadonlyMap<string, ThreadContext>;
  want(threads: readonly string[]): void;
} {
  const [contexts, setContexts] = useState<ReadonlyMap<string, ThreadContext>>(() => new Map());
  const reader = useRef<ContextReader | undefined>(undefined);
  useLayoutEffect(() => {
    const current = new ContextReader(source, setContexts);
    reader.current = current;
    current.start(changes);
    setContexts(new Map());
    return () => current.stop();
  }, [source, changes]);
  const want = useCallback((threads: readonly string[]) => reader.current?.want(threads), []);
  return { contexts, want };
}
