import { useCallback, useMemo, useState } from 'preact/hooks';
import { Boundary } from './boundary.js';
import { type ThreadContext, useThreadContexts } from './context/cleared-marks.js';
import { ContextTab } from './context/tab.js';
import { EntryDetail, type Selected } from './entries/detail.js';
import { EntryList } from './entries/list.js';
import {
  defaultSort,
  entryId,
  type Filter,
  nextSort,
  recordMatches,
  type Sort,
  visibleEntries,
} from './entries/rows.js';
import { EvictionList, FailureList, UnreadableList } from './evictions/list.js';
import { clip, formatCount, formatCountOf } from './format.js';
import { Gauges } from './gauges/gauge.js';
import { OriginStorage } from './gauges/origin-storage.js';
import { ChangeRegistry } from './source/changes.js';
import type { EntryRow, EvictionRow, FailureRow, UnreadableRow } from './source/records.js';
import type { PanelSource } from './source/source.js';
import { useNow, useSnapshot, useStoreInfo, useUnreadable } from './source/use-store.js';
import { type TabId, Tabs } from './tabs.js';
import { ThreadPicker } from './thread-picker.js';

export interface PanelProps {
  source: PanelSource;
  /** Names the source in the header. */
  label: string;
  /** maxTotalBytes, for the gauges of threads whose bound the source does not report; else the bound `info()` reports, else unknown. */
  bound?: number;
  /** Opens the panel in another window; returns a message when it could not. */
  onPopOut?: () => string | undefined;
  /** Closes the floating panel. */
  onClose?: () => void;
}

function latestEviction(evictions: readonly EvictionRow[], threadId: string, key: string) {
  for (let i = evictions.length - 1; i >= 0; i--) {
    const record = evictions[i]!;
    if (record.threadId === threadId && record.key === key) return record;
  }
  return undefined;
}

/** The entry listed under this thread and key, if any (looked up only for the one selected). */
function liveEntry(entries: readonly EntryRow[], threadId: string, key: string): EntryRow | undefined {
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i]!;
    if (entry.key === key && entry.threadId === threadId) return entry;
  }
  return undefined;
}

/** The step since which the thread's requests show a pointer instead of the result at `path`, if they do. */
function clearedStep(contexts: ReadonlyMap<string, ThreadContext>, threadId: string, path: string): number | undefined {
  return contexts.get(threadId)?.cleared.get(path);
}

/** Each thread's context budget, where its latest request had one. */
function budgetsOf(contexts: ReadonlyMap<string, ThreadContext>): Map<string, number> {
  const budgets = new Map<string, number>();
  for (const [threadId, { budget }] of contexts) if (budget !== undefined) budgets.set(threadId, budget);
  return budgets;
}

/** The records the filter lets through: the list itself when it filters nothing. */
function matching<T extends EvictionRow | FailureRow>(records: readonly T[], filter: Filter): readonly T[] {
  if (filter.threadId === '' && filter.text === '') return records;
  return records.filter((record) => recordMatches(record, filter));
}

/** The unreadable records of the thread filtered on whose store, key, thread or reason hold the text. */
function unreadableMatching(records: readonly UnreadableRow[], filter: Filter): readonly UnreadableRow[] {
  const needle = filter.text.toLowerCase();
  if (filter.threadId === '' && needle === '') return records;
  return records.filter(
    (record) =>
      (filter.threadId === '' || record.threadId === filter.threadId) &&
      [record.store, record.key, record.threadId ?? '', record.reason].some((field) =>
        field.toLowerCase().includes(needle),
      ),
  );
}

/** The inspector: toolbar and filters, gauges, entries / evictions / failures, and the selected entry. */
export function Panel({ source, label, bound, onPopOut, onClose }: PanelProps) {
  // The one subscription to the source, with which every view registers (it listens while one does).
  const changes = useMemo(() => new ChangeRegistry(source), [source]);
  const { snapshot, error, wantTotals } = useSnapshot(source, changes);
  const { contexts, want: wantContexts } = useThreadContexts(source, changes);
  const budgets = useMemo(() => budgetsOf(contexts), [contexts]);
  // The gauges in view want their totals, bounds and budgets.
  const wantGauges = useCallback(
    (threads: readonly string[]) => {
      wantTotals(threads);
      wantContexts(threads);
    },
    [wantTotals, wantContexts],
  );
  const info = useStoreInfo(source, changes);
  const now = useNow();
  const [sort, setSort] = useState<Sort>(defaultSort);
  const [filter, setFilter] = useState<Filter>({ threadId: '', text: '' });
  const [tab, setTab] = useState<TabId>('entries');
  const [selected, setSelected] = useState<Selected>();
  const [message, setMessage] = useState('');

  const entries = snapshot?.entries ?? [];
  const rows = useMemo(() => visibleEntries(entries, filter, sort), [entries, filter, sort]);
  const evictions = useMemo(() => matching(snapshot?.evictions ?? [], filter), [snapshot?.evictions, filter]);
  const failures = useMemo(() => matching(snapshot?.failures ?? [], filter), [snapshot?.failures, filter]);
  const threads = snapshot?.threads ?? [];
  const allUnreadable = useUnreadable(source, changes);
  const unreadable = useMemo(() => unreadableMatching(allUnreadable, filter), [allUnreadable, filter]);
  const tabs: TabId[] = ['entries', 'evictions', 'context'];
  if ((snapshot?.failures.length ?? 0) > 0) tabs.push('failures');
  if (allUnreadable.length > 0) tabs.push('unreadable');
  const view: TabId = tabs.includes(tab) ? tab : 'entries';
  const gaugeThreads = filter.threadId === '' ? threads : threads.filter((id) => id === filter.threadId);
  const selectedId = selected && entryId(selected.threadId, selected.key);

  const selectEntry = (entry: EntryRow) =>
    setSelected({ threadId: entry.threadId, key: entry.key, path: entry.path, entry });
  const selectEviction = (record: EvictionRow) =>
    setSelected({
      threadId: record.threadId,
      key: record.key,
      path: record.path,
      entry: liveEntry(entries, record.threadId, record.key),
      eviction: record,
    });

  return (
    <section class={selected ? 'panel has-detail' : 'panel'} aria-label="Tool output inspector">
      <div class="toolbar" role="toolbar" aria-label="Inspector controls">
        <div class="title">
          <h2>Tool output offload</h2>
          <span class="muted">
            {snapshot
              ? `${formatCountOf(snapshot.entries.length, 'entry', 'entries')} · ${formatCountOf(snapshot.evictions.length, 'eviction', 'evictions')}`
              : 'loading…'}{' '}
            · {label}
          </span>
          <OriginStorage info={info} />
        </div>
        <ThreadPicker
          threads={threads}
          value={filter.threadId}
          onChange={(threadId) => setFilter((current) => ({ ...current, threadId }))}
        />
        <input
          type="search"
          aria-label="Filter by text"
          placeholder="Filter path, tool, preview…"
          value={filter.text}
          onInput={(event) => {
            const text = event.currentTarget.value;
            setFilter((current) => ({ ...current, text }));
          }}
        />
        {onPopOut && (
          <button type="button" onClick={() => setMessage(onPopOut() ?? '')}>
            Pop out
          </button>
        )}
        {onClose && (
          <button type="button" onClick={onClose} aria-label="Close inspector">
            ✕
          </button>
        )}
      </div>
      {message && (
        <div class="status" role="status">
          {message}
        </div>
      )}
      {error && (
        <div class="error" role="alert">
          {clip(error, 2000)}
        </div>
      )}
      {snapshot && snapshot.skipped > 0 && (
        <div class="error" role="alert">
          {formatCount(snapshot.skipped)} {snapshot.skipped === 1 ? 'item' : 'items'} the store listed{' '}
          {snapshot.skipped === 1 ? 'is' : 'are'} not a record (not an object) and not shown.
        </div>
      )}
      {snapshot && (
        <Boundary what="The gauges" retryKey={snapshot}>
          <Gauges
            threads={gaugeThreads}
            totals={snapshot.totals}
            bounds={snapshot.bounds}
            bound={bound ?? info.bound}
            budgets={budgets}
            wantTotals={wantGauges}
          />
        </Boundary>
      )}
      <Tabs
        current={view}
        onChange={setTab}
        counts={{
          entries: rows.length,
          evictions: evictions.length,
          failures: failures.length,
          unreadable: unreadable.length,
        }}
        tabs={tabs}
      />
      <div class="body">
        <div class="tabpanel" role="tabpanel" id={`panel-${view}`} aria-labelledby={`tab-${view}`}>
          <Boundary what={`The ${view} list`} retryKey={snapshot}>
            {!snapshot ? (
              <p class="empty">{error ? 'Could not read the store.' : 'Loading…'}</p>
            ) : view === 'entries' ? (
              <EntryList
                rows={rows}
                sort={sort}
                onSort={(column) => setSort((current) => nextSort(current, column))}
                selectedId={selectedId}
                onSelect={selectEntry}
                now={now}
                total={entries.length}
                clearedSince={(entry) => clearedStep(contexts, entry.threadId, entry.path)}
                onThreadsInView={wantContexts}
              />
            ) : view === 'evictions' ? (
              <EvictionList
                evictions={evictions}
                now={now}
                onOpen={selectEviction}
                clearedSince={(record) => clearedStep(contexts, record.threadId, record.path)}
                onThreadsInView={wantContexts}
              />
            ) : view === 'context' ? (
              <ContextTab
                source={source}
                changes={changes}
                threadId={filter.threadId}
                entries={entries}
                evictions={snapshot.evictions}
                now={now}
                onOpenEntry={selectEntry}
                onOpenEviction={selectEviction}
              />
            ) : view === 'failures' ? (
              <FailureList failures={failures} now={now} />
            ) : (
              <UnreadableList records={unreadable} />
            )}
          </Boundary>
        </div>
        {selected && (
          <Boundary what="The selected entry" retryKey={snapshot}>
            <EntryDetail
              source={source}
              selected={selected}
              live={liveEntry(entries, selected.threadId, selected.key)}
              eviction={snapshot && latestEviction(snapshot.evictions, selected.threadId, selected.key)}
              now={now}
              clearedSince={clearedStep(contexts, selected.threadId, selected.path)}
              onClose={() => setSelected(undefined)}
            />
          </Boundary>
        )}
      </div>
    </section>
  );
}
