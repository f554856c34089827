import { IndexedDbOffloadStore } from '../store/indexeddb-store.js';
import type { StoreEvent, WritableOffloadStore } from '../store/offload-store.js';

/**
 * The store a ToolOutputOffload uses when none is given: IndexedDB where it exists (pages, workers,
 * extension service workers), else memory (Node, tests). The memory store is loaded only there,
 * on its first call, so a browser app never carries it.
 */
export function defaultOffloadStore(): WritableOffloadStore {
  return typeof indexedDB === 'undefined' ? new LoadedOnFirstCall() : new IndexedDbOffloadStore();
}

type Method = Exclude<keyof WritableOffloadStore, 'subscribe'>;

/** A MemoryOffloadStore imported on the first call; listeners subscribed before it loads are passed on. */
class LoadedOnFirstCall implements WritableOffloadStore {
  #store: Promise<WritableOffloadStore> | undefined;
  readonly #listeners = new Set<(event: StoreEvent) => void>();

  #loaded(): Promise<WritableOffloadStore> {
    this.#store ??= import('../store/memory-store.js').then(({ MemoryOffloadStore }) => {
      const store = new MemoryOffloadStore();
      store.subscribe((event) => {
        for (const listener of this.#listeners) listener(event);
      });
      return store;
    });
    return this.#store;
  }

  #call<M extends Method>(method: M, ...args: Parameters<NonNullable<WritableOffloadStore[M]>>) {
    type Call = (...a: typeof args) => unknown;
    return this.#loaded().then((store) => (store[method] as Call)(...args)) as ReturnType<
      NonNullable<WritableOffloadStore[M]>
    >;
  }

  subscribe(listener: (event: StoreEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  list: WritableOffloadStore['list'] = (...args) => this.#call('list', ...args);
  read: WritableOffloadStore['read'] = (...args) => this.#call('read', ...args);
  readLines: WritableOffloadStore['readLines'] = (...args) => this.#call('readLines', ...args);
  evictions: WritableOffloadStore['evictions'] = (...args) => this.#call('evictions', ...args);
  totalBytes: WritableOffloadStore['totalBytes'] = (...args) => this.#call('totalBytes', ...args);
  failures: WritableOffloadStore['failures'] = (...args) => this.#call('failures', ...args);
  seen: WritableOffloadStore['seen'] = (...args) => this.#call('seen', ...args);
  stage: WritableOffloadStore['stage'] = (...args) => this.#call('stage', ...args);
  apply: WritableOffloadStore['apply'] = (...args) => this.#call('apply', ...args);
  restoreTurn: WritableOffloadStore['restoreTurn'] = (...args) => this.#call('restoreTurn', ...args);
  settle: WritableOffloadStore['settle'] = (...args) => this.#call('settle', ...args);
  reportFailure: WritableOffloadStore['reportFailure'] = (...args) => this.#call('reportFailure', ...args);
  clearThread: WritableOffloadStore['clearThread'] = (...args) => this.#call('clearThread', ...args);
  unreadable = (threadId?: string) => this.#call('unreadable', threadId);
  close = async (): Promise<void> => {
    await (await this.#store)?.close?.();
  };
}
