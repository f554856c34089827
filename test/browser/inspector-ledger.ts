import { MemoryOffloadStore } from '../../lib/store/memory-store.js';
import type { ClearedResult, RequestRecord, StoreEvent } from '../../lib/store/offload-store.js';

/**
 * A custom store that keeps a context ledger and cleared records beside MemoryOffloadStore's
 * entries (the optional `requests` and `cleared` reads of OffloadStore), and tells a 'request'
 * event for each model request it records, as the store contract says.
 */
export class LedgerStore extends MemoryOffloadStore {
  readonly ledger: unknown[] = [];
  readonly clearedRecords: unknown[] = [];
  readonly #listeners = new Set<(event: StoreEvent) => void>();

  override subscribe(listener: (event: StoreEvent) => void): () => void {
    const stop = super.subscribe(listener);
    this.#listeners.add(listener);
    return () => {
      stop();
      this.#listeners.delete(listener);
    };
  }

  async cleared(threadId: string): Promise<ClearedResult[]> {
    return this.clearedRecords.filter((r) => (r as ClearedResult).threadId === threadId) as ClearedResult[];
  }

  async requests(threadId: string): Promise<RequestRecord[]> {
    return this.ledger.filter((r) => (r as RequestRecord).threadId === threadId) as RequestRecord[];
  }

  /** Records the thread's next model request, with the results it cleared, and tells it. */
  request(threadId: string, { budget, cleared = [] }: { budget?: number; cleared?: string[] } = {}): void {
    const step = this.ledger.filter((r) => (r as RequestRecord).threadId === threadId).length + 1;
    this.ledger.push(record(threadId, step, budget));
    for (const key of cleared) this.clearedRecords.push(clearedRecord(threadId, key, step));
    const event = { type: 'request', threadId, step, tokens: 5000 } as unknown as StoreEvent;
    for (const listener of [...this.#listeners]) listener(event);
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
