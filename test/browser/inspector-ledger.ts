import { MemoryOffloadStore } from '../../lib/store/memory-store.js';
import type { ClearedResult, RequestRecord } from '../../lib/store/offload-store.js';

/**
 * A MemoryOffloadStore whose thread records model requests as an offload's fitContext does
 * (`recordRequest`: the ledger record and the results it cleared), so the store numbers the step
 * and tells its 'request' event.
 */
export class LedgerStore extends MemoryOffloadStore {
  /** Records the thread's next model request, fitted to `budget` when given, clearing the results of `cleared` (keys). */
  async request(threadId: string, { budget, cleared = [] }: { budget?: number; cleared?: string[] } = {}) {
    const { threadId: _thread, step: _step, at: _at, ...fields } = record(threadId, 1, budget);
    return this.recordRequest({
      threadId,
      at: Date.now(),
      record: fields,
      cleared: cleared.map((key) => {
        const { threadId: _t, step: _s, at: _a, ...rest } = clearedRecord(threadId, key, 1);
        return rest;
      }),
    });
  }
}

export function record(threadId: string, step: number, budget?: number): RequestRecord {
  return {
    threadId,
    step,
    at: Date.now(),
    tokens: 5000,
    tokensWithoutOffload: 90_000,
    ...(budget === undefined ? {} : { budget }),
    parts: { system: 1000, messages: 1000, whole: 1000, previews: 1000, pointers: 1000, cut: 0 },
    results: [],
  };
}

export function clearedRecord(threadId: string, key: string, step: number): ClearedResult {
  return {
    threadId,
    toolCallId: `call-${key}`,
    toolName: 'fetch_orders',
    path: `/large_tool_results/${key}`,
    pointer: `[Cleared from context] stored at /large_tool_results/${key}.`,
    tokens: 4000,
    step,
    at: Date.now(),
  };
}
