import { contextCss } from './context/styles.js';

/**
 * The panel's styles, scoped by the shadow root they live in. `.root` resets everything the page
 * could pass down by inheritance (the only way page styles cross a shadow boundary).
 */
export const ROW_HEIGHT = 28;
/** A column of gauges is at least this wide (a narrower strip shows one gauge a row, on two lines). */
export const GAUGE_MIN_WIDTH = 500;
/** A line of a gauge. */
export const GAUGE_HEIGHT = 24;
/** Rows of gauges in view; more are a scroll away. */
export const GAUGE_ROWS = 3;
/** The strip's padding and border, top and bottom. */
export const GAUGES_CHROME = 13;
export const PICKER_ROW_HEIGHT = 24;

const css = `
:host { display: block; height: 100%; width: 100%; }
.root {
  all: initial; box-sizing: border-box; display: block; height: 100%; width: 100%;
  font: 13px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg);
  --bg: #ffffff; --bg-alt: #f4f5f7; --bg-hover: #e8eefc; --bg-active: #d3e0fb; --fg: #1d2430; --fg-muted: #5b6473;
  --border: #d5d9e0; --accent: #1f5fd1; --accent-fg: #ffffff; --warn: #9a5b00; --danger: #b42318; --ok: #17663a;
  --gauge: #2f6fe0; --gauge-full: #c0392b; --mono: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  color-scheme: light;
}
@media (prefers-color-scheme: dark) {
  .root {
    --bg: #15181e; --bg-alt: #1d2129; --bg-hover: #26304a; --bg-active: #2d3f66; --fg: #e4e8ef; --fg-muted: #9aa3b2;
    --border: #343a46; --accent: #7aa7ff; --accent-fg: #0d1320; --warn: #f0b455; --danger: #ff8a80; --ok: #7ad39b;
    --gauge: #5b8ff5; --gauge-full: #ff7a6b; color-scheme: dark;
  }
}
.root.floating { display: contents; }
.panel { display: flex; flex-direction: column; height: 100%; width: 100%; background: var(--bg); color: var(--fg);
  container: panel / inline-size; }
*, *::before, *::after { box-sizing: border-box; }
button, input, select { font: inherit; color: inherit; }
button, select, input {
  background: var(--bg-alt); border: 1px solid var(--border); border-radius: 4px; padding: 2px 8px; min-height: 24px;
}
button { cursor: pointer; }
button:hover:not(:disabled) { background: var(--bg-hover); }
button:disabled { opacity: 0.5; cursor: default; }
:focus-visible { outline: 2px solid var(--accent); outline-offset: 1px; }
h2, h3 { font-size: 13px; margin: 0; font-weight: 600; }
.muted { color: var(--fg-muted); }
.mono { font-family: var(--mono); font-size: 12px; }
.toolbar {
  display: flex; flex-wrap: wrap; align-items: center; gap: 8px; padding: 6px 8px;
  border-bottom: 1px solid var(--border); background: var(--bg-alt);
}
.toolbar .title { margin-right: auto; display: flex; flex-wrap: wrap; gap: 0 8px; align-items: baseline; }
.title .sep { color: var(--fg-muted); }
.toolbar input[type="search"] { width: 16em; }
.picker { position: relative; }
.picker input { width: 14em; }
.picker-list { position: absolute; top: calc(100% + 2px); left: 0; z-index: 3; width: max(100%, 22em); max-height: ${PICKER_ROW_HEIGHT * 10}px;
  overflow: auto; background: var(--bg); border: 1px solid var(--border); border-radius: 4px; box-shadow: 0 2px 8px rgb(0 0 0 / 0.2); }
.picker-sizer { position: relative; width: 100%; }
.picker-option { position: absolute; top: 0; left: 0; right: 0; height: ${PICKER_ROW_HEIGHT}px; line-height: ${PICKER_ROW_HEIGHT}px;
  padding: 0 8px; cursor: pointer; overflow: hidden; white-space: nowrap; text-overflow: ellipsis; }
.picker-option:hover { background: var(--bg-hover); }
.picker-option.active { background: var(--bg-active); }
.picker-option[aria-selected="true"] { font-weight: 600; }
.picker-none { padding: 4px 8px; color: var(--fg-muted); }
.error { color: var(--danger); padding: 4px 8px; }
.status { color: var(--fg-muted); padding: 0 8px; min-height: 1.4em; }
.status:empty { min-height: 0; }
.gauges { padding: 6px 8px; overflow-x: hidden; overflow-y: auto; flex: none; border-bottom: 1px solid var(--border); }
.gauges-track { position: relative; }
.gauge-row { position: absolute; left: 0; right: 0; top: 0; display: grid; gap: 0 16px; }
.gauge { display: grid; grid-template-columns: minmax(7em, max-content) minmax(48px, 120px) max-content max-content; gap: 0 6px;
  align-items: center; min-width: 0; white-space: nowrap; }
${/* One gauge a row, narrower than its line: the name and the figures above, the bar and the budget below. */ ''}
.gauges.narrow .gauge { grid-template-columns: minmax(0, 1fr) max-content; grid-template-rows: 1fr 1fr; }
.gauges.narrow .gauge-bar { width: 100%; grid-row: 2; grid-column: 1; }
.gauges.narrow .gauge-budget { grid-row: 2; grid-column: 2; }
.gauge-name { overflow: hidden; text-overflow: ellipsis; }
.gauge-budget { color: var(--fg-muted); }
.gauge-bar { appearance: none; width: 120px; height: 8px; border-radius: 4px; background: var(--bg-hover); }
.gauge-bar::-webkit-meter-bar { background: var(--bg-hover); border: none; border-radius: 4px; height: 8px; }
.gauge-bar::-webkit-meter-optimum-value { background: var(--gauge); border-radius: 4px; }
.gauge-bar::-webkit-meter-suboptimum-value { background: var(--warn); border-radius: 4px; }
.gauge-bar::-webkit-meter-even-less-good-value { background: var(--gauge-full); border-radius: 4px; }
.gauge-bar::-moz-meter-bar { background: var(--gauge); border-radius: 4px; }
.tabs { display: flex; gap: 2px; padding: 4px 8px 0; border-bottom: 1px solid var(--border); }
.tabs [role="tab"] { border-radius: 4px 4px 0 0; border-bottom: none; background: transparent; }
.tabs [role="tab"][aria-selected="true"] { background: var(--bg-active); font-weight: 600; }
.body { flex: 1; min-height: 0; display: flex; }
.body > * { min-width: 0; }
.tabpanel { flex: 1 1 36%; display: flex; flex-direction: column; min-height: 0; container: list / inline-size; }
.detail { flex: 1 1 64%; border-left: 1px solid var(--border); display: flex; flex-direction: column; min-height: 0;
  container: detail / inline-size; }
${/* A narrow panel shows the list, or the selected entry in its place (closing it returns to the list). */ ''}
@container panel (max-width: 760px) {
  .has-detail .tabs, .has-detail .tabpanel, .has-detail .gauges { display: none; }
  .detail { border-left: none; }
}
${/* The preview beside the stored text only where each gets a readable width; else the preview above it. */ ''}
@container detail (max-width: 879px) {
  .detail .panes { grid-template-columns: 1fr; grid-template-rows: minmax(0, 1fr) minmax(0, 2fr); }
  .detail .pane + .pane { border-left: none; }
}
.scroller { flex: 1; overflow: auto; min-height: 0; }
table.grid { display: block; width: 100%; border-collapse: collapse; }
.grid:focus-visible { outline: none; }
.grid:focus-visible .row.active { outline: 2px solid var(--accent); outline-offset: -2px; }
${/* Room as the columns need it: a path's key and a thread id (often a UUID) whole while the table has room; each header with its sort mark. */ ''}
.cols { display: grid; grid-template-columns: minmax(10em, 2.2fr) minmax(5em, 1.6fr) minmax(9em, 1fr) 10.5em 6em 4em 5em; }
${/* A narrow list (beside an open entry, or on a phone) keeps path, tool and size whole, not seven cut columns. */ ''}
@container list (max-width: 640px) {
  .cols { grid-template-columns: minmax(4em, 1fr) minmax(8em, 0.35fr) 10.5em; }
  .cols > :nth-child(2), .cols > :nth-child(n+5) { display: none; }
}
th, td { padding: 0; text-align: left; font-weight: normal; }
.head { display: block; position: sticky; top: 0; z-index: 1; height: ${ROW_HEIGHT}px; background: var(--bg-alt);
  border-bottom: 1px solid var(--border); }
.head th button {
  width: 100%; height: ${ROW_HEIGHT - 1}px; text-align: inherit; border: none; border-radius: 0; background: transparent;
  font-weight: 600; padding: 0 6px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis;
}
.head [aria-sort="ascending"] button::after { content: " \\25B2"; }
.head [aria-sort="descending"] button::after { content: " \\25BC"; }
.sizer { display: block; position: relative; width: 100%; }
.row { position: absolute; top: 0; left: 0; right: 0; height: ${ROW_HEIGHT}px; cursor: pointer;
  border-bottom: 1px solid var(--border); }
.row:hover { background: var(--bg-hover); }
.row.active { box-shadow: inset 3px 0 0 var(--accent); }
.row[aria-selected="true"] { background: var(--bg-active); }
.cell { padding: 0 6px; line-height: ${ROW_HEIGHT - 1}px; overflow: hidden; white-space: nowrap; text-overflow: ellipsis; }
.num { text-align: right; font-variant-numeric: tabular-nums; }
.path-cell { display: flex; align-items: center; gap: 4px; }
${
  /* The folder is shown whole or not at all: laid out after the last segment (row-reverse, order), it wraps to a
  second line, which the one-line box hides, when both do not fit. The last segment alone keeps its end (rtl: it is
  cut at its start), so a path never shows two ellipses. */ ''
}
.path-text { display: flex; flex-flow: row-reverse wrap; justify-content: flex-end; min-width: 0; overflow: hidden;
  height: ${ROW_HEIGHT - 1}px; }
.path-head { order: 2; flex: none; white-space: nowrap; }
.path-tail { order: 1; flex: 0 1 auto; min-width: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; text-align: left; }
.cleared-mark { flex: none; font-family: system-ui, sans-serif; font-size: 11px; padding: 0 6px; line-height: 16px;
  border-radius: 8px; border: 1px solid currentColor; color: var(--accent); white-space: nowrap; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
.cut { color: var(--warn); }
.empty { padding: 16px; color: var(--fg-muted); }
.detail-head { padding: 6px 8px; border-bottom: 1px solid var(--border); display: flex; flex-wrap: wrap; gap: 6px; align-items: center; }
.detail-head .path { font-family: var(--mono); font-weight: 600; word-break: break-all; margin-right: auto; }
.facts { display: flex; flex-wrap: wrap; gap: 4px 12px; padding: 4px 8px; color: var(--fg-muted); }
.panes { flex: 1; min-height: 0; display: grid; grid-template-columns: 1fr 1fr; }
.pane { display: flex; flex-direction: column; min-height: 0; min-width: 0; border-top: 1px solid var(--border); }
.pane + .pane { border-left: 1px solid var(--border); }
.pane-head { display: flex; align-items: center; gap: 8px; padding: 4px 8px; background: var(--bg-alt); flex-wrap: wrap; }
.pane-head h3 { margin-right: auto; }
${/* The pager's buttons stay on one line (never a lone » on the next). */ ''}
.pane-head nav { display: flex; flex-wrap: nowrap; gap: 4px; white-space: nowrap; }
pre, .lines { margin: 0; flex: 1; overflow: auto; padding: 6px 8px; font-family: var(--mono); font-size: 12px;
  white-space: pre-wrap; overflow-wrap: anywhere; tab-size: 4; }
.line { display: flex; min-height: 1.4em; }
.ln { flex: none; width: 4.5em; padding-right: 8px; text-align: right; color: var(--fg-muted); user-select: none; }
.lt { flex: 1; min-width: 0; white-space: pre-wrap; overflow-wrap: anywhere; }
.timeline { list-style: none; margin: 0; padding: 0 8px; overflow: auto; flex: 1; min-height: 0; }
.event { display: grid; grid-template-columns: 5.5em 6.5em minmax(0, 1fr) 6em; gap: 8px; padding: 4px 0; border-bottom: 1px solid var(--border);
  align-items: baseline; }
.event > * { overflow-wrap: anywhere; }
${/* Narrow: time, reason and size on one line, what it was about whole below them. */ ''}
@container list (max-width: 480px) {
  .event { grid-template-columns: auto 1fr auto; gap: 2px 8px; }
  .event > :nth-child(3) { grid-row: 2; grid-column: 1 / -1; }
}
.event button { border: none; background: transparent; padding: 0; text-align: left; font-family: var(--mono);
  font-size: 12px; overflow-wrap: anywhere; min-height: 0; }
.event button:hover { text-decoration: underline; }
.reason { font-size: 11px; padding: 0 6px; border-radius: 8px; border: 1px solid currentColor; justify-self: start; }
.reason-bound, .reason-quota { color: var(--accent); } .reason-replaced { color: var(--fg-muted); }
.reason-summarized { color: var(--ok); } .reason-blocked { color: var(--danger); } .reason-failed { color: var(--danger); }
.reason-expired, .reason-cleared { color: var(--fg-muted); } .reason-other { color: var(--fg-muted); }
.tool-name { font-family: var(--mono); font-size: 12px; }
.more { margin: 8px; align-self: flex-start; }
.problem { color: var(--danger); margin-right: 4px; cursor: help; }
.toggle { position: fixed; right: 16px; bottom: 16px; z-index: 2147483646; border-radius: 18px; padding: 6px 12px;
  background: var(--accent); color: var(--accent-fg); border: none; box-shadow: 0 2px 8px rgb(0 0 0 / 0.3); }
.toggle:hover:not(:disabled) { background: var(--accent); filter: brightness(1.1); }
.dock { position: fixed; left: 0; right: 0; bottom: 0; z-index: 2147483647; display: flex; flex-direction: column;
  background: var(--bg); border-top: 1px solid var(--border); box-shadow: 0 -2px 12px rgb(0 0 0 / 0.25); }
.resize { height: 6px; cursor: ns-resize; background: var(--bg-alt); border-bottom: 1px solid var(--border); flex: none; }
.resize:hover, .resize:focus-visible { background: var(--accent); }
.dock > .panel { flex: 1; min-height: 0; height: auto; }
`;

/** Puts the styles in `root`: a constructable stylesheet where supported, else a <style>. */
export function applyStyles(root: ShadowRoot): void {
  const view = root.ownerDocument.defaultView;
  if (view && 'adoptedStyleSheets' in root && typeof view.CSSStyleSheet === 'function') {
    try {
      const sheet = new view.CSSStyleSheet();
      sheet.replaceSync(css + contextCss);
      root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
      return;
    } catch {
      // An engine without constructable stylesheets: fall through to a <style> element.
    }
  }
  const style = root.ownerDocument.createElement('style');
  style.textContent = css + contextCss;
  root.append(style);
}
