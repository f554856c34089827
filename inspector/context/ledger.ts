import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { ChangeRegistry, ChangeType, Registration } from '../source/changes.js';
import { errorMessage } from '../source/snapshot.js';
import type { PanelSource, SourceChange } from '../source/source.js';
import { type Ledger, type LedgerRecord, mergeLedger } from './records.js';

/** What the Context tab shows of the ledger. */
type LedgerState =
  | { status: 'loading'; threadId?: string }
  /** No thread to show yet: none picked, and no known thread has a request recorded. */
  | { status: 'no-thread' }
  /** The store keeps no context ledger (no `requests()`). */
  | { status: 'no-ledger' }
  | { status: 'ready'; ledger: Ledger; error?: string }
  | { status: 'failed'; threadId?: string; error: string };

/**
 * What to read: the newest request's thread among the known ones (none shown yet), the steps after
 * the last one held, or the whole ledger; a pending read of a higher rank stands for a lower one.
 * Threads a 'request' notice named are looked at apart (`#heard`).
 */
type ReadKind = 'probe' | 'new' | 'whole';
const rank: Record<ReadKind, number> = { probe: 0, new: 1, whole: 2 };

/** A model request recorded, a thread cleared: what the ledger changes with. */
const LEDGER_CHANGES: ReadonlySet<ChangeType> = new Set<ChangeType>(['request', 'thread-cleared']);

/** Threads whose ledgers are read to find the newest request, when no thread is picked (the most recently active first). */
const MAX_PROBED_THREADS = 8;

/**
 * Reads one thread's context ledger through the panel's source and keeps it current: a 'request'
 * change of the thread reads only the steps after the last one held (the last one too when it
 * names it: the provider's usage was added to it; a step before it, or a change that may be a
 * clear, reads the whole ledger again). Changes are coalesced: those during a
 * read cause one more read. With no thread picked it shows the thread of the newest request: at
 * first the one whose last record is newest among the most recently active threads, then the
 * thread of each 'request' change heard.
 */
class LedgerReader {
  readonly #source: PanelSource;
  readonly #publish: (state: LedgerState) => void;
  /** The thread picked in the panel's filter; '' for none. */
  #picked = '';
  /** Threads to look in when none is picked, most recently active first. */
  #candidates: readonly string[] = [];
  #ledger: Ledger | undefined;
  /** The thread shown (or being read); undefined while none is known. */
  #threadId: string | undefined;
  #pending: ReadKind | undefined = 'whole';
  /** The newest step held changed (the provider's usage added to it): a 'new' read reads it again too. */
  #newestAgain = false;
  /**
   * Other threads that 'request' notices named, newest last, with no thread picked: shown only once
   * their newest record is read and is newer than the one shown. Any script of the origin can post
   * a notice, so one naming a thread with no ledger switches nothing (and blanks nothing).
   */
  readonly #heard = new Set<string>();
  #stopped = false;
  #registration: Registration | undefined;

  constructor(source: PanelSource, publish: (state: LedgerState) => void) {
    this.#source = source;
    this.#publish = publish;
  }

  /** Registers with the panel's changes (read once the task that told them ends, one read at a time) and reads. */
  start(changes: ChangeRegistry, picked: string, candidates: readonly string[]): void {
    this.#registration = changes.register({
      types: LEDGER_CHANGES,
      batchMs: 0,
      hear: (heard) => {
        this.#changed(heard);
        return this.#pending !== undefined;
      },
      read: () => this.#run(),
    });
    this.target(picked, candidates);
    this.#registration.schedule();
  }

  stop(): void {
    this.#stopped = true;
    this.#registration?.stop();
    this.#registration = undefined;
  }

  /** The panel's thread filter changed, or the threads it knows of. */
  target(picked: string, candidates: readonly string[]): void {
    const pickedChanged = picked !== this.#picked;
    this.#picked = picked;
    this.#candidates = candidates;
    if (picked !== '') {
      if (pickedChanged || this.#threadId !== picked) this.#show(picked);
    } else if (pickedChanged) {
      this.#show(undefined);
    } else if (this.#threadId === undefined) {
      this.#read('probe'); // new threads may have a ledger
    }
  }

  #show(threadId: string | undefined): void {
    this.#threadId = threadId;
    this.#ledger = undefined;
    this.#publish(threadId === undefined ? { status: 'loading' } : { status: 'loading', threadId });
    this.#read('whole');
  }

  #changed(changes: readonly SourceChange[] | undefined): void {
    if (this.#stopped) return;
    if (!changes) {
      this.#read('whole');
      return;
    }
    for (const change of changes) {
      if (change.type === 'request') {
        if (this.#picked === '' && change.threadId !== this.#threadId) {
          // Maybe the newest request is another thread's: show it once its ledger says so.
          this.#heard.delete(change.threadId);
          this.#heard.add(change.threadId);
          if (this.#heard.size > MAX_PROBED_THREADS) this.#heard.delete(this.#heard.values().next().value as string);
          this.#read('probe');
          continue;
        }
        if (change.threadId !== this.#threadId) continue;
        const last = this.#ledger?.records.at(-1)?.step ?? 0;
        // The newest step again: what the provider reported was added to it, read with the new steps.
        if (change.step !== undefined && change.step === last) this.#newestAgain = true;
        // A step before the last held: the ledger was cleared and counts again from 1.
        this.#read(change.step !== undefined && change.step < last ? 'whole' : 'new');
      } else if (change.type === 'thread-cleared' && change.threadId === this.#threadId) {
        this.#read('whole'); // clearThread cleared the ledger too
      }
    }
  }

  #read(kind: ReadKind): void {
    if (this.#pending === undefined || rank[kind] > rank[this.#pending]) this.#pending = kind;
    this.#registration?.schedule();
  }

  async #run(): Promise<void> {
    while (this.#pending !== undefined && !this.#stopped) {
      const kind = this.#pending;
      this.#pending = undefined;
      let threadId = this.#threadId;
      try {
        // A thread a notice named, found newer, is read whole: what was asked of the one before is moot.
        if (this.#heard.size > 0 && this.#picked === '' && (await this.#probeHeard())) continue;
        threadId = this.#threadId;
        if (threadId === undefined) await this.#probe();
        // A probe asked for while one ran is moot once it found the thread.
        else if (kind !== 'probe') await this.#readThread(threadId, kind);
      } catch (error) {
        if (this.#stopped || threadId !== this.#threadId) continue;
        const message = errorMessage(error);
        this.#publish(
          this.#ledger
            ? { status: 'ready', ledger: this.#ledger, error: message }
            : { status: 'failed', threadId, error: message },
        );
      }
    }
  }

  async #readThread(threadId: string, kind: 'whole' | 'new'): Promise<void> {
    const held = kind === 'new' ? this.#ledger : undefined;
    const newest = held?.records.at(-1)?.step;
    const after = newest !== undefined && this.#newestAgain ? newest - 1 : newest;
    this.#newestAgain = false;
    const answer = await this.#source.requests(threadId, after === undefined ? undefined : { after });
    if (this.#stopped || threadId !== this.#threadId) return; // another thread is shown now
    if (answer === undefined) {
      this.#publish({ status: 'no-ledger' });
      return;
    }
    this.#ledger = mergeLedger(held ?? { threadId, records: [], dropped: 0 }, answer);
    this.#publish({ status: 'ready', ledger: this.#ledger });
  }

  /**
   * The threads notices named: the one whose newest record is the newest is shown, when it is newer
   * than the newest shown (or none is); a thread with no record (a forged notice) changes nothing.
   */
  async #probeHeard(): Promise<boolean> {
    const threads = [...this.#heard];
    this.#heard.clear();
    const answers = await Promise.all(
      threads.map((threadId) =>
        this.#source.latestRequest(threadId).then(
          (answer) => mergeLedger({ threadId, records: [], dropped: 0 }, answer === undefined ? [] : [answer]),
          () => undefined,
        ),
      ),
    );
    if (this.#stopped || this.#picked !== '') return false;
    let best = this.#ledger ? newest(this.#ledger.records) : undefined;
    let found: string | undefined;
    answers.forEach((ledger) => {
      const last = ledger && newest(ledger.records);
      if (last !== undefined && (best === undefined || last > best)) {
        best = last;
        found = ledger!.threadId;
      }
    });
    if (found === undefined) return false;
    this.#threadId = found;
    this.#ledger = undefined;
    await this.#readThread(found, 'whole');
    return true;
  }

  /** With no thread picked and none heard of: the thread whose newest request is the newest. */
  async #probe(): Promise<void> {
    const threads = this.#candidates.slice(0, MAX_PROBED_THREADS);
    if (threads.length === 0) {
      this.#publish({ status: 'no-thread' });
      return;
    }
    const answers = await Promise.all(
      threads.map((threadId) =>
        this.#source.requests(threadId).then(
          (answer) => answer,
          () => undefined,
        ),
      ),
    );
    if (this.#stopped || this.#threadId !== undefined || this.#picked !== '') return;
    let best: Ledger | undefined;
    let none = true;
    threads.forEach((threadId, index) => {
      const answer = answers[index];
      if (answer === undefined) return;
      none = false;
      const ledger = mergeLedger({ threadId, records: [], dropped: 0 }, answer);
      const last = newest(ledger.records);
      if (last !== undefined && (!best || last > (newest(best.records) ?? 0))) best = ledger;
    });
    if (best) {
      this.#threadId = best.threadId;
      this.#ledger = best;
      this.#publish({ status: 'ready', ledger: best });
    } else {
      this.#publish({ status: none ? 'no-ledger' : 'no-thread' });
    }
  }
}

const newest = (records: readonly LedgerRecord[]): number | undefined => records.at(-1)?.at;

/** The ledger of the thread picked ('' for none: the thread of the newest request), kept current. */
export function useLedger(
  source: PanelSource,
  changes: ChangeRegistry,
  picked: string,
  candidates: readonly string[],
): LedgerState {
  const [state, setState] = useState<LedgerState>({ status: 'loading' });
  const reader = useRef<LedgerReader | undefined>(undefined);
  const target = useRef({ picked, candidates });
  target.current = { picked, candidates };
  // A layout effect starts the first read before the first paint rather than after it.
  useLayoutEffect(() => {
    const current = new LedgerReader(source, setState);
    reader.current = current;
    current.start(changes, target.current.picked, target.current.candidates);
    return () => current.stop();
  }, [source, changes]);
  const key = `${picked}\u0001${candidates.join('\u0000')}`;
  useEffect(() => {
    reader.current?.target(target.current.picked, target.current.candidates);
  }, [key]);
  return state;
}
