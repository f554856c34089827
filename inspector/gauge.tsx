import { useEffect, useRef } from 'preact/hooks';
import { clip, formatBytes } from './format.js';
import { GAUGE_HEIGHT, GAUGE_WIDTH } from './styles.js';
import { useVirtualizer } from './use-virtualizer.js';

/** One thread's total bytes against the bound (`maxTotalBytes`), when both are known. */
function Gauge({ threadId, total, bound }: { threadId: string; total: number | undefined; bound?: number }) {
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
      </div>
    );
  }
  if (bound === undefined) {
    return (
      <div class="gauge" title={label}>
        {name}
        <span class="muted">bound unknown</span>
        <span>{formatBytes(total)}</span>
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
      <span>{text}</span>
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
  /** Asks for the totals and bounds of the threads in view (the reader reads those not known yet). */
  wantTotals(threads: readonly string[]): void;
}

/**
 * A strip of gauges, one per thread, virtualized: a thousand threads render (and read totals and
 * bounds for) only the few gauges in view; scrolling the strip shows the others. Each thread is
 * shown against its own bound where the store reports it, else against `bound`.
 */
export function Gauges({ threads, totals, bounds, bound, wantTotals }: GaugesProps) {
  const scrollRef = useRef<HTMLElement>(null);
  const virtualizer = useVirtualizer(threads.length, GAUGE_WIDTH, scrollRef, 0, true);
  const items = virtualizer.getVirtualItems();
  const inView = items.map((item) => threads[item.index]).filter((id): id is string => id !== undefined);
  const missing = inView.filter((id) => !totals.has(id));
  // Asked again when the threads in view change or a total is dropped; the reader skips what it
  // knows (a bound too: a store's events may tell totals without one).
  const key = `${inView.join('\u0000')}\u0001${missing.join('\u0000')}`;
  useEffect(() => {
    if (inView.length > 0) wantTotals(inView);
  }, [key, wantTotals]);
  if (threads.length === 0) return null;
  return (
    <section class="gauges" aria-label="Stored bytes per thread" ref={scrollRef}>
      <div class="gauges-track" style={{ width: `${virtualizer.getTotalSize()}px`, height: `${GAUGE_HEIGHT}px` }}>
        {items.map((item) => {
          const threadId = threads[item.index];
          if (threadId === undefined) return null;
          return (
            <div key={threadId} class="gauge-slot" style={{ transform: `translateX(${item.start}px)` }}>
              <Gauge threadId={threadId} total={totals.get(threadId)} bound={bounds.get(threadId) ?? bound} />
            </div>
          );
        })}
      </div>
    </section>
  );
}
