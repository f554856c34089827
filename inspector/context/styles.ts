/** The Context tab's styles (inspector/styles.ts adds them to the panel's). */
export const contextCss = `
.root {
  --ctx-system: #8a94a6; --ctx-messages: #3b7dd8; --ctx-whole: #e08a1e; --ctx-previews: #2e9d5b;
  --ctx-pointers: #8e5bd0; --ctx-cut: #c0392b; --ctx-without: #1d2430; --ctx-budget: #c0392b;
  --ctx-reported: #111827; --ctx-cached: #0e9aa7;
}
@media (prefers-color-scheme: dark) {
  .root { --ctx-system: #7c869a; --ctx-messages: #5b8ff5; --ctx-whole: #f0a544; --ctx-previews: #52c27f;
    --ctx-pointers: #b48af0; --ctx-cut: #ff7a6b; --ctx-without: #e4e8ef; --ctx-budget: #ff7a6b;
    --ctx-reported: #f8fafc; --ctx-cached: #3cc6d0; }
}
.ctx { display: flex; flex-direction: column; min-height: 0; flex: 1; overflow: auto; }
.ctx-head { display: flex; flex-wrap: wrap; gap: 4px 16px; align-items: baseline; padding: 6px 8px; }
.ctx-legend { display: flex; flex-wrap: wrap; gap: 2px 12px; list-style: none; margin: 0; padding: 0; color: var(--fg-muted); }
.ctx-swatch { display: inline-block; width: 10px; height: 10px; margin-right: 4px; border-radius: 2px; vertical-align: -1px; }
.ctx-system { background: var(--ctx-system); fill: var(--ctx-system); }
.ctx-messages { background: var(--ctx-messages); fill: var(--ctx-messages); }
.ctx-whole { background: var(--ctx-whole); fill: var(--ctx-whole); }
.ctx-previews { background: var(--ctx-previews); fill: var(--ctx-previews); }
.ctx-pointers { background: var(--ctx-pointers); fill: var(--ctx-pointers); }
.ctx-cut { background: var(--ctx-cut); fill: var(--ctx-cut); }
.ctx-line-without { height: 0; border-top: 2px dashed var(--ctx-without); border-radius: 0; }
.ctx-line-budget { height: 0; border-top: 2px solid var(--ctx-budget); border-radius: 0; }
.ctx-chart { flex: none; border-bottom: 1px solid var(--border); }
.ctx-plot { position: relative; padding-left: 52px; }
.ctx-axis { position: absolute; left: 0; top: 0; width: 48px; height: 100%; font-size: 11px; color: var(--fg-muted);
  font-variant-numeric: tabular-nums; }
.ctx-axis span { position: absolute; right: 4px; white-space: nowrap; }
.ctx-off-note { margin: 0; padding: 2px 8px 0 52px; color: var(--fg-muted); font-size: 12px; }
.ctx-off-mark { color: var(--ctx-without); font-size: 10px; }
.ctx-lines { position: absolute; left: 0; top: 0; display: block; overflow: visible; pointer-events: none; }
.ctx-off { fill: var(--ctx-without); }
.ctx-scroll { overflow-x: auto; overflow-y: hidden; }
.ctx-track { position: relative; }
.ctx-svg { position: absolute; left: 0; top: 0; display: block; overflow: hidden; }
.ctx-svg:focus { outline: none; }
.ctx-grid { stroke: var(--border); stroke-width: 1; }
.ctx-step { cursor: pointer; outline: none; }
.ctx-hit { fill: transparent; }
.ctx-step:hover .ctx-hit { fill: var(--bg-hover); }
.ctx-step[aria-selected="true"] .ctx-hit { fill: var(--bg-active); }
.ctx-ring { fill: none; stroke: var(--accent); stroke-width: 2; visibility: hidden; pointer-events: none; }
.ctx-step:focus-visible .ctx-ring { visibility: visible; }
.ctx-tick { font-size: 10px; fill: var(--fg-muted); text-anchor: middle; }
.ctx-without { fill: none; stroke: var(--ctx-without); stroke-width: 1.5; stroke-dasharray: 4 3; pointer-events: none; }
.ctx-reported { stroke: var(--ctx-reported); stroke-width: 2; pointer-events: none; }
.ctx-cached { fill: var(--ctx-cached); pointer-events: none; }
.ctx-line-reported { height: 0; border-top: 2px solid var(--ctx-reported); border-radius: 0; }
.ctx-cached-swatch { background: var(--ctx-cached); }
.ctx-summary { margin: 0; padding: 0 8px 6px; color: var(--fg-muted); }
.ctx-budget { fill: none; stroke: var(--ctx-budget); stroke-width: 2; pointer-events: none; }
.ctx-detail { padding: 6px 8px; min-height: 0; }
.ctx-parts { display: flex; flex-wrap: wrap; gap: 2px 12px; margin: 4px 0; color: var(--fg-muted); }
.ctx-results { list-style: none; margin: 0; padding: 0; }
.ctx-result { display: grid; grid-template-columns: minmax(6em, 12em) 9em 7em minmax(0, 1fr); gap: 8px; padding: 2px 0;
  border-bottom: 1px solid var(--border); align-items: baseline; }
.ctx-result > * { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
@container list (max-width: 560px) {
  .ctx-result { grid-template-columns: 1fr auto auto; }
  .ctx-result > :nth-child(4) { grid-column: 1 / -1; }
}
.ctx-shown { font-size: 11px; padding: 0 6px; border-radius: 8px; border: 1px solid currentColor; justify-self: start; }
.ctx-shown-whole { color: var(--ctx-whole); } .ctx-shown-preview { color: var(--ctx-previews); }
.ctx-shown-pointer { color: var(--ctx-pointers); } .ctx-shown-cut { color: var(--ctx-cut); }
.ctx-link { border: none; background: transparent; padding: 0; text-align: left; font-family: var(--mono); font-size: 12px;
  min-height: 0; color: var(--accent); overflow: hidden; text-overflow: ellipsis; }
.ctx-link:hover { text-decoration: underline; }
.ctx-link-evicted { color: var(--fg-muted); text-decoration: line-through; }
.ctx-link-evicted:hover { text-decoration: line-through underline; }
.ctx-path { display: flex; gap: 6px; align-items: baseline; min-width: 0; }
.ctx-path > .ctx-link { min-width: 0; }
.ctx-path > .muted { flex: none; }
`;
