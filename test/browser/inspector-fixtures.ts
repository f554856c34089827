import { expect, vi } from 'vitest';
import { mountInspector } from '../../inspector/index.js';
import type { InspectorOptions, InspectorSourceOption } from '../../inspector/mount.js';
import { MemoryOffloadStore } from '../../lib/store/memory-store.js';
import type { StagedResult, StoreEvent, WritableOffloadStore } from '../../lib/store/offload-store.js';
import { result } from './fixtures/staged-result.js';

export const BIG_BOUND = 1 << 30;

/** Stages and commits one result, as the offload middleware does. */
export async function put(
  store: WritableOffloadStore,
  threadId: string,
  key: string,
  text: string,
  extra: Partial<StagedResult> = {},
  maxTotalBytes = BIG_BOUND,
): Promise<void> {
  await store.stage({ ...result(threadId, key, text), ...extra });
  await store.apply({ type: 'commit', threadId, key, turnId: `turn-${key}`, maxTotalBytes });
}

/** A store with three entries over two threads, one of them cut, and one eviction. */
export async function sampleStore(): Promise<MemoryOffloadStore> {
  const store = new MemoryOffloadStore();
  await put(store, 'chat-1', 'alpha', 'a'.repeat(3000), { toolName: 'fetch_page', createdAt: Date.now() - 60_000 });
  await put(store, 'chat-1', 'bravo', 'line one\nline two\nline three', {
    toolName: 'search',
    preview: 'Result stored at /large_tool_results/bravo\nline one',
    truncated: true,
    originalBytes: 90_000,
    createdAt: Date.now() - 30_000,
  });
  await put(store, 'chat-2', 'charlie', 'c'.repeat(100), { toolName: 'read_db', createdAt: Date.now() - 5_000 });
  // A second thread-2 result that pushes charlie out of a 150-byte bound.
  await put(store, 'chat-2', 'delta', 'd'.repeat(120), { toolName: 'read_db' }, 150);
  return store;
}

/**
 * The store as a custom store written before `OffloadStore.bound` existed sees it: no `bound()`,
 * and events that tell no bound; the inspector falls back to its `bound` option for it.
 */
export function boundless<S extends WritableOffloadStore>(store: S): S {
  const subscribe = store.subscribe.bind(store);
  return Object.assign(store, {
    bound: undefined,
    subscribe: (listener: (event: StoreEvent) => void) =>
      subscribe((event) => {
        const { bound: _bound, ...rest } = event as { bound?: number };
        listener(rest as StoreEvent);
      }),
  });
}

export interface Mounted {
  container: HTMLElement;
  /** The inspector's own shadow root. */
  root: ShadowRoot;
  unmount: () => void;
  /** Every element matching `selector` inside the inspector. */
  all<E extends Element = HTMLElement>(selector: string): E[];
  one<E extends Element = HTMLElement>(selector: string): E;
  /** The path of every rendered entry row, top to bottom. */
  paths(): string[];
}

const cleanups: Array<() => void> = [];

/** Removes everything the tests of a file mounted. */
export function cleanupMounts(): void {
  for (const cleanup of cleanups.splice(0)) cleanup();
}

export function inspectorRoot(container: Element | ShadowRoot): ShadowRoot {
  const host = container.querySelector('[data-tool-output-offload-inspector]');
  if (!host?.shadowRoot) throw new Error('no inspector host in the container');
  return host.shadowRoot;
}

/** Mounts into a fresh 1000×600 element of the page. */
export function mount(source: InspectorSourceOption, options?: InspectorOptions): Mounted {
  const container = document.createElement('div');
  container.style.cssText = 'width: 1000px; height: 600px;';
  document.body.append(container);
  const unmount = mountInspector(container, source, options);
  cleanups.push(() => {
    unmount();
    container.remove();
  });
  const root = inspectorRoot(container);
  const all = <E extends Element>(selector: string) => [...root.querySelectorAll<E>(selector)];
  const one = <E extends Element>(selector: string) => {
    const found = root.querySelector<E>(selector);
    if (!found) throw new Error(`nothing matches ${selector} in the inspector`);
    return found;
  };
  const paths = () =>
    all<HTMLTableRowElement>('tbody tr.row')
      .sort((a, b) => Number(a.dataset.index) - Number(b.dataset.index))
      .map((row) => row.cells[0]?.querySelector('.path-text')?.textContent ?? '');
  return { container, root, unmount, all, one, paths };
}

/**
 * Waits until `check` stops throwing. The default deadline is generous (a busy machine runs three
 * CI runs at once): a check that holds returns at once, and only a failing one waits it out.
 */
export function until<T>(check: () => T, timeout = 30_000): Promise<T> {
  return vi.waitFor(check, { timeout, interval: 20 });
}

/** The button whose text (or aria-label) is `name`. */
export function button(mounted: Mounted, name: string): HTMLButtonElement {
  const found = mounted
    .all<HTMLButtonElement>('button')
    .find((b) => b.getAttribute('aria-label') === name || b.textContent?.trim() === name);
  if (!found) throw new Error(`no button named ${name}`);
  return found;
}

/** Types into an input or select the way a user does: sets the value and fires the event Preact listens to. */
export function setValue(element: HTMLInputElement | HTMLSelectElement, value: string): void {
  element.value = value;
  element.dispatchEvent(new Event(element instanceof HTMLSelectElement ? 'change' : 'input', { bubbles: true }));
}

/** The thread filter (a combobox whose list exists only while it is open). */
export function threadPicker(mounted: Mounted): HTMLInputElement {
  return mounted.one<HTMLInputElement>('input[role="combobox"][aria-label="Filter by thread"]');
}

/** The text of the thread choices in the DOM, in list order. */
export function threadChoices(mounted: Mounted): string[] {
  return mounted.all('[role="listbox"] [role="option"]').map((option) => option.textContent ?? '');
}

/** Filters on one thread ('' for all) as a user does: types its name and clicks its choice. */
export async function chooseThread(mounted: Mounted, threadId: string): Promise<void> {
  const text = threadId === '' ? 'All threads' : threadId;
  setValue(threadPicker(mounted), threadId);
  const option = await until(() => {
    const found = mounted.all('[role="option"]').find((choice) => choice.textContent === text);
    if (!found) throw new Error(`no thread choice ${text}`);
    return found;
  });
  option.click();
  await until(() => expect(threadPicker(mounted).getAttribute('aria-expanded')).toBe('false'));
}
