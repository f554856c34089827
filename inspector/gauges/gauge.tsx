import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { clip, formatBytes, formatCount } from '../format.js';
import { GAUGE_HEIGHT, GAUGE_MIN_WIDTH, GAUGE_ROWS, GAUGES_CHROME } from '../styles.js';
import { useVirtualizer } from '../use-virtualizer.js';

/** The thread's context budget beside its gauge: what its latest model request was fitted to. */
function Budget({ budget }: { budget: number | undefined }) {
  if (budget === undefined) return null;
  return (
    <span class="gauge-budget" title="The context budget (maxRequestTokens) of the thread's latest model request">
      budget {formatCount(budget)} tokens
    </span>
  );
}

interface GaugeProps {
  threadId: string;
  total: number | undefined;
  bound?: number;
  budget?: number;
}

/** One thread's total bytes against the bound (`maxTotalBytes`), when both are known, and its context budget. */
function Gauge({ threadId, total, bound, budget }: GaugeProps) {
  const label = `Thread ${threadId}: stored bytes`;
  const name = (
    <span class="mono gauge-name" title={clip(threadId)}>
      {clip(threadId, 80)}
    </span>
  );
  if (total === undefined || Number.isNaN(total)) {
    return (
      <div class="gauge" title={label}>
        {name}
        <span class="muted">{total === undefined ? 'reading…' : 'total unknown'}</span>
        <Budget budget={budget} />
      </div>
    );
  }
  if (bound === undefined) {
    return (
      <div class="gauge" title={label}>
        {name}
        <span class="muted">bound unknown</span>
        <span>{formatBytes(total)}</span>
        <Budget budget={budget} />
      </div>
    );
  }
  const ratio = bound > 0 ? Math.min(1, total / bound) : 1;
  const percent = Math.round(ratio * 100);
  const text = `${formatBytes(total)} of ${formatBytes(bound)} (${percent}%)`;
  return (
    <div class="gauge">
      {name}
      <meter
        class="gauge-bar"
        aria-label={label}
        min={0}
        max={bound}
        low={bound * 0.75}
        high={bound * 0.9}
        optimum={0}
        value={Math.min(total, bound)}
        aria-valuetext={text}
      />
      <span class="gauge-text">{text}</span>
      <Budget budget={budget} />
    </div>
  );
}

interface GaugesProps {
  threads: readonly string[];
  totals: ReadonlyMap<string, number>;
  /** Each thread's bound as the store reports it. */
  bounds: ReadonlyMap<string, number>;
  /** The bound of a thread the store reports none for (mountInspector's option, or the exposing side's). */
  bound?: number;
  /** Each thread's context budget, where its latest model request had one. */
  budgets: ReadonlyMap<string, number>;
  /** Asks for the totals, bounds and budgets of the threads in view (the readers read those not known yet). */
  wantTotals(threads: readonly string[]): void;
}

/** The strip's width, kept current as the panel is resized. */
function useWidth(ref: { current: HTMLElement | null }, present: boolean): number {
  const [width, setWidth] = useState(0);
  useLayoutEffect(() => {
    const element = ref.current;
    if (!element) return;
    setWidth(element.clientWidth);
    const view = element.ownerDocument.defaultView;
    if (!view?.ResizeObserver) return;
    const observer = new view.ResizeObserver(() => setWidth(element.clientWidth));
    observer.observe(element);
    return () => observer.disconnect();
  }, [present]);
  return width;
}

/**
 * The gauges, one per thread, in as many columns as fit the strip's width (one line each, or two
 * in a column narrower than a gauge), GAUGE_ROWS rows in view and the others a scroll away; the
 * rows are virtualized, so a thousand threads render (and read totals, bounds and budgets for)
 * only the few gauges in view. Each thread is shown against its own bound where the store
 * reports it, else against `bound`.
 */
export function Gauges({ threads, totals, bounds, bound, budgets, wantTotals }: GaugesProps) {
  const scrollRef = useRef<HTMLElement>(null);
  const trackRef = useRef<HTMLDivElement>(null);
  const width = useWidth(trackRef, threads.length > 0);
  const columns = Math.max(1, Math.floor(width / GAUGE_MIN_WIDTH));
  const narrow = width > 0 && width < GAUGE_MIN_WIDTH;
  const rowHeight = narrow ? 2 * GAUGE_HEIGHT : GAUGE_HEIGHT;
  const rowCount = Math.ceil(threads.length / columns);
  const virtualizer = useVirtualizer(rowCount, rowHeight, scrollRef, 0, false, 0);
  useLayoutEffect(() => virtualizer.measure(), [virtualizer, rowHeight]);
  const items = virtualizer.getVirtualItems();
  const inView = items
    .flatMap((item) => threads.slice(item.index * columns, item.index * columns + columns))
    .filter((id): id is string => id !== undefined);
  const missing = inView.filter((id) => !totals.has(id));
  // Asked again when the threads in view change or a total is dropped; the reader skips what it
  // knows (a bound too: a store's events may tell totals without one).
  const key = `${inView.join('\u0000')}\u0001${missing.join('\u0000')}`;
  useEffect(() => {
    if (inView.length > 0) wantTotals(inView);
  }, [key, wantTotals]);
  if (threads.length === 0) return null;
  const shownRows = Math.min(rowCount, GAUGE_ROWS);
  return (
    <section
      class={narrow ? 'gauges narrow' : 'gauges'}
      aria-label="Stored bytes per thread"
      ref={scrollRef}
      style={{ height: `${shownRows * rowHeight + GAUGES_CHROME}px` }}
    >
      <div class="gauges-track" ref={trackRef} style={{ height: `${virtualizer.getTotalSize()}px` }}>
        {items.map((item) => (
          <div
            key={item.index}
            class="gauge-row"
            style={{
              height: `${rowHeight}px`,
              transform: `translateY(${item.start}px)`,
              gridTemplateColumns: `repeat(${columns}, minmax(0, 1fr))`,
            }}
          >
            {threads.slice(item.index * columns, item.index * columns + columns).map((threadId) => (
              <Gauge
                key={threadId}
                threadId={threadId}
                total={totals.get(threadId)}
                bound={bounds.get(threadId) ?? bound}
                budget={budgets.get(threadId)}
              />
            ))}
          </div>
        ))}
      </div>
    </section>
  );
}
