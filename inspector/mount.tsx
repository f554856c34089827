import { render } from 'preact';
import type { OffloadStore } from '../lib/index.js';
import { Floating } from './floating.js';
import { Panel } from './panel.js';
import { channelSource } from './source/channel.js';
import { DEFAULT_CHANNEL } from './source/channel-protocol.js';
import { exposeToInspector } from './source/expose.js';
import { assertInspectableStore, assertInspectorSource, panelSource, storeSource } from './source/read-ops.js';
import type { InspectableStore, InspectorSource, PanelSource } from './source/source.js';
import { assertBound, assertOptionNames } from './source/store-info.js';
import { applyStyles } from './styles.js';

/** The options of `mountInspector(target, source, options)`. */
export interface InspectorOptions {
  /**
   * 'embedded' fills the target; 'floating' shows a toggle button that opens a docked panel.
   * @default 'embedded'
   */
  mode?: 'embedded' | 'floating';
  /**
   * A fallback maxTotalBytes for the per-thread gauges. Each gauge shows its thread's own bound as
   * the store reports it (`OffloadStore.bound`: the smallest maxTotalBytes of the agents that wrote
   * to the thread; the built-in stores report it, also through `{ channel }`), so an app using them
   * need not pass it. This is shown for a thread the store reports no bound for (a custom store
   * without `bound`, a store exposed by an older version); then, with `{ channel }`, the bound the
   * exposing window gave exposeToInspector; else the bound shows as unknown.
   */
  bound?: number;
  /** Names the source in the header instead of "this window", the channel's name or the source's own `label`. */
  label?: string;
  /**
   * With `{ store }`: a page of this origin that mounts the inspector with `{ channel }`. When set,
   * the panel shows "Pop out", which exposes the store (and `bound`) on `channel` and opens this URL.
   */
  popOutUrl?: string | URL;
  /**
   * The channel "Pop out" exposes the store on.
   * @default 'tool-output-offload'
   */
  channel?: string;
}

/**
 * What the panel shows: a store in this window, a store exposed on a BroadcastChannel, or any
 * other InspectorSource (e.g. the DevTools extension's, backed by its port).
 */
export type InspectorSourceOption =
  | { store: OffloadStore | InspectableStore }
  | { channel: string }
  | { source: InspectorSource };

const HOST_ATTRIBUTE = 'data-tool-output-offload-inspector';

function isShadowRoot(target: unknown): target is ShadowRoot {
  const node = target as Partial<ShadowRoot> | null;
  return typeof node === 'object' && node !== null && node.nodeType === 11 && 'host' in node;
}

function isElement(target: unknown): target is Element {
  const node = target as Partial<Element> | null;
  return typeof node === 'object' && node !== null && node.nodeType === 1;
}

function checkOptions(options: InspectorOptions): void {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError('mountInspector: options must be an object');
  }
  assertOptionNames(options, ['mode', 'bound', 'label', 'popOutUrl', 'channel'], 'mountInspector');
  const { mode, bound, popOutUrl, label } = options;
  if (mode !== undefined && mode !== 'embedded' && mode !== 'floating') {
    throw new TypeError(`mountInspector: mode must be 'embedded' or 'floating', got ${JSON.stringify(mode)}`);
  }
  assertBound(bound, 'mountInspector');
  if (label !== undefined && typeof label !== 'string') {
    throw new TypeError(`mountInspector: label must be a string, got ${typeof label}`);
  }
  if (popOutUrl !== undefined && typeof popOutUrl !== 'string' && !(popOutUrl instanceof URL)) {
    throw new TypeError('mountInspector: popOutUrl must be a string or a URL');
  }
}

const sourceKinds = ['store', 'channel', 'source'] as const;

/** The panel's source, the store when it lives in this window (for "Pop out"), and what to release at unmount. */
function sourceFrom(option: InspectorSourceOption): { source: PanelSource; store?: InspectableStore; release(): void } {
  const given =
    typeof option === 'object' && option !== null ? sourceKinds.filter((kind) => kind in option) : undefined;
  if (given?.length !== 1) {
    const got = !given ? String(option) : given.length === 0 ? 'neither' : given.join(' and ');
    throw new TypeError(`mountInspector: source must be one of { store }, { channel } or { source }, got ${got}`);
  }
  assertOptionNames(option, given, 'mountInspector: source');
  if ('store' in option) {
    assertInspectableStore(option.store, 'mountInspector');
    const source = storeSource(option.store);
    return { source: panelSource(source, 'this window'), store: option.store, release: () => source.close() };
  }
  if ('channel' in option) {
    const source = channelSource(option.channel);
    return { source, release: () => source.close() };
  }
  assertInspectorSource(option.source, 'mountInspector');
  // A source given is the caller's: unmounting stops listening to it, and leaves it open.
  return { source: panelSource(option.source, 'custom source'), release: () => {} };
}

/**
 * Renders the inspector into `target` (an element or a ShadowRoot) inside a shadow root of its own,
 * so page styles do not reach it and its styles do not leak. Returns a function that removes it,
 * unsubscribes from the store or source and closes its channels.
 */
export function mountInspector(
  target: Element | ShadowRoot,
  source: InspectorSourceOption,
  options: InspectorOptions = {},
): () => void {
  if (!isElement(target) && !isShadowRoot(target)) {
    throw new TypeError('mountInspector: target must be an Element or a ShadowRoot');
  }
  checkOptions(options);
  const { source: panel, store, release } = sourceFrom(source);

  const document = target.ownerDocument;
  const host = document.createElement('div');
  host.setAttribute(HOST_ATTRIBUTE, '');
  // Inline, so page rules for divs cannot resize the host; a floating panel's host takes no room.
  host.style.cssText = options.mode === 'floating' ? 'display: contents' : 'display: block; width: 100%; height: 100%';
  const root = host.attachShadow({ mode: 'open' });
  applyStyles(root);
  const container = document.createElement('div');
  container.className = options.mode === 'floating' ? 'root floating' : 'root';
  root.append(container);
  target.append(host);

  let stopExposing: (() => void) | undefined;
  const popOutUrl = options.popOutUrl;
  const onPopOut =
    store && popOutUrl !== undefined
      ? () => {
          stopExposing ??= exposeToInspector(store, {
            channel: options.channel ?? DEFAULT_CHANNEL,
            bound: options.bound,
          });
          const opened = document.defaultView?.open(String(popOutUrl), '_blank', 'popup,width=1100,height=720');
          return opened ? undefined : 'The browser blocked the pop-up window: allow pop-ups for this page.';
        }
      : undefined;

  const props = {
    source: panel,
    label: options.label || panel.label,
    bound: options.bound,
    onPopOut,
  };
  render(options.mode === 'floating' ? <Floating {...props} /> : <Panel {...props} />, container);

  let mounted = true;
  return () => {
    if (!mounted) return;
    mounted = false;
    render(null, container);
    release();
    stopExposing?.();
    host.remove();
  };
}
