import { useMemo, useState } from 'preact/hooks';
import { clip, formatCount, formatTime, isoTime } from '../format.js';
import type { ChangeRegistry } from '../source/changes.js';
import type { EntryRow, EvictionRow } from '../source/records.js';
import type { PanelSource } from '../source/source.js';
import { ContextChart, stepLabel } from './chart.js';
import { useLedger } from './ledger.js';
import { type LedgerRecord, PARTS, type ReportedSummary, SHOWN_AS, summarizeReported } from './records.js';

/** How an app gets its requests recorded: the offload writes the ledger only with the context ledger piece. */
const ledgerHow =
  "An offload records each model request only with the context ledger: new ToolOutputOffload({ ledger: contextLedger }), contextLedger imported from 'tool-output-offload/context'.";

interface ContextTabProps {
  source: PanelSource;
  /** The panel's changes, which the ledger's reader registers with. */
  changes: ChangeRegistry;
  /** The thread picked in the panel's thread filter; '' for none (the thread of the newest request is shown). */
  threadId: string;
  /** Every thread's entries and evictions, as the panel holds them: what a result's path links to. */
  entries: readonly EntryRow[];
  evictions: readonly EvictionRow[];
  now: number;
  /** Selects an entry in the panel (its detail opens), as the other lists link to entries. */
  onOpenEntry(entry: EntryRow): void;
  /** Selects an evicted entry by its latest eviction. */
  onOpenEviction(record: EvictionRow): void;
}

/** A tool result's list item shows at most this many results of a step at first. */
const RESULTS_SHOWN = 200;

const storedId = (threadId: string, path: string) => `${threadId}\u0000${path}`;

/** The threads the panel knows of, most recently active first (the newest entry or eviction). */
function byActivity(entries: readonly EntryRow[], evictions: readonly EvictionRow[]): string[] {
  const latest = new Map<string, number>();
  const see = (threadId: string, at: number) => {
    const known = latest.get(threadId);
    const time = Number.isNaN(at) ? Number.NEGATIVE_INFINITY : at;
    if (known === undefined || time > known) latest.set(threadId, time);
  };
  for (const entry of entries) see(entry.threadId, entry.createdAt);
  for (const record of evictions) see(record.threadId, record.at);
  return [...latest].sort((a, b) => b[1] - a[1]).map(([threadId]) => threadId);
}

function Legend() {
  return (
    <ul class="ctx-legend" aria-label="Legend">
      {PARTS.map(({ id, label }) => (
        <li key={id}>
          <span class={`ctx-swatch ctx-${id}`} aria-hidden="true" />
          {label}
        </li>
      ))}
      <li>
        <span class="ctx-swatch ctx-line-without" aria-hidden="true" />
        without the offload
      </li>
      <li>
        <span class="ctx-swatch ctx-line-budget" aria-hidden="true" />
        budget
      </li>
      <li>
        <span class="ctx-swatch ctx-line-reported" aria-hidden="true" />
        reported by the provider
      </li>
      <li>
        <span class="ctx-swatch ctx-cached-swatch" aria-hidden="true" />
        read from its cache
      </li>
    </ul>
  );
}

const percent = (share: number) => `${formatCount(Math.round(share * 1000) / 10)}%`;
const signed = (share: number) => `${share >= 0 ? '+' : '−'}${percent(Math.abs(share))}`;

/** The thread in the provider's counts: how far the estimate was off, how much its cache served, the factor used. */
function ReportedLine({ summary, requests }: { summary: ReportedSummary; requests: number }) {
  return (
    <p class="ctx-summary">
      Reported by the provider for {formatCount(summary.reported)} of {formatCount(requests)} requests: it counted{' '}
      {signed(summary.estimateError)} against the estimate
      {summary.cacheReadShare === undefined
        ? ''
        : ` · ${percent(summary.cacheReadShare)} of its input read from its cache`}
      {summary.calibration === undefined ? '' : ` · budget calibrated ×${formatCount(summary.calibration)}`}
    </p>
  );
}

interface StepDetailProps {
  record: LedgerRecord;
  now: number;
  live: ReadonlyMap<string, EntryRow>;
  evicted: ReadonlyMap<string, EvictionRow>;
  onOpenEntry(entry: EntryRow): void;
  onOpenEviction(record: EvictionRow): void;
}

/** One step: its tokens by part, and each tool result it carried, how it was shown, linking to its entry. */
function StepDetail({ record, now, live, evicted, onOpenEntry, onOpenEviction }: StepDetailProps) {
  const [all, setAll] = useState<number | undefined>(undefined);
  const results = all === record.step ? record.results : record.results.slice(0, RESULTS_SHOWN);
  return (
    <section class="ctx-detail" aria-label={`Step ${formatCount(record.step)}`}>
      <h3>
        {stepLabel(record)}{' '}
        <span class="muted">
          · without the offload {formatCount(record.tokensWithoutOffload)}
          {record.budget === undefined ? '' : ` · budget ${formatCount(record.budget)}`}
          {record.calibration === undefined ? '' : ` (calibrated ×${formatCount(record.calibration)})`}
          {record.reported === undefined
            ? ''
            : ` · reported ${formatCount(record.reported.inputTokens)}${
                record.reported.cachedInputTokens === undefined
                  ? ''
                  : ` (cached ${formatCount(record.reported.cachedInputTokens)})`
              }`}{' '}
          · <time dateTime={isoTime(record.at)}>{formatTime(record.at, now)}</time>
        </span>
      </h3>
      <p class="ctx-parts">
        {PARTS.map(({ id, label }) => (
          <span key={id}>
            <span class={`ctx-swatch ctx-${id}`} aria-hidden="true" />
            {label} {formatCount(record.parts[id])}
          </span>
        ))}
      </p>
      {record.results.length === 0 ? (
        <p class="empty">No tool result in this request.</p>
      ) : (
        <ol class="ctx-results" aria-label={`Tool results of step ${formatCount(record.step)}`}>
          {results.map((result, index) => {
            const id = result.path === undefined ? undefined : storedId(record.threadId, result.path);
            const entry = id === undefined ? undefined : live.get(id);
            const eviction = id === undefined || entry ? undefined : evicted.get(id);
            return (
              <li key={`${result.toolCallId}\u0000${index}`} class="ctx-result">
                <span class="tool-name">{clip(result.toolName, 80)}</span>
                <span class={`ctx-shown ctx-shown-${result.shownAs}`}>{SHOWN_AS.get(result.shownAs)}</span>
                <span class="num">{formatCount(result.tokens)} tokens</span>
                {result.path === undefined ? (
                  <span class="muted">not stored</span>
                ) : entry ? (
                  <button type="button" class="ctx-link" title="Show the entry" onClick={() => onOpenEntry(entry)}>
                    {clip(result.path)}
                  </button>
                ) : eviction ? (
                  // Told apart from a live path before it is clicked: struck through, and said in words.
                  <span class="ctx-path">
                    <button
                      type="button"
                      class="ctx-link ctx-link-evicted"
                      title="Show the entry (evicted)"
                      onClick={() => onOpenEviction(eviction)}
                    >
                      {clip(result.path)}
                    </button>
                    <span class="muted">(evicted)</span>
                  </span>
                ) : (
                  <span class="mono" title="Not in the store's lists">
                    {clip(result.path)} <span class="muted">(not in the store)</span>
                  </span>
                )}
              </li>
            );
          })}
        </ol>
      )}
      {results.length < record.results.length && (
        <button type="button" class="more" onClick={() => setAll(record.step)}>
          Show all {formatCount(record.results.length)} results
        </button>
      )}
    </section>
  );
}

/**
 * The Context tab: what each model request of a thread carried (the store's context ledger),
 * one bar per step, and the tool results of the step hovered or selected.
 */
export function ContextTab({
  source,
  changes,
  threadId,
  entries,
  evictions,
  now,
  onOpenEntry,
  onOpenEviction,
}: ContextTabProps) {
  const candidates = useMemo(
    () => (threadId === '' ? byActivity(entries, evictions) : []),
    [threadId, entries, evictions],
  );
  const state = useLedger(source, changes, threadId, candidates);
  /** The selected step, by number; undefined: the newest (and it follows new steps). */
  const [picked, setPicked] = useState<{ threadId: string; step: number } | undefined>(undefined);
  const [hovered, setHovered] = useState<number | undefined>(undefined);
  const live = useMemo(() => new Map(entries.map((entry) => [storedId(entry.threadId, entry.path), entry])), [entries]);
  // The latest eviction of each path (the log is oldest first).
  const evicted = useMemo(
    () => new Map(evictions.map((record) => [storedId(record.threadId, record.path), record])),
    [evictions],
  );

  const ledger = state.status === 'ready' ? state.ledger : undefined;
  const records = ledger?.records ?? noRecords;
  // Summed when the ledger changes, not at each hover: a thread may hold 10,000 records.
  const summary = useMemo(() => summarizeReported(records), [records]);
  const active = useMemo(() => {
    if (!picked || picked.threadId !== ledger?.threadId) return records.length - 1;
    const index = records.findIndex((record) => record.step === picked.step);
    return index >= 0 ? index : records.length - 1;
  }, [records, picked, ledger?.threadId]);

  if (state.status === 'loading') return <p class="empty">Reading the context ledger…</p>;
  if (state.status === 'no-ledger') {
    return (
      <p class="empty">
        This store keeps no context ledger (it has no requests() method): nothing to show. The built-in stores keep one.
      </p>
    );
  }
  if (state.status === 'no-thread') {
    return (
      <p class="empty">
        No model request recorded yet (a thread shows here once it stores a result or makes a model request).{' '}
        {ledgerHow}
      </p>
    );
  }
  if (state.status === 'failed') {
    return (
      <p class="error" role="alert">
        Could not read the context ledger: {clip(state.error, 2000)}
      </p>
    );
  }
  const shownThread = state.ledger.threadId;
  const shown = records[hovered ?? active];
  return (
    <div class="ctx">
      <div class="ctx-head">
        <span>
          Thread <span class="mono">{clip(shownThread, 120)}</span> ·{' '}
          {records.length === 1 ? '1 model request' : `${formatCount(records.length)} model requests`}
          {threadId === '' && <span class="muted"> (the newest request's thread; pick one in the thread filter)</span>}
        </span>
        <Legend />
      </div>
      {summary && <ReportedLine summary={summary} requests={records.length} />}
      {state.error && (
        <p class="error" role="alert">
          Could not read the newest steps: {clip(state.error, 2000)}
        </p>
      )}
      {state.ledger.dropped > 0 && (
        <p class="error" role="alert">
          {formatCount(state.ledger.dropped)} {state.ledger.dropped === 1 ? 'record' : 'records'} of the ledger{' '}
          {state.ledger.dropped === 1 ? 'is' : 'are'} malformed and not shown.
        </p>
      )}
      {records.length === 0 ? (
        <p class="empty">No model request recorded in this thread yet. {ledgerHow}</p>
      ) : (
        <>
          <ContextChart
            records={records}
            active={active}
            threadId={clip(shownThread, 120)}
            onSelect={(index) => {
              const record = records[index];
              if (record) setPicked({ threadId: shownThread, step: record.step });
            }}
            onHover={setHovered}
          />
          {shown && (
            <StepDetail
              record={shown}
              now={now}
              live={live}
              evicted={evicted}
              onOpenEntry={onOpenEntry}
              onOpenEviction={onOpenEviction}
            />
          )}
        </>
      )}
    </div>
  );
}

const noRecords: readonly LedgerRecord[] = [];
