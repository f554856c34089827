import { useEffect, useId, useMemo, useRef, useState } from 'preact/hooks';
import { Boundary } from '../boundary.js';
import { ClearedMark } from '../context/cleared-mark.js';
import { clip, formatAge, formatBytes, formatCount, isoTime } from '../format.js';
import { ProblemMark } from '../problem-mark.js';
import type { EntryRow } from '../source/records.js';
import { ROW_HEIGHT } from '../styles.js';
import { useVirtualizer } from '../use-virtualizer.js';
import { PathText } from './path-text.js';
import { type ColumnId, columns, entryId, type Sort } from './rows.js';

interface EntryListProps {
  rows: readonly EntryRow[];
  sort: Sort;
  onSort(column: ColumnId): void;
  selectedId: string | undefined;
  onSelect(entry: EntryRow): void;
  now: number;
  /** Total entries before filtering, to say why the list is empty. */
  total: number;
  /** The step since which the entry's result is cleared from the thread's requests; undefined when it is not. */
  clearedSince?(entry: EntryRow): number | undefined;
  /** Told the threads of the rows in view, so their cleared results are read. */
  onThreadsInView?(threads: readonly string[]): void;
}

/** A text cell: clipped, so a huge field stays one cheap line. */
function TextCell({ text, mono }: { text: string; mono?: boolean }) {
  const shown = clip(text);
  return (
    <td class={mono ? 'cell mono' : 'cell'} title={shown}>
      {shown}
    </td>
  );
}

function Cells({ entry, now, cleared }: { entry: EntryRow; now: number; cleared: number | undefined }) {
  const stored = entry.truncated
    ? `${formatBytes(entry.bytes)} of ${formatBytes(entry.originalBytes)}`
    : formatBytes(entry.bytes);
  return (
    <>
      <td class="cell mono path-cell">
        <ProblemMark problems={entry.problems} />
        <PathText path={entry.path} />
        {cleared !== undefined && <ClearedMark step={cleared} short />}
      </td>
      <TextCell text={entry.threadId} />
      <TextCell text={entry.toolName} />
      <td class="cell num" title={stored}>
        {stored}
      </td>
      <td class="cell num">{formatCount(entry.estimatedTokens)}</td>
      <td class={entry.truncated ? 'cell cut' : 'cell muted'}>{entry.truncated ? 'cut' : 'no'}</td>
      <td class="cell num" title={isoTime(entry.createdAt) ?? 'no valid time'}>
        {formatAge(entry.createdAt, now)}
      </td>
    </>
  );
}

/** A row that failed to render says so in its place; the other rows are not affected. */
function rowFailed(message: string) {
  return (
    <td class="cell error-text" colSpan={columns.length}>
      This row could not be shown: {message}
    </td>
  );
}

/** Keys that move the active row, as a function of the row count in view. */
function moveFor(key: string, page: number): ((index: number, last: number) => number) | undefined {
  switch (key) {
    case 'ArrowDown':
      return (index, last) => Math.min(last, index + 1);
    case 'ArrowUp':
      return (index) => Math.max(0, index - 1);
    case 'PageDown':
      return (index, last) => Math.min(last, index + page);
    case 'PageUp':
      return (index) => Math.max(0, index - page);
    case 'Home':
      return () => 0;
    case 'End':
      return (_index, last) => last;
  }
  return undefined;
}

/**
 * The entries table: sortable headers, virtualized rows. The grid holds focus and points at the
 * active row (aria-activedescendant): arrows, Page Up/Down, Home/End move it; Enter selects.
 */
export function EntryList({
  rows,
  sort,
  onSort,
  selectedId,
  onSelect,
  now,
  total,
  clearedSince,
  onThreadsInView,
}: EntryListProps) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const gridRef = useRef<HTMLTableElement>(null);
  const idPrefix = useId();
  // The active row is an entry (threadId + key), not a position: it follows its entry when live
  // updates, sorting or filtering move it. Starting on the selection keeps the two on one row.
  const [activeId, setActiveId] = useState(selectedId);
  // Where the active entry was last seen: while the filter hides it (or once it is gone), the
  // keys start from there, and it is active again when it returns.
  const lastIndex = useRef(0);
  const virtualizer = useVirtualizer(rows.length, ROW_HEIGHT, scrollRef, ROW_HEIGHT);
  const found = useMemo(
    () => (activeId === undefined ? -1 : rows.findIndex((row) => entryId(row.threadId, row.key) === activeId)),
    [rows, activeId],
  );
  if (found >= 0) lastIndex.current = found;
  const activeIndex = found >= 0 ? found : Math.min(lastIndex.current, rows.length - 1);
  const activate = (index: number) => {
    const entry = rows[index];
    lastIndex.current = index;
    setActiveId(entry && entryId(entry.threadId, entry.key));
  };

  const onKeyDown = (event: KeyboardEvent) => {
    // Header buttons handle their own keys.
    if ((event.target as Element).closest('button') || rows.length === 0) return;
    const page = Math.max(1, Math.floor((scrollRef.current?.clientHeight ?? ROW_HEIGHT) / ROW_HEIGHT) - 2);
    const move = moveFor(event.key, page);
    if (move) {
      event.preventDefault();
      const next = move(Math.max(0, activeIndex), rows.length - 1);
      activate(next);
      virtualizer.scrollToIndex(next, { align: 'auto' });
      return;
    }
    const entry = rows[activeIndex];
    if ((event.key === 'Enter' || event.key === ' ') && entry) {
      event.preventDefault();
      onSelect(entry);
    }
  };

  const items = virtualizer.getVirtualItems();
  const inView = [...new Set(items.map((item) => rows[item.index]?.threadId ?? ''))].filter((id) => id !== '');
  const inViewKey = inView.join('\u0000');
  useEffect(() => onThreadsInView?.(inView), [inViewKey, onThreadsInView]);

  const rowId = (index: number) => `${idPrefix}-row-${index}`;
  return (
    <div class="scroller" ref={scrollRef}>
      <table
        ref={gridRef}
        class="grid"
        // biome-ignore lint/a11y/noNoninteractiveElementToInteractiveRole: the ARIA data grid pattern (a table with role grid)
        role="grid"
        aria-label="Stored entries"
        aria-rowcount={rows.length + 1}
        aria-colcount={columns.length}
        aria-activedescendant={activeIndex >= 0 ? rowId(activeIndex) : undefined}
        tabIndex={0}
        onKeyDown={onKeyDown}
      >
        <thead class="head">
          <tr class="cols" aria-rowindex={1}>
            {columns.map((column) => (
              <th
                key={column.id}
                scope="col"
                aria-sort={sort.column === column.id ? sort.direction : 'none'}
                class={column.id === 'bytes' || column.id === 'tokens' || column.id === 'age' ? 'num' : undefined}
              >
                <button type="button" onClick={() => onSort(column.id)} title={`Sort by ${column.label}`}>
                  {column.label}
                </button>
              </th>
            ))}
          </tr>
        </thead>
        <tbody class="sizer" style={{ height: `${virtualizer.getTotalSize()}px` }}>
          {rows.length === 0 && (
            <tr class="empty">
              <td>
                {total === 0 ? 'No stored entries yet.' : `No entry matches the filter (${formatCount(total)} stored).`}
              </td>
            </tr>
          )}
          {items.map((item) => {
            const entry = rows[item.index];
            if (!entry) return null;
            const id = entryId(entry.threadId, entry.key);
            return (
              <tr
                key={id}
                id={rowId(item.index)}
                aria-rowindex={item.index + 2}
                aria-selected={id === selectedId}
                data-index={item.index}
                class={item.index === activeIndex ? 'row cols active' : 'row cols'}
                style={{ transform: `translateY(${item.start - ROW_HEIGHT}px)` }}
                onClick={() => {
                  activate(item.index);
                  onSelect(entry);
                  gridRef.current?.focus({ preventScroll: true });
                }}
              >
                <Boundary what="A row" retryKey={entry} fallback={rowFailed}>
                  <Cells entry={entry} now={now} cleared={clearedSince?.(entry)} />
                </Boundary>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
