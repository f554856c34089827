import { useMemo, useState } from 'preact/hooks';
import { splitLines } from '../../lib/index.js';
import { clip, formatCount } from '../format.js';
import type { TextState } from '../source/use-store.js';

/** Lines per page: a 1 MiB text stays a few hundred DOM rows at a time. */
const PAGE_LINES = 500;
/** Characters of a line shown until asked for all of it: one 5 MB line does not stall the layout. */
const LINE_CHARS = 10_000;

/** One line of the text: cut at LINE_CHARS, with a button that shows the rest. */
function LineText({ line }: { line: string }) {
  const [whole, setWhole] = useState(false);
  if (whole || line.length <= LINE_CHARS) return <span class="lt">{line}</span>;
  return (
    <span class="lt">
      {clip(line, LINE_CHARS)}{' '}
      <button type="button" class="more-line" onClick={() => setWhole(true)}>
        Show the whole line ({formatCount(line.length)} characters)
      </button>
    </span>
  );
}

/** The stored text with line numbers, a page at a time; a failed read shows the store's message. */
export function TextPager({ state, pageLines = PAGE_LINES }: { state: TextState; pageLines?: number }) {
  const text = state.status === 'loaded' ? state.text : '';
  // The package's one way to count lines (as the stored-result header and read_file count them):
  // a final newline ends the last line, and '' has none.
  const lines = useMemo(() => splitLines(text), [text]);
  const [page, setPage] = useState(0);
  const pages = Math.max(1, Math.ceil(lines.length / pageLines));
  const current = Math.min(page, pages - 1);
  const from = current * pageLines;
  const shown = lines.slice(from, from + pageLines);
  const range =
    lines.length === 0
      ? 'No lines (the text is empty)'
      : `Lines ${formatCount(from + 1)}–${formatCount(from + shown.length)} of ${formatCount(lines.length)}`;

  return (
    <section class="pane" aria-label="Stored text">
      <div class="pane-head">
        <h3>Stored text</h3>
        {state.status === 'loaded' && (
          <>
            <span class="muted" aria-live="polite">
              {range}
            </span>
            {pages > 1 && (
              <nav aria-label="Pages of the stored text">
                <button type="button" onClick={() => setPage(0)} disabled={current === 0} aria-label="First page">
                  «
                </button>
                <button type="button" onClick={() => setPage(current - 1)} disabled={current === 0}>
                  Previous page
                </button>
                <button type="button" onClick={() => setPage(current + 1)} disabled={current === pages - 1}>
                  Next page
                </button>
                <button
                  type="button"
                  onClick={() => setPage(pages - 1)}
                  disabled={current === pages - 1}
                  aria-label="Last page"
                >
                  »
                </button>
              </nav>
            )}
          </>
        )}
      </div>
      {state.status === 'loading' && <p class="empty">Loading the stored text…</p>}
      {state.status === 'failed' && (
        <p class="error" role="alert">
          {state.error}
        </p>
      )}
      {state.status === 'loaded' && (
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
        <section class="lines" aria-label={`Stored text, ${range.toLowerCase()}`} tabIndex={0}>
          {shown.map((line, index) => (
            <div class="line" key={from + index}>
              <span class="ln" aria-hidden="true">
                {from + index + 1}
              </span>
              <LineText line={line} />
            </div>
          ))}
        </section>
      )}
    </section>
  );
}
