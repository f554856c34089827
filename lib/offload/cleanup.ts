import { joinText, type Message } from '../runtime/messages.js';
import type { OffloadStore, StoreChange } from '../store/offload-store.js';
import { resultKeysInText } from './result-path.js';

/**
 * The state key a summarization middleware keeps its summary under. Named here, not imported, so
 * the offload works with any middleware that writes this shape and depends on none.
 */
export const summarizationStateKey = 'summarization';

/** The part of a summarization state the cleanup reads: the ids of the messages the summary covers. */
function coveredIds(state: Readonly<Record<string, unknown>>): Set<string> {
  const value = state[summarizationStateKey];
  if (typeof value !== 'object' || value === null) return new Set();
  const ids = (value as { coveredMessageIds?: unknown }).coveredMessageIds;
  return new Set(Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : []);
}

/**
 * The drop that cleans up after a summary (O7): results whose path appears in a tool result the
 * summary covers, and that are still live in this thread. Undefined when there is nothing to drop
 * (including when no summarization state exists). The bound never depends on it.
 */
export async function summarizedDrop(
  store: OffloadStore,
  threadId: string,
  turnId: string,
  state: Readonly<Record<string, unknown>>,
  messages: readonly Message[],
): Promise<StoreChange | undefined> {
  const covered = coveredIds(state);
  if (covered.size === 0) return undefined;
  const named = new Set<string>();
  for (const message of messages) {
    if (message.role !== 'tool' || !covered.has(message.id)) continue;
    for (const key of resultKeysInText(joinText(message.content))) named.add(key);
  }
  if (named.size === 0) return undefined;
  const live = await store.list(threadId);
  const keys = live.filter((entry) => named.has(entry.key)).map((entry) => entry.key);
  if (keys.length === 0) return undefined;
  return { type: 'drop', threadId, keys, turnId, reason: 'summarized' };
}
