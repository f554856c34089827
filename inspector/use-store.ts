import { useEffect, useLayoutEffect, useState } from 'preact/hooks';
import type { EvictionRecord, StoredResultInfo, StoreFailure } from '../lib/store/offload-store.js';
import { entryId, threadsOf } from './rows.js';
import type { InspectorSource } from './source.js';
import type { StoreInfo } from './store-info.js';

/** Change notices within this window cause one re-read: a burst of events stays a handful of reads. */
export const RELOAD_BATCH_MS = 50;
/** The same for the origin's storage estimate, which changes little between two events. */
export const INFO_BATCH_MS = 500;

/** Everything the panel shows but stored texts, read at one moment. */
export interface Snapshot {
  entries: StoredResultInfo[];
  evictions: EvictionRecord[];
  failures: StoreFailure[];
  threads: string[];
  /** The store's total per thread. */
  totals: ReadonlyMap<string, number>;
}

export async function loadSnapshot(source: InspectorSource): Promise<Snapshot> {
  const [entries, evictions, failures] = await Promise.all([source.list(), source.evictions(), source.failures()]);
  const threads = threadsOf(entries, evictions, failures);
  const totals = await Promise.all(threads.map((threadId) => source.totalBytes(threadId)));
  return { entries, evictions, failures, threads, totals: new Map(threads.map((id, i) => [id, totals[i] ?? 0])) };
}

export interface SnapshotState {
  snapshot?: Snapshot;
  /** Why the last read failed; cleared by the next good read. */
  error?: string;
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * `load(source)`, run again after changes. Notices are coalesced: the first one schedules a read
 * after `batchMs`, later ones join it, and notices during a read cause one more read. A failed
 * read keeps the last good value.
 */
function useBatchedRead<T>(
  source: InspectorSource,
  load: (source: InspectorSource) => Promise<T>,
  batchMs: number,
): { value?: T; error?: string } {
  const [state, setState] = useState<{ value?: T; error?: string }>({});
  // A layout effect starts the first read before the first paint rather than after it.
  useLayoutEffect(() => {
    let disposed = false;
    let reading = false;
    let again = false;
    let timer: ReturnType<typeof setTimeout> | undefined;

    const read = async () => {
      reading = true;
      again = false;
      try {
        const value = await load(source);
        if (!disposed) setState({ value });
      } catch (error) {
        if (!disposed) setState((previous) => ({ value: previous.value, error: errorMessage(error) }));
      }
      reading = false;
      if (again) schedule();
    };
    const schedule = () => {
      if (disposed) return;
      if (reading) {
        again = true;
        return;
      }
      timer ??= setTimeout(() => {
        timer = undefined;
        void read();
      }, batchMs);
    };

    const stop = source.onChange(schedule);
    void read();
    return () => {
      disposed = true;
      stop();
      clearTimeout(timer);
    };
  }, [source, load, batchMs]);
  return state;
}

/** The source's snapshot, re-read after changes (batched by RELOAD_BATCH_MS). */
export function useSnapshot(source: InspectorSource): SnapshotState {
  const { value, error } = useBatchedRead(source, loadSnapshot, RELOAD_BATCH_MS);
  return { snapshot: value, error };
}

const loadInfo = (source: InspectorSource) => source.info();

/**
 * The bound and the origin's storage, re-read after changes: at most one `estimate()` per
 * INFO_BATCH_MS however many events come. Empty until known; a failed read (a store exposed by
 * an older version, which does not answer) keeps what was known, and is no error to show.
 */
export function useStoreInfo(source: InspectorSource): StoreInfo {
  return useBatchedRead(source, loadInfo, INFO_BATCH_MS).value ?? noInfo;
}

const noInfo: StoreInfo = {};

export type TextState =
  | { status: 'idle' }
  | { status: 'loading' }
  | { status: 'loaded'; text: string }
  | { status: 'failed'; error: string };

/**
 * A stored text, read only when asked for (`target` set), and read again when `version` changes
 * (the entry was replaced or evicted while selected) without blanking what is shown meanwhile.
 */
export function useStoredText(
  source: InspectorSource,
  target: { threadId: string; key: string } | undefined,
  version: number,
): TextState {
  const id = target ? entryId(target.threadId, target.key) : '';
  const [state, setState] = useState<{ id: string; text: TextState }>({ id, text: { status: 'idle' } });
  const threadId = target?.threadId;
  const key = target?.key;
  useEffect(() => {
    if (threadId === undefined || key === undefined) return;
    const forId = entryId(threadId, key);
    let current = true;
    setState((previous) =>
      previous.id === forId && previous.text.status !== 'idle' ? previous : { id: forId, text: { status: 'loading' } },
    );
    source.read(threadId, key).then(
      (text) => current && setState({ id: forId, text: { status: 'loaded', text } }),
      (error: unknown) => current && setState({ id: forId, text: { status: 'failed', error: errorMessage(error) } }),
    );
    return () => {
      current = false;
    };
  }, [source, threadId, key, version]);
  if (!target) return { status: 'idle' };
  return state.id === id ? state.text : { status: 'loading' };
}

/** The current time, refreshed every `everyMs` (for ages). */
export function useNow(everyMs = 10_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}
