import type { ShownTexts } from '../offload/shown-texts.js';
import type { Message } from '../runtime/messages.js';
import { joinText } from '../shared/content.js';
import type { OffloadStore, StoreChange } from '../store/offload-store.js';
import { readSummarization, summarizationKey } from '../summarization/select.js';

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
  /** The keys of the stored results the covered tool results read so far were replaced by. */
  named: Set<string>;
  /** The turn in which the store last held none of `named`: nothing to drop for the rest of it. */
  settledTurn?: string;
}

/**
 * The drop that cleans up after a summary (O7): the stored results that replaced the tool results
 * the summary covers (by their call and the text they were sent as), still live in this thread. Runs at every model step, so it reads
 * each covered message once, and asks the store only when a covered tool result is one not
 * yet known to be gone: at most twice a turn (the drop, then the step that sees it applied) while
 * the summary does not change. A new turn checks again (an output Block may have restored some).
 */
export class SummaryCleanup {
  readonly #threads = new Map<string, ThreadCleanup>();

  /** `shown` says what replaced a tool result, by its call and the text it was sent as (never read from the text). */
  constructor(
    readonly store: OffloadStore,
    readonly shown: Pick<ShownTexts, 'replacedResults'>,
  ) {}

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
    if (await this.#readNewlyCovered(threadId, thread, covered, messages)) thread.settledTurn = undefined;
    if (thread.named.size === 0 || thread.settledTurn === turnId) return undefined;
    // Only the named keys' entries (a custom store may answer with the whole thread: filtered).
    const live = await this.store.list(threadId, { keys: [...thread.named] });
    // Oldest first, as the thread's queue holds them (a store answers keys in any order).
    const keys = live
      .filter((entry) => entry.threadId === threadId && thread.named.has(entry.key))
      .sort((a, b) => a.seq - b.seq)
      .map((entry) => entry.key);
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

  /** Reads the covered messages not read yet; whether they were replaced by a stored result not named before. */
  async #readNewlyCovered(
    threadId: string,
    thread: ThreadCleanup,
    covered: ReadonlySet<string>,
    messages: readonly Message[],
  ): Promise<boolean> {
    if (thread.scanned.size === covered.size) return false;
    const results: { toolCallId: string; text: string }[] = [];
    for (const message of messages) {
      if (!covered.has(message.id) || thread.scanned.has(message.id)) continue;
      thread.scanned.add(message.id);
      if (message.role === 'tool') results.push({ toolCallId: message.toolCallId, text: joinText(message.content) });
    }
    if (results.length === 0) return false;
    let namedMore = false;
    for (const replaced of await this.shown.replacedResults(threadId, results)) {
      if (replaced === undefined || thread.named.has(replaced.key)) continue;
      const { key } = replaced;
      thread.named.add(key);
      namedMore = true;
    }
    return namedMore;
  }
}
