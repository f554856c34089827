import { useEffect, useState } from 'preact/hooks';
import { ClearedMark } from '../context/cleared-mark.js';
import { clip, formatBytes, formatCount, formatTime, isoTime } from '../format.js';
import { ProblemMark } from '../problem-mark.js';
import type { EvictionRow, FailureRow, UnreadableRow } from '../source/records.js';

/** Records shown at first, and added by each "Show older": the timeline's DOM stays small. */
const TIMELINE_PAGE = 200;

function useShown<T>(records: readonly T[]): { shown: T[]; more: () => void; hidden: number } {
  const [limit, setLimit] = useState(TIMELINE_PAGE);
  // Newest first: the end of an oldest-first log.
  const shown = records.slice(Math.max(0, records.length - limit)).reverse();
  return { shown, more: () => setLimit(limit + TIMELINE_PAGE), hidden: records.length - shown.length };
}

function ShowOlder({ hidden, more }: { hidden: number; more: () => void }) {
  if (hidden === 0) return null;
  return (
    <button type="button" class="more" onClick={more}>
      Show older ({formatCount(hidden)} more)
    </button>
  );
}

interface PathButtonProps {
  path: string;
  threadId: string;
  /** The tool whose result it was; absent in records logged before evictions named it. */
  toolName: string | undefined;
  onOpen(): void;
  /** The step since which it is cleared from its thread's requests, if it is. */
  cleared?: number | undefined;
}

function PathButton({ path, threadId, toolName, onOpen, cleared }: PathButtonProps) {
  return (
    <span>
      <button type="button" onClick={onOpen} title="Show details">
        {clip(path)}
      </button>{' '}
      {toolName === undefined ? null : (
        <>
          <span class="tool-name" title="Tool">
            {clip(toolName, 80)}
          </span>{' '}
        </>
      )}
      <span class="muted">{clip(threadId)}</span>
      {cleared !== undefined && (
        <>
          {' '}
          <ClearedMark step={cleared} />
        </>
      )}
    </span>
  );
}

/** When a record happened: its time, or "invalid date" (no `datetime` then). */
function When({ at, now }: { at: number; now: number }) {
  return (
    <time class="muted" dateTime={isoTime(at)}>
      {formatTime(at, now)}
    </time>
  );
}

/** A class name for the reason's colour: only the reasons this version knows get their own. */
const knownReasons = new Set(['bound', 'quota', 'summarized', 'blocked', 'replaced', 'expired', 'cleared']);
const reasonClass = (reason: string) => `reason reason-${knownReasons.has(reason) ? reason : 'other'}`;

/** The eviction log as a timeline, newest first: time, reason, path and tool, bytes. */
export function EvictionList({
  evictions,
  now,
  onOpen,
  clearedSince,
  onThreadsInView,
}: {
  evictions: readonly EvictionRow[];
  now: number;
  onOpen(record: EvictionRow): void;
  /** The step since which the evicted result is cleared from its thread's requests, if it is (C2: its pointer stays). */
  clearedSince?(record: EvictionRow): number | undefined;
  /** Told the threads of the records shown, so their cleared results are read. */
  onThreadsInView?(threads: readonly string[]): void;
}) {
  const { shown, more, hidden } = useShown(evictions);
  const threads = [...new Set(shown.map((record) => record.threadId))];
  const threadsKey = threads.join('\u0000');
  useEffect(() => onThreadsInView?.(threads), [threadsKey, onThreadsInView]);
  if (evictions.length === 0) return <p class="empty">No evictions yet.</p>;
  return (
    <>
      <ol class="timeline" aria-label="Evictions, newest first">
        {shown.map((record) => (
          <li class="event" key={`${record.threadId}\u0000${record.key}\u0000${record.at}\u0000${record.reason}`}>
            <When at={record.at} now={now} />
            <span class={reasonClass(record.reason)}>
              <ProblemMark problems={record.problems} />
              {clip(record.reason, 40) || '—'}
            </span>
            <PathButton
              path={record.path}
              threadId={record.threadId}
              toolName={record.toolName}
              onOpen={() => onOpen(record)}
              cleared={clearedSince?.(record)}
            />
            <span class="num">{formatBytes(record.bytes)}</span>
          </li>
        ))}
      </ol>
      <ShowOlder hidden={hidden} more={more} />
    </>
  );
}

/** Results the store could not keep (e.g. a full quota): the tool result was cut instead. */
export function FailureList({ failures, now }: { failures: readonly FailureRow[]; now: number }) {
  const { shown, more, hidden } = useShown(failures);
  if (failures.length === 0) return <p class="empty">Every result was stored.</p>;
  return (
    <>
      <ol class="timeline" aria-label="Results that could not be stored, newest first">
        {shown.map((failure) => (
          <li class="event" key={`${failure.threadId}\u0000${failure.key}\u0000${failure.at}`}>
            <When at={failure.at} now={now} />
            <span class="reason reason-failed">
              <ProblemMark problems={failure.problems} />
              not stored
            </span>
            <span>
              <span class="mono">{clip(failure.path)}</span> <span class="muted">{clip(failure.threadId)}</span>{' '}
              <span class="muted">{clip(failure.toolName)}</span>
              <br />
              <span class="error-text">{clip(failure.error, 2000)}</span>
            </span>
            <span class="num">{formatBytes(failure.bytes)}</span>
          </li>
        ))}
      </ol>
      <ShowOlder hidden={hidden} more={more} />
    </>
  );
}

/** Records the store skipped as malformed (another script, an older app, a disk fault wrote them). */
export function UnreadableList({ records }: { records: readonly UnreadableRow[] }) {
  const { shown, more, hidden } = useShown(records);
  if (records.length === 0) return <p class="empty">Every record was readable.</p>;
  return (
    <>
      <ol class="timeline" aria-label="Records the store could not read">
        {shown.map((record, index) => (
          <li class="event" key={`${record.store}\u0000${record.key}\u0000${index}`}>
            <span class="muted">{clip(record.store, 40)}</span>
            <span class="reason reason-failed">unreadable</span>
            <span>
              <span class="mono">{clip(record.key)}</span>{' '}
              <span class="muted">{record.threadId === undefined ? 'no thread' : clip(record.threadId)}</span>
              <br />
              <span class="error-text">{clip(record.reason, 2000)}</span>
            </span>
            <span />
          </li>
        ))}
      </ol>
      <ShowOlder hidden={hidden} more={more} />
    </>
  );
}
