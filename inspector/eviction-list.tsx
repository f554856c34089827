import { useState } from 'preact/hooks';
import type { EvictionRecord, StoreFailure } from '../lib/store/offload-store.js';
import { formatBytes, formatCount, formatTime } from './format.js';

/** Records shown at first, and added by each "Show older": the timeline's DOM stays small. */
export const TIMELINE_PAGE = 200;

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
  onOpen(): void;
}

function PathButton({ path, threadId, onOpen }: PathButtonProps) {
  return (
    <span>
      <button type="button" onClick={onOpen} title="Show details">
        {path}
      </button>{' '}
      <span class="muted">{threadId}</span>
    </span>
  );
}

/** The eviction log as a timeline, newest first: time, reason, path, bytes. */
export function EvictionList({
  evictions,
  now,
  onOpen,
}: {
  evictions: readonly EvictionRecord[];
  now: number;
  onOpen(record: EvictionRecord): void;
}) {
  const { shown, more, hidden } = useShown(evictions);
  if (evictions.length === 0) return <p class="empty">No evictions yet.</p>;
  return (
    <>
      <ol class="timeline" aria-label="Evictions, newest first">
        {shown.map((record) => (
          <li class="event" key={`${record.threadId}\u0000${record.key}\u0000${record.at}\u0000${record.reason}`}>
            <time class="muted" dateTime={new Date(record.at).toISOString()}>
              {formatTime(record.at, now)}
            </time>
            <span class={`reason reason-${record.reason}`}>{record.reason}</span>
            <PathButton path={record.path} threadId={record.threadId} onOpen={() => onOpen(record)} />
            <span class="num">{formatBytes(record.bytes)}</span>
          </li>
        ))}
      </ol>
      <ShowOlder hidden={hidden} more={more} />
    </>
  );
}

/** Results the store could not keep (e.g. a full quota): the tool result was cut instead. */
export function FailureList({ failures, now }: { failures: readonly StoreFailure[]; now: number }) {
  const { shown, more, hidden } = useShown(failures);
  if (failures.length === 0) return <p class="empty">Every result was stored.</p>;
  return (
    <>
      <ol class="timeline" aria-label="Results that could not be stored, newest first">
        {shown.map((failure) => (
          <li class="event" key={`${failure.threadId}\u0000${failure.key}\u0000${failure.at}`}>
            <time class="muted" dateTime={new Date(failure.at).toISOString()}>
              {formatTime(failure.at, now)}
            </time>
            <span class="reason reason-failed">not stored</span>
            <span>
              <span class="mono">{failure.path}</span> <span class="muted">{failure.threadId}</span>{' '}
              <span class="muted">{failure.toolName}</span>
              <br />
              <span class="error-text">{failure.error}</span>
            </span>
            <span class="num">{formatBytes(failure.bytes)}</span>
          </li>
        ))}
      </ol>
      <ShowOlder hidden={hidden} more={more} />
    </>
  );
}
