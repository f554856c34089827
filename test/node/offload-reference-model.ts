// The store's contract as plain arrays, for the offload property test: per thread, the live
// entries in seq order, each turn's undo steps and the eviction log. Any number of writers (agents
// sharing the store) commit, drop, restore and settle through it by turn id, so what one writer's
// Block brings back after another writer committed is predicted exactly (O3, O7, O8).

import { utf8Bytes } from '../../lib/shared/text.js';
import type { EvictionReason } from '../../lib/store/offload-store.js';

export interface ModelEntry {
  key: string;
  text: string;
  /** Place in the thread's eviction queue: the lowest is evicted first. */
  seq: number;
}

export interface ModelEviction {
  key: string;
  seq: number;
  reason: EvictionReason;
}

type UndoStep = { kind: 'stored'; key: string; seq: number } | { kind: 'evicted'; entry: ModelEntry };

class ThreadModel {
  live: ModelEntry[] = [];
  log: ModelEviction[] = [];
  nextSeq = 1;
  readonly undo = new Map<string, UndoStep[]>();

  total(): number {
    return this.live.reduce((sum, e) => sum + utf8Bytes(e.text), 0);
  }

  /** Takes a live entry out and logs why; a turn's eviction is remembered so its Block can bring the entry back. */
  evict(entry: ModelEntry, reason: EvictionReason, undo?: UndoStep[]): void {
    this.live = this.live.filter((e) => e !== entry);
    this.log.push({ key: entry.key, seq: entry.seq, reason });
    undo?.push({ kind: 'evicted', entry });
  }

  /** Evicts the oldest (reason 'bound') until `bytesToAdd` more fit the bound. */
  evictToFit(maxTotalBytes: number, bytesToAdd: number, undo?: UndoStep[]): void {
    while (this.live.length > 0 && this.total() + bytesToAdd > maxTotalBytes) this.evict(this.live[0]!, 'bound', undo);
  }

  stepsOf(turnId: string): UndoStep[] {
    const steps = this.undo.get(turnId) ?? [];
    this.undo.set(turnId, steps);
    return steps;
  }
}

/** What the store must hold after each applied change, whichever writer made it. */
export class ReferenceStore {
  readonly #threads = new Map<string, ThreadModel>();

  constructor(readonly maxTotalBytes: number) {}

  #thread(threadId: string): ThreadModel {
    const thread = this.#threads.get(threadId) ?? new ThreadModel();
    this.#threads.set(threadId, thread);
    return thread;
  }

  /** Live entries, oldest first. */
  live(threadId: string): readonly ModelEntry[] {
    return this.#thread(threadId).live;
  }

  /** The eviction log, oldest first. */
  evictions(threadId: string): readonly ModelEviction[] {
    return this.#thread(threadId).log;
  }

  total(threadId: string): number {
    return this.#thread(threadId).total();
  }

  /** A commit replaces the key's own entry, evicts the oldest until the text fits, and appends it. */
  commit(threadId: string, turnId: string, key: string, text: string): void {
    const thread = this.#thread(threadId);
    const steps = thread.stepsOf(turnId);
    const replaced = thread.live.find((e) => e.key === key);
    if (replaced) thread.evict(replaced, 'replaced', steps);
    thread.evictToFit(this.maxTotalBytes, utf8Bytes(text), steps);
    const seq = thread.nextSeq++;
    thread.live.push({ key, text, seq });
    steps.push({ kind: 'stored', key, seq });
  }

  /** A summarization drop: the named keys still live go, oldest first. */
  drop(threadId: string, turnId: string, keys: readonly string[]): void {
    const thread = this.#thread(threadId);
    const steps = thread.stepsOf(turnId);
    for (const entry of thread.live.filter((e) => keys.includes(e.key))) thread.evict(entry, 'summarized', steps);
  }

  /**
   * A Block: the turn's own entries go (unless replaced since), what it evicted comes back in its
   * old place (unless its key is live again), then the oldest go until the thread fits the bound,
   * since another writer may have committed in between.
   */
  restore(threadId: string, turnId: string): void {
    const thread = this.#thread(threadId);
    for (const step of [...(thread.undo.get(turnId) ?? [])].reverse()) {
      if (step.kind === 'stored') {
        const live = thread.live.find((e) => e.key === step.key && e.seq === step.seq);
        if (live) thread.evict(live, 'blocked');
      } else if (!thread.live.some((e) => e.key === step.entry.key)) {
        thread.live = [...thread.live, step.entry].sort((a, b) => a.seq - b.seq);
        const { key, seq } = step.entry;
        thread.log = thread.log.filter((logged) => logged.key !== key || logged.seq !== seq);
      }
    }
    thread.undo.delete(turnId);
    thread.evictToFit(this.maxTotalBytes, 0);
  }

  /**
   * The named turns finished: they can no longer be undone. A turn whose run failed goes on
   * (`continuing`): only what it evicted is gone for good; a Block still takes back what it stored.
   */
  settle(threadId: string, turnIds: readonly string[], continuing = false): void {
    const thread = this.#thread(threadId);
    for (const turnId of turnIds) {
      const stored = (thread.undo.get(turnId) ?? []).filter((step) => step.kind === 'stored');
      if (continuing && stored.length > 0) thread.undo.set(turnId, stored);
      else thread.undo.delete(turnId);
    }
  }

  /** UTF-8 bytes of the texts kept only so a Block can bring them back (undo copies). */
  undoBytes(threadId: string): number {
    let bytes = 0;
    for (const steps of this.#thread(threadId).undo.values()) {
      for (const step of steps) if (step.kind === 'evicted') bytes += utf8Bytes(step.entry.text);
    }
    return bytes;
  }
}
