import { formatBytes } from './format.js';

/** One thread's total bytes against the bound (`maxTotalBytes`), when the bound is known. */
export function Gauge({ threadId, total, bound }: { threadId: string; total: number; bound?: number }) {
  const label = `Thread ${threadId}: stored bytes`;
  if (bound === undefined) {
    return (
      <div class="gauge" title={label}>
        <span class="mono">{threadId}</span>
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
      <span class="mono">{threadId}</span>
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

export function Gauges({
  threads,
  totals,
  bound,
}: {
  threads: readonly string[];
  totals: ReadonlyMap<string, number>;
  bound?: number;
}) {
  if (threads.length === 0) return null;
  return (
    <section class="gauges" aria-label="Stored bytes per thread">
      {threads.map((threadId) => (
        <Gauge key={threadId} threadId={threadId} total={totals.get(threadId) ?? 0} bound={bound} />
      ))}
    </section>
  );
}
