import type { StoreFailure, WritableOffloadStore } from '../store/offload-store.js';

/**
 * Records a result that could not be stored (S3). The store is failing already (that is why we are
 * here), so a report that fails too is only logged: the run goes on without it.
 */
export async function reportStoreFailure(store: WritableOffloadStore, failure: StoreFailure): Promise<void> {
  try {
    await store.reportFailure(failure);
  } catch (error) {
    console.warn('ToolOutputOffload: could not report a storage failure', error);
  }
}
