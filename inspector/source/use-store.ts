import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { entryId } from '../entries/rows.js';
import { ALL_BUT_REQUESTS, type ChangeRegistry } from './changes.js';
import { toRows, toUnreadableRow, type UnreadableRow } from './records.js';
import { errorMessage, SnapshotReader, type SnapshotState } from './snapshot.js';
import type { PanelSource } from './source.js';
import type { StoreInfo } from './store-info.js';

/** The origin's storage estimate changes little between two events: read it at most this often. */
const INFO_BATCH_MS = 500;

/** What changed since the last read: the threads the changes named, or 'all' (the first read, or a change that named none). */
type Changed = ReadonlySet<string> | 'all';

/**
 * `load(source, changed, last)`, run again after changes (but a model request recorded, which
 * changes neither the origin's storage nor the unreadable records), at most once per `batchMs`:
 * the panel's registry batches them. A failed read keeps the last good value.
 */
function useBatchedRead<T>(
  source: PanelSource,
  changes: ChangeRegistry,
  load: (source: PanelSource, changed: Changed, last: T | undefined) => Promise<T>,
  batchMs: number,
): { value?: T; error?: string } {
  const [state, setState] = useState<{ value?: T; error?: string }>({});
  // A layout effect starts the first read before the first paint rather than after it.
  useLayoutEffect(() => {
    let disposed = false;
    let changed: Set<string> | 'all' = 'all';
    let last: T | undefined;
    const registration = changes.register({
      types: ALL_BUT_REQUESTS,
      batchMs,
      hear(heard) {
        if (!heard) changed = 'all';
        else if (changed !== 'all') for (const { threadId } of heard) changed.add(threadId);
        return true;
      },
      async read() {
        const asked = changed;
        changed = new Set();
        try {
          last = await load(source, asked, last);
          if (!disposed) setState({ value: last });
        } catch (error) {
          if (!disposed) setState((previous) => ({ value: previous.value, error: errorMessage(error) }));
        }
      },
    });
    registration.schedule(true);
    return () => {
      disposed = true;
      registration.stop();
    };
  }, [source, changes, load, batchMs]);
  return state;
}

/**
 * The source's snapshot, kept current by a SnapshotReader (which reads only what changed), and
 * `wantTotals` for the gauges in view.
 */
export function useSnapshot(
  source: PanelSource,
  changes: ChangeRegistry,
): SnapshotState & { wantTotals(threads: readonly string[]): void } {
  const [state, setState] = useState<SnapshotState>({});
  const reader = useRef<SnapshotReader | undefined>(undefined);
  // A layout effect starts the first read before the first paint rather than after it.
  useLayoutEffect(() => {
    const current = new SnapshotReader(source, setState);
    reader.current = current;
    current.start(changes);
    return () => current.stop();
  }, [source, changes]);
  const wantTotals = useCallback((threads: readonly string[]) => reader.current?.wantTotals(threads), []);
  return { ...state, wantTotals };
}

const loadInfo = (source: PanelSource) => source.info();

/**
 * The bound and the origin's storage, re-read after changes: at most one `estimate()` per
 * INFO_BATCH_MS however many events come. Empty until known; a failed read (a store exposed by
 * an older version, which does not answer) keeps what was known, and is no error to show.
 */
export function useStoreInfo(source: PanelSource, changes: ChangeRegistry): StoreInfo {
  return useBatchedRead(source, changes, loadInfo, INFO_BATCH_MS).value ?? noInfo;
}

const noInfo: StoreInfo = {};

/** Unreadable records are read at most this often: IndexedDbOffloadStore finds them by checking every record. */
export const UNREADABLE_BATCH_MS = 2000;

/** Changed threads whose unreadable records are read one by one at most; more read every thread's. */
const MAX_THREAD_READS = 16;

const unreadableRows = async (source: PanelSource, threadId?: string) =>
  toRows(await source.unreadable(threadId), toUnreadableRow).rows;

/**
 * The unreadable records: every thread's at first, then those of the changed threads in place of
 * what was known of them (a change alters only its own thread's records: a clear deletes them, a
 * write replaces them).
 */
async function loadUnreadable(
  source: PanelSource,
  changed: Changed,
  last: readonly UnreadableRow[] | undefined,
): Promise<readonly UnreadableRow[]> {
  if (!last || changed === 'all' || changed.size > MAX_THREAD_READS) return unreadableRows(source);
  const fresh = await Promise.all(
    // A store exposed by an older version answers with every thread's: keep the one asked for.
    [...changed].map(async (threadId) =>
      (await unreadableRows(source, threadId)).filter((row) => row.threadId === threadId),
    ),
  );
  return [...last.filter((row) => row.threadId === undefined || !changed.has(row.threadId)), ...fresh.flat()];
}

/**
 * The records the store skipped as malformed: all of them at mount, then those of the threads that
 * changed, at most once every UNREADABLE_BATCH_MS. A store exposed by an older version does not
 * answer: none shown.
 */
export function useUnreadable(source: PanelSource, changes: ChangeRegistry): readonly UnreadableRow[] {
  return useBatchedRead(source, changes, loadUnreadable, UNREADABLE_BATCH_MS).value ?? noRecords;
}

const noRecords: readonly UnreadableRow[] = [];

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
  source: PanelSource,
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
