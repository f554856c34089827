import { afterEach, describe, expect, it, vi } from 'vitest';
import { userEvent } from 'vitest/browser';
import { exposeToInspector, mountInspector } from '../../inspector/index.js';
import { MemoryOffloadStore } from '../../lib/store/memory-store.js';
import { button, cleanupMounts, inspectorRoot, mount, put, sampleStore, until } from './inspector-fixtures.js';

declare global {
  interface Window {
    __inspectorXss?: number;
  }
}

const pageStyles: HTMLElement[] = [];
afterEach(() => {
  cleanupMounts();
  for (const style of pageStyles.splice(0)) style.remove();
  delete window.__inspectorXss;
});

function addPageStyle(css: string): void {
  const style = document.createElement('style');
  style.textContent = css;
  document.head.append(style);
  pageStyles.push(style);
}

describe('tool output is text, never HTML (I4)', () => {
  it('renders XSS payloads in tool name, preview and stored text as inert text', async () => {
    const payloads = [
      '<img src=x onerror="window.__inspectorXss = 1">',
      '<script>window.__inspectorXss = 2</script>',
      '<svg onload="window.__inspectorXss = 3"></svg>',
      '<iframe src="javascript:window.parent.__inspectorXss = 4"></iframe>',
    ];
    const store = new MemoryOffloadStore();
    await put(store, 'chat', 'xss', payloads.join('\n'), {
      toolName: '<b onmouseover="window.__inspectorXss = 5">tool</b>',
      preview: `Stored at /large_tool_results/xss\n${payloads[0]}`,
    });
    const view = mount({ store });
    await until(() => expect(view.paths()).toHaveLength(1));
    view.all('tbody tr.row')[0]!.click();
    await until(() => expect(view.all('.lt')).toHaveLength(4));
    await new Promise((resolve) => setTimeout(resolve, 100)); // an onerror would have fired by now

    expect(view.all('.lt').map((line) => line.textContent)).toEqual(payloads);
    expect(view.one('pre.preview').textContent).toBe(`Stored at /large_tool_results/xss\n${payloads[0]}`);
    expect(view.one('tbody td:nth-child(3)').textContent).toBe('<b onmouseover="window.__inspectorXss = 5">tool</b>');
    expect(view.root.querySelectorAll('img, script, svg, iframe, b').length).toBe(0);
    expect(window.__inspectorXss).toBeUndefined();
  });
});

describe('mounting', () => {
  it('renders into an element inside a shadow root of its own, with its styles in it', async () => {
    const view = mount({ store: await sampleStore() });
    const host = view.container.querySelector('[data-tool-output-offload-inspector]')!;
    expect(host.shadowRoot).toBe(view.root);
    expect(view.root.mode).toBe('open');
    const sheets = view.root.adoptedStyleSheets.length + view.root.querySelectorAll('style').length;
    expect(sheets).toBe(1);
    await until(() => expect(view.paths()).toHaveLength(3));
    // Embedded mode fills the target.
    const panel = view.one('.panel').getBoundingClientRect();
    expect([Math.round(panel.width), Math.round(panel.height)]).toEqual([1000, 600]);
  });

  it('renders into a ShadowRoot the app provides', async () => {
    const outer = document.createElement('div');
    outer.style.cssText = 'display: block; width: 800px; height: 400px;';
    document.body.append(outer);
    const appRoot = outer.attachShadow({ mode: 'closed' });
    const unmount = mountInspector(appRoot, { store: await sampleStore() });
    const root = inspectorRoot(appRoot);
    await until(() => expect(root.querySelectorAll('tbody tr.row')).toHaveLength(3));
    unmount();
    expect(appRoot.childNodes).toHaveLength(0);
    outer.remove();
  });

  it('keeps page styles out and its own styles in', async () => {
    addPageStyle(`
      * { color: rgb(255, 0, 0) !important; font-family: serif !important; letter-spacing: 9px; }
      button { background: rgb(0, 255, 0) !important; }
      body { line-height: 40px; text-transform: uppercase; }
    `);
    const view = mount({ store: await sampleStore() });
    await until(() => expect(view.paths()).toHaveLength(3));
    const cell = getComputedStyle(view.one('tbody td'));
    expect(cell.color).not.toBe('rgb(255, 0, 0)');
    expect(cell.fontFamily).not.toContain('serif');
    expect(cell.letterSpacing).toBe('normal');
    expect(cell.textTransform).toBe('none');
    expect(getComputedStyle(view.one('thead button')).backgroundColor).not.toBe('rgb(0, 255, 0)');
    expect(view.paths()[0]).toBe('/large_tool_results/delta'); // not uppercased

    // The panel's class names and element rules do not reach the page.
    const pageTable = document.createElement('table');
    pageTable.className = 'grid';
    pageTable.innerHTML = '<thead class="head"><tr class="row cols"><th>x</th></tr></thead>';
    document.body.append(pageTable);
    const row = pageTable.querySelector('tr')!;
    expect(getComputedStyle(row).position).toBe('static');
    expect(getComputedStyle(row).display).toBe('table-row');
    expect(getComputedStyle(pageTable.querySelector('thead')!).position).toBe('static');
    pageTable.remove();
  });

  it('unmount removes everything and stops listening to the store', async () => {
    const store = await sampleStore();
    const subscribe = vi.spyOn(store, 'subscribe');
    const list = vi.spyOn(store, 'list');
    const view = mount({ store });
    await until(() => expect(view.paths()).toHaveLength(3));
    expect(subscribe).toHaveBeenCalledTimes(1);
    view.unmount();
    expect(view.container.childNodes).toHaveLength(0);
    const reads = list.mock.calls.length;
    await put(store, 'chat-1', 'after', 'text');
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(list.mock.calls.length).toBe(reads);
    view.unmount(); // twice is harmless
  });

  it('refuses bad arguments with errors that name them', async () => {
    const store = new MemoryOffloadStore();
    const el = document.createElement('div');
    expect(() => mountInspector('#app' as unknown as Element, { store })).toThrow(
      /target must be an Element or a ShadowRoot/,
    );
    expect(() => mountInspector(el, {} as { store: MemoryOffloadStore })).toThrow(
      /source must be one of \{ store \}, \{ channel \} or \{ source \}, got neither/,
    );
    expect(() => mountInspector(el, { store: { list() {} } as unknown as MemoryOffloadStore })).toThrow(
      /store has no read\(\) method/,
    );
    expect(() => mountInspector(el, { channel: '' })).toThrow(/channel must be a non-empty string/);
    expect(() => mountInspector(el, { store }, { mode: 'docked' as 'floating' })).toThrow(/mode must be/);
    expect(() => mountInspector(el, { store }, { bound: -1 })).toThrow(RangeError);
    expect(() => exposeToInspector({} as MemoryOffloadStore)).toThrow(/store has no list\(\) method/);
    expect(() => exposeToInspector(store, { channel: 42 as unknown as string })).toThrow(/channel must be/);
    expect(() => exposeToInspector(store, { bound: 0 })).toThrow(/exposeToInspector: bound must be a positive number/);
    expect(() => exposeToInspector(store, { bound: Number.NaN })).toThrow(RangeError);
    expect(() => mountInspector(el, { store }, { label: 7 as unknown as string })).toThrow(/label must be a string/);
    expect(el.childNodes).toHaveLength(0);
  });
});

describe('a narrow panel', () => {
  it('shows the selected entry in place of the list, and the list again when it is closed', async () => {
    const view = mount({ store: await sampleStore() });
    view.container.style.width = '600px';
    await until(() => expect(view.paths()).toHaveLength(3));
    view.all('tbody tr.row')[0]!.click();
    await until(() => expect(view.one('.detail').getBoundingClientRect().width).toBe(600));
    expect(view.one('table').getClientRects()).toHaveLength(0); // hidden
    button(view, 'Close details').click();
    await until(() => expect(view.one('table').getClientRects()).toHaveLength(1));
    // The virtual list renders its rows once its ResizeObserver reports the size it has again, which
    // a forced layout (getClientRects) can precede: seen in WebKit.
    await until(() => expect(view.paths()).toHaveLength(3));
  });
});

describe('floating mode', () => {
  it('a toggle button opens and closes a docked, resizable panel that reads only while open', async () => {
    const store = await sampleStore();
    const list = vi.spyOn(store, 'list');
    const view = mount({ store }, { mode: 'floating' });
    const toggle = button(view, 'Tool outputs');
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    expect(view.all('.dock')).toHaveLength(0);
    expect(list).not.toHaveBeenCalled();
    expect(getComputedStyle(toggle).position).toBe('fixed');

    toggle.click();
    await until(() => expect(view.paths()).toHaveLength(3));
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    const dock = view.one('.dock');
    // The viewport's bottom edge, above a horizontal scrollbar (the test's 1000 px wide mount overflows
    // the frame): innerHeight includes the scrollbar, which takes room in Firefox and not in Chromium.
    expect(dock.getBoundingClientRect().bottom).toBe(document.documentElement.clientHeight);
    const height = dock.getBoundingClientRect().height;

    const handle = view.one('[role="separator"]');
    handle.focus();
    await userEvent.keyboard('{ArrowUp}{ArrowUp}');
    await until(() => expect(dock.getBoundingClientRect().height).toBe(height + 48));
    expect(handle.getAttribute('aria-valuenow')).toBe(String(height + 48));

    await userEvent.keyboard('{Escape}');
    await until(() => expect(view.all('.dock')).toHaveLength(0));
    expect(view.root.activeElement).toBe(toggle);

    toggle.click();
    await until(() => expect(view.all('.dock')).toHaveLength(1));
    button(view, 'Close inspector').click();
    await until(() => expect(view.all('.dock')).toHaveLength(0));
  });
});
