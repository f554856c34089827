<<<<<<< HEAD:.sz/exp/lib/agent/summary-cleanup.ts

import { resultKeysInText } from '../offload/result-path.js';
import type { Message } from '../runtime/messages.js';
import { joinText } from '../shared/content.js';
import type { StoreChange, WritableOffloadStore } from '../store/offload-store.js';
import { readSummarization, summarizationKey } from '../summarization/select.js';

=======

import { joinText, type Message } from '../runtime/messages.js';
import type { StoreChange, WritableOffloadStore } from '../store/offload-store.js';
import { resultKeysInText } from './result-path.js';

>>>>>>> store:lib/offload/cleanup.ts

/** The ids of the messages Summarization's summary covers, read through Summarization's own reader of its state. */
function coveredIds(state: Readonly<Record<string, unknown>>): Set<string> {
  return new Set(readSummarization(state[summarizationKey]).coveredMessageIds);
}

function isSubset(some: ReadonlySet<string>, all: ReadonlySet<string>): boolean {
  for (const item of some) if (!all.has(item)) return false;
  return true;
}

/** What one thread's covered messages name, as far as they were read. */
interface ThreadCleanup {
  /** Covered message ids whose message was read. */
  scanned: Set<string>;
  /** Result keys named in the covered tool messages read so far. */
  named: Set<string>;
  /** The turn in which the store last held none of `named`: nothing to drop for the rest of it. */
  settledTurn?: string;
}

/**
 * The drop that cleans up after a summary (O7): results whose path appears in a tool result the
 * summary covers, and that are still live in this thread. Runs at every model step, so it reads
 * each covered message once, and asks the store only when a covered message names a result not
 * yet known to be gone: at most twice a turn (the drop, then the step that sees it applied) while
 * the summary does not change. A new turn checks again (an output Block may have restored some).
 */
export class SummaryCleanup {
  readonly #threads = new Map<string, ThreadCleanup>();

  constructor(readonly store: WritableOffloadStore) {}

  /** The drop for this step, or undefined when there is nothing to drop (or no summary). The bound never depends on it. */
  async drop(
    threadId: string,
    turnId: string,
    state: Readonly<Record<string, unknown>>,
    messages: readonly Message[],
  ): Promise<StoreChange | undefined> {
    const covered = coveredIds(state);
    if (covered.size === 0) {
      this.#threads.delete(threadId);
      return undefined;
    }
    const thread = this.#current(threadId, covered);
    if (this.#readNewlyCovered(thread, covered, messages)) thread.settledTurn = undefined;
    if (thread.named.size === 0 || thread.settledTurn === turnId) return undefined;
    const live = await this.store.list(threadId);
    const keys = live.filter((entry) => thread.named.has(entry.key)).map((entry) => entry.key);
    if (keys.length > 0) return { type: 'drop', threadId, keys, turnId, reason: 'summarized' };
    thread.settledTurn = turnId;
    return undefined;
  }

  /** The thread's record; started afresh when the summary no longer covers a message it read. */
  #current(threadId: string, covered: ReadonlySet<string>): ThreadCleanup {
    const known = this.#threads.get(threadId);
    if (known && isSubset(known.scanned, covered)) return known;
    const fresh: ThreadCleanup = { scanned: new Set(), named: new Set() };
    this.#threads.set(threadId, fresh);
    return fresh;
  }

  /** Reads the covered messages not read yet; whether they named a result not named before. */
  #readNewlyCovered(thread: ThreadCleanup, covered: ReadonlySet<string>, messages: readonly Message[]): boolean {
    if (thread.scanned.size === covered.size) return false;
    let namedMore = false;
    for (const message of messages) {
      if (!covered.has(message.id) || thread.scanned.has(message.id)) continue;
      thread.scanned.add(message.id);
      if (message.role !== 'tool') continue;
      for (const key of resultKeysInText(joinText(message.content))) {
        if (thread.named.has(key)) continue;
        thread.named.add(key);
        namedMore = true;
      }
    }
    return namedMore;
  }
}
