import { useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { formatCount } from '../format.js';
import { type LedgerRecord, PARTS } from './records.js';

/** Room of one step along the chart (its bar and the gap after it) in a long session, which scrolls. */
const STEP_PITCH = 14;
/** The most room a step takes when few steps spread over the chart's width, and the widest bar. */
const MAX_PITCH = 96;
const MAX_BAR = 40;
/** The chart's height, its plot's top margin and the room below it for step numbers. */
const HEIGHT = 180;
const TOP = 10;
const BOTTOM = 18;
const PLOT = HEIGHT - TOP - BOTTOM;
/** Step numbers are written under every this many bars (every bar when they are wide). */
const LABEL_EVERY = 5;
/** Steps drawn beyond each edge of the view, so a short scroll shows no gap before the next render. */
const OVERSCAN = 4;
/** The view's width until it is measured. */
const DEFAULT_WIDTH = 800;
/**
 * The line without the offload joins the scale only while the bars and the budget stay at least
 * this share of its height; above that it is marked off the scale and its peak written out.
 */
const MIN_SHARE = 1 / 3;

/** The label of a step's bar: `step 12: 7,940 tokens`. */
export const stepLabel = (record: LedgerRecord) =>
  `step ${formatCount(record.step)}: ${formatCount(record.tokens)} tokens`;

/** A round number at or above `peak`, for the top of the scale. */
function scaleTop(peak: number): number {
  if (peak <= 0) return 1000;
  const magnitude = 10 ** Math.floor(Math.log10(peak));
  const nice = [1, 2, 2.5, 5, 10].find((factor) => factor * magnitude >= peak) ?? 10;
  return nice * magnitude;
}

/** An axis label short enough for the axis: 7,500, 25k, 1.5M. */
function axisLabel(tokens: number): string {
  if (tokens < 10_000) return formatCount(tokens);
  if (tokens < 1_000_000) return `${formatCount(Math.round(tokens / 100) / 10)}k`;
  return `${formatCount(Math.round(tokens / 100_000) / 10)}M`;
}

/** The scale of a ledger: bars and budget legible, the line without the offload on it only when that keeps them so. */
interface ChartScale {
  top: number;
  /** The highest tokens without the offload and its step, when that line rises above `top`. */
  offScale?: { tokens: number; step: number };
}

function chartScale(records: readonly LedgerRecord[]): ChartScale {
  let shown = 0;
  let without: LedgerRecord | undefined;
  for (const record of records) {
    shown = Math.max(shown, record.tokens, record.budget ?? 0, record.reported?.inputTokens ?? 0);
    if (!without || record.tokensWithoutOffload > without.tokensWithoutOffload) without = record;
  }
  const withLine = scaleTop(Math.max(shown, without?.tokensWithoutOffload ?? 0));
  if (shown === 0 || shown / withLine >= MIN_SHARE) return { top: withLine };
  const top = scaleTop(shown);
  return { top, offScale: { tokens: without!.tokensWithoutOffload, step: without!.step } };
}

/**
 * What the provider reported beside the estimate's bar: a mark across the bar at its input tokens
 * and, along the bar's right edge, the part its cache served. Counts only: drawn as geometry, never as text.
 */
function ReportedMark({
  reported,
  x,
  width,
  y,
  bottom,
}: {
  reported: NonNullable<LedgerRecord['reported']>;
  x: number;
  width: number;
  y: (tokens: number) => number;
  bottom: number;
}) {
  const at = y(reported.inputTokens);
  const cached = Math.min(reported.cachedInputTokens ?? 0, reported.inputTokens);
  return (
    <>
      {cached > 0 && (
        <rect class="ctx-cached" x={x + width} y={y(cached)} width={3} height={Math.max(0, bottom - y(cached))} />
      )}
      <line class="ctx-reported" x1={x - 3} x2={x + width + 3} y1={at} y2={at} />
    </>
  );
}

/** The budgets of a ledger in words, for the budget line's name: `budget: 8,000 tokens`. */
function budgetLabel(records: readonly LedgerRecord[]): string {
  let low = Number.POSITIVE_INFINITY;
  let high = 0;
  for (const { budget } of records) {
    if (budget === undefined) continue;
    low = Math.min(low, budget);
    high = Math.max(high, budget);
  }
  return low === high
    ? `budget: ${formatCount(high)} tokens`
    : `budget: ${formatCount(low)} to ${formatCount(high)} tokens`;
}

interface ContextChartProps {
  records: readonly LedgerRecord[];
  /** The index of the selected step (the roving tab stop). */
  active: number;
  /** Selects a step (click, arrow keys, Home/End). */
  onSelect(index: number): void;
  /** The step under the pointer, or undefined when it leaves the chart. */
  onHover(index: number | undefined): void;
  /** Names the thread in the chart's label. */
  threadId: string;
}

/** The step a key moves to from `index`, or undefined for a key the chart does not handle. */
function moveFor(key: string, index: number, last: number, page: number): number | undefined {
  switch (key) {
    case 'ArrowRight':
    case 'ArrowDown':
      return Math.min(last, index + 1);
    case 'ArrowLeft':
    case 'ArrowUp':
      return Math.max(0, index - 1);
    case 'PageDown':
      return Math.min(last, index + page);
    case 'PageUp':
      return Math.max(0, index - page);
    case 'Home':
      return 0;
    case 'End':
      return last;
  }
  return undefined;
}

/**
 * One SVG bar per model step, stacked by part, with a line for the budget and one for the tokens
 * without the offload. The scale is the bars' and the budget's: the line without the offload joins
 * it only while they stay legible (a third of the height), else it is marked above the steps where
 * it leaves the scale and its peak is written beside the chart. A few steps spread over the
 * chart's width; many are windowed: the strip scrolls sideways and only the steps in view (and the
 * selected one, the tab stop) are drawn, so 10,000 steps keep the DOM small. The steps are a
 * listbox: arrows, Page Up/Down, Home and End move the selection, which the list below follows.
 */
export function ContextChart({ records, active, onSelect, onHover, threadId }: ContextChartProps) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const svgRef = useRef<SVGSVGElement>(null);
  // The window is computed from the scroll position here, not by a virtualizer: following the
  // newest step, the render that receives it draws it, with no scroll event (or frame) between.
  const [view, setView] = useState({ left: 0, width: DEFAULT_WIDTH });
  // Few steps share the whole width; many scroll at the narrowest pitch.
  const pitch = Math.max(STEP_PITCH, Math.min(MAX_PITCH, Math.floor(view.width / Math.max(1, records.length))));
  const barWidth = Math.min(MAX_BAR, Math.round(pitch * 0.7));
  const total = records.length * pitch;
  const scale = useMemo(() => chartScale(records), [records]);
  const budgetName = useMemo(() => budgetLabel(records), [records]);
  const { top } = scale;
  const y = (tokens: number) => TOP + PLOT - (Math.min(tokens, top) / top) * PLOT;
  /** Scrolled to the newest step: new steps keep it in view. */
  const following = useRef(true);
  const focusAfterRender = useRef(false);

  const left = following.current
    ? Math.max(0, total - view.width)
    : Math.min(view.left, Math.max(0, total - view.width));
  const first = Math.max(0, Math.floor(left / pitch) - OVERSCAN);
  const last = Math.min(records.length - 1, Math.ceil((left + view.width) / pitch) + OVERSCAN);

  useLayoutEffect(() => {
    const element = scrollRef.current;
    if (!element) return;
    const measure = () => setView({ left: element.scrollLeft, width: element.clientWidth || DEFAULT_WIDTH });
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  useLayoutEffect(() => {
    const element = scrollRef.current;
    if (element && following.current) element.scrollLeft = left;
  });
  useLayoutEffect(() => {
    if (!focusAfterRender.current) return;
    focusAfterRender.current = false;
    svgRef.current?.querySelector<SVGGElement>(`[data-index="${active}"]`)?.focus({ preventScroll: true });
  });

  /** Scrolls so the step is in view (the least scroll that does). */
  const reveal = (index: number) => {
    const element = scrollRef.current;
    if (!element) return;
    const start = index * pitch;
    const next = start < left ? start : start + pitch > left + view.width ? start + pitch - view.width : left;
    following.current = next >= total - view.width - pitch;
    element.scrollLeft = next;
    setView({ left: next, width: view.width });
  };
  const select = (index: number, focus: boolean) => {
    focusAfterRender.current = focus;
    onSelect(index);
    reveal(index);
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (records.length === 0) return;
    const page = Math.max(1, last - first - 1);
    const next = moveFor(event.key, active, records.length - 1, page);
    if (next === undefined) return;
    event.preventDefault();
    select(next, true);
  };
  const indexOf = (target: EventTarget | null) => {
    const element = (target as Element | null)?.closest?.('[data-index]');
    return element ? Number(element.getAttribute('data-index')) : undefined;
  };
  const onScroll = () => {
    const element = scrollRef.current;
    if (!element) return;
    following.current = element.scrollLeft + element.clientWidth >= element.scrollWidth - pitch;
    setView({ left: element.scrollLeft, width: element.clientWidth || DEFAULT_WIDTH });
  };

  // The selected step is drawn wherever it is (the tab stop must exist), in step order: a focused
  // bar moved within the DOM would lose focus when the window scrolls to it.
  const shown: number[] = [];
  const outside = active >= 0 && active < records.length && (active < first || active > last);
  if (outside && active < first) shown.push(active);
  for (let i = first; i <= last; i++) shown.push(i);
  if (outside && active > last) shown.push(active);
  const x0 = first * pitch;
  const width = Math.max(0, last - first + 1) * pitch;
  // The lines run one step past each edge, so they enter and leave the window instead of ending in it.
  const lineFrom = Math.max(0, first - 1);
  const lineTo = Math.min(records.length - 1, last + 1);
  // Both lines are stepped: level across each step's room, so one step alone still shows its line.
  // The line without the offload breaks where it leaves the scale; a mark above the step says so.
  const without: string[] = [];
  const offMarks: string[] = [];
  const budget: string[] = [];
  for (let i = lineFrom; i <= lineTo; i++) {
    const record = records[i]!;
    const start = i * pitch;
    const previous = records[i - 1];
    if (record.tokensWithoutOffload <= top) {
      const continues = i > lineFrom && previous !== undefined && previous.tokensWithoutOffload <= top;
      without.push(`${continues ? 'L' : 'M'}${start},${y(record.tokensWithoutOffload)}H${start + pitch}`);
    } else {
      const middle = start + pitch / 2;
      offMarks.push(`M${middle - 4},${TOP - 2}L${middle},${TOP - 8}L${middle + 4},${TOP - 2}Z`);
    }
    if (record.budget !== undefined) {
      const continues = i > lineFrom && previous?.budget !== undefined;
      budget.push(`${continues ? 'L' : 'M'}${start},${y(record.budget)}H${start + pitch}`);
    }
  }
  const grid = [0.25, 0.5, 0.75, 1].map((share) => ({ share, at: y(top * share) }));
  const labelEvery = pitch >= 28 ? 1 : LABEL_EVERY;
  const svgBox = {
    width,
    height: HEIGHT,
    viewBox: `${x0} 0 ${width} ${HEIGHT}`,
    style: { transform: `translateX(${x0}px)` },
  };

  return (
    <div class="ctx-chart">
      {scale.offScale && (
        <p class="ctx-off-note">
          <span class="ctx-off-mark" aria-hidden="true">
            ▲
          </span>{' '}
          without the offload: up to {formatCount(scale.offScale.tokens)} tokens (step{' '}
          {formatCount(scale.offScale.step)}), above this scale
        </p>
      )}
      <div class="ctx-plot">
        <div class="ctx-axis" aria-hidden="true">
          {grid.map(({ share, at }) => (
            <span key={share} style={{ top: `${at - 7}px` }}>
              {axisLabel(top * share)}
            </span>
          ))}
        </div>
        <div class="ctx-scroll" ref={scrollRef} onScroll={onScroll}>
          <div class="ctx-track" style={{ width: `${total}px`, height: `${HEIGHT}px` }}>
            <svg
              ref={svgRef}
              class="ctx-svg"
              // biome-ignore lint/a11y/noNoninteractiveElementToInteractiveRole: the steps are a listbox whose options are the bars (roving tabindex)
              role="listbox"
              aria-label={`Model steps of thread ${threadId}`}
              aria-orientation="horizontal"
              {...svgBox}
              onKeyDown={onKeyDown}
              onMouseOver={(event) => onHover(indexOf(event.target))}
              onMouseLeave={() => onHover(undefined)}
              // The keyboard moves the selection, which the list shows: a hover no longer stands in for it.
              onFocus={() => onHover(undefined)}
              onClick={(event) => {
                const index = indexOf(event.target);
                if (index !== undefined) select(index, true);
              }}
            >
              {grid.map(({ share, at }) => (
                <line key={share} class="ctx-grid" x1={x0} x2={x0 + width} y1={at} y2={at} />
              ))}
              {shown.map((index) => {
                const record = records[index]!;
                let base = TOP + PLOT;
                const room = index * pitch;
                const x = room + (pitch - barWidth) / 2;
                return (
                  <g
                    key={record.step}
                    class="ctx-step"
                    role="option"
                    data-index={index}
                    aria-label={stepLabel(record)}
                    aria-selected={index === active}
                    aria-posinset={index + 1}
                    aria-setsize={records.length}
                    tabindex={index === active ? 0 : -1}
                  >
                    <rect class="ctx-hit" x={room} y={TOP} width={pitch} height={PLOT} />
                    {PARTS.map(({ id }) => {
                      const tokens = record.parts[id];
                      if (tokens <= 0) return null;
                      const height = Math.max(0, Math.min(base - TOP, (Math.min(tokens, top) / top) * PLOT));
                      base -= height;
                      return (
                        <rect key={id} class={`ctx-part ctx-${id}`} x={x} y={base} width={barWidth} height={height} />
                      );
                    })}
                    {record.reported && (
                      <ReportedMark reported={record.reported} x={x} width={barWidth} y={y} bottom={TOP + PLOT} />
                    )}
                    {index === active && (
                      <rect class="ctx-ring" x={x - 2} y={TOP - 2} width={barWidth + 4} height={PLOT + 4} />
                    )}
                    {record.step % labelEvery === 0 && (
                      <text class="ctx-tick" x={x + barWidth / 2} y={HEIGHT - 4}>
                        {record.step}
                      </text>
                    )}
                  </g>
                );
              })}
            </svg>
            {/* The lines over the bars, outside the listbox (whose children are its options), each named. */}
            {/* biome-ignore lint/a11y/noSvgWithoutTitle: a layer of the chart; each of its lines is named */}
            <svg class="ctx-lines" {...svgBox}>
              {without.length > 0 && (
                <path
                  class="ctx-without"
                  aria-label={
                    scale.offScale
                      ? 'without the offload, where it is within this scale'
                      : 'without the offload (tokens the requests would have carried)'
                  }
                  d={without.join('')}
                />
              )}
              {offMarks.length > 0 && <path class="ctx-off" d={offMarks.join('')} />}
              {budget.length > 0 && <path class="ctx-budget" aria-label={budgetName} d={budget.join('')} />}
            </svg>
          </div>
        </div>
      </div>
    </div>
  );
}
