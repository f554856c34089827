import type { WritableOffloadStore } from '../../lib/store/offload-store.js';
import { result } from './fixtures/staged-result.js';

export { result };

/**
 * A built-in store's variant for the store contract (`storeContract` in lib/testing/store-contract.ts)
 * and the suites built like it (offload-result-contract.ts): how to open and free one, and how to
 * make its writes fail as a full disk would.
 */
export interface ContractStores {
  open(): Promise<WritableOffloadStore>;
  /** Frees what `open` made (e.g. deletes the database). */
  dispose(store: WritableOffloadStore): Promise<void>;
  /**
   * Makes the next `times` commits fail with a QuotaExceededError, as a full disk would (only
   * writes of live entries fail, so evictions still go through); returns how to stop.
   */
  failCommits(times: number): () => void;
  /**
   * Makes each failure record's write fail right after it is made, so the atomic unit recording it
   * fails and is rolled back; returns how to stop.
   */
  failFailureWrites(): () => void;
  /** The `logRetention` the stores were opened with (default 1,000). */
  logRetention?: number;
}

/** Stages and commits one result. */
export async function put(
  store: WritableOffloadStore,
  threadId: string,
  key: string,
  text: string,
  turnId = 't1',
  max = 100,
) {
  await store.stage(result(threadId, key, text, turnId));
  return store.apply({ type: 'commit', threadId, key, turnId, maxTotalBytes: max });
}
