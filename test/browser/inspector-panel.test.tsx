import { afterEach, describe, expect, it, vi } from 'vitest';
import { userEvent } from 'vitest/browser';
import { ToolOutputOffload } from '../../lib/offload/tool-output-offload.js';
import { MemoryOffloadStore } from '../../lib/store/memory-store.js';
import {
  boundless,
  button,
  chooseThread,
  cleanupMounts,
  mount,
  put,
  sampleStore,
  setValue,
  threadChoices,
  threadPicker,
  until,
} from './inspector-fixtures.js';

afterEach(cleanupMounts);

describe('the entries table', () => {
  it('lists every entry with path, thread, tool, bytes, tokens, cut and age', async () => {
    const store = await sampleStore();
    const view = mount({ store });
    await until(() => expect(view.paths()).toHaveLength(3));
    // Newest first by default.
    expect(view.paths()).toEqual([
      '/large_tool_results/delta',
      '/large_tool_results/bravo',
      '/large_tool_results/alpha',
    ]);
    const bravo = view.all<HTMLTableRowElement>('tbody tr.row')[1]!;
    const cells = [...bravo.cells].map((cell) => cell.textContent);
    expect(cells).toEqual(['/large_tool_results/bravo', 'chat-1', 'search', '28 B of 88 KiB', '7', 'cut', '30 s']);
    const headers = view.all('thead th').map((th) => th.textContent);
    expect(headers).toEqual(['Path', 'Thread', 'Tool', 'Stored', 'Tokens', 'Cut', 'Age']);
  });

  it('sorts by any column when its header is clicked, and says so with aria-sort', async () => {
    const view = mount({ store: await sampleStore() });
    await until(() => expect(view.paths()).toHaveLength(3));
    const header = (name: string) => view.all('thead th').find((th) => th.textContent === name)!;

    header('Stored').querySelector('button')!.click();
    await until(() => expect(view.paths()[0]).toBe('/large_tool_results/bravo'));
    expect(view.paths()).toEqual([
      '/large_tool_results/bravo',
      '/large_tool_results/delta',
      '/large_tool_results/alpha',
    ]);
    expect(header('Stored').getAttribute('aria-sort')).toBe('ascending');
    expect(header('Age').getAttribute('aria-sort')).toBe('none');

    header('Stored').querySelector('button')!.click();
    await until(() => expect(header('Stored').getAttribute('aria-sort')).toBe('descending'));
    expect(view.paths()[0]).toBe('/large_tool_results/alpha');

    header('Tool').querySelector('button')!.click();
    await until(() =>
      expect(view.all<HTMLTableRowElement>('tbody tr.row').map((row) => row.cells[2]!.textContent)).toEqual([
        'fetch_page',
        'read_db',
        'search',
      ]),
    );
  });

  it('filters by thread and by text', async () => {
    const view = mount({ store: await sampleStore() });
    await until(() => expect(view.paths()).toHaveLength(3));
    threadPicker(view).click();
    await until(() => expect(threadChoices(view)).toEqual(['All threads', 'chat-1', 'chat-2']));

    await chooseThread(view, 'chat-2');
    await until(() => expect(view.paths()).toEqual(['/large_tool_results/delta']));

    await chooseThread(view, '');
    await until(() => expect(view.paths()).toHaveLength(3));
    const text = view.one<HTMLInputElement>('input[aria-label="Filter by text"]');
    setValue(text, 'SEARCH'); // tool name, any case
    await until(() => expect(view.paths()).toEqual(['/large_tool_results/bravo']));
    setValue(text, 'alph'); // path
    await until(() => expect(view.paths()).toEqual(['/large_tool_results/alpha']));
    setValue(text, 'no such thing');
    await until(() => expect(view.one('tbody').textContent).toContain('No entry matches the filter (3 stored)'));
  });

  it('shows a gauge of each thread against the bound option for a store that reports none, or says the bound is unknown', async () => {
    const store = boundless(await sampleStore());
    const known = mount({ store }, { bound: 4096 });
    await until(() => expect(known.all('meter')).toHaveLength(2));
    const chat1 = known.one<HTMLMeterElement>('meter[aria-label="Thread chat-1: stored bytes"]');
    expect(chat1.value).toBe(3028);
    expect(chat1.max).toBe(4096);
    expect(chat1.getAttribute('aria-valuetext')).toBe('3.0 KiB of 4.0 KiB (74%)');

    const unknown = mount({ store });
    await until(() => expect(unknown.one('.gauges').textContent).toContain('bound unknown'));
    expect(unknown.all('meter')).toHaveLength(0);
  });
});

describe('a selected entry', () => {
  it('shows exactly the preview the model saw beside the stored text, read only when selected', async () => {
    const store = await sampleStore();
    const read = vi.spyOn(store, 'read');
    const view = mount({ store });
    await until(() => expect(view.paths()).toHaveLength(3));
    expect(read).not.toHaveBeenCalled();

    view.all('tbody tr.row')[1]!.click();
    await until(() => expect(view.all('.line')).toHaveLength(3));
    expect(read).toHaveBeenCalledTimes(1);
    expect(read).toHaveBeenCalledWith('chat-1', 'bravo');
    expect(view.one('pre.preview').textContent).toBe('Result stored at /large_tool_results/bravo\nline one');
    expect(
      view.all('.line').map((line) => [line.querySelector('.ln')!.textContent, line.querySelector('.lt')!.textContent]),
    ).toEqual([
      ['1', 'line one'],
      ['2', 'line two'],
      ['3', 'line three'],
    ]);
    expect(view.all('tbody tr.row')[1]!.getAttribute('aria-selected')).toBe('true');
    expect(view.one('.facts').textContent).toContain('cut from 88 KiB');
  });

  it('pages a 1 MiB text 500 lines at a time', async () => {
    const store = new MemoryOffloadStore();
    const lines = Array.from({ length: 20_000 }, (_, i) => `line ${i + 1} ${'x'.repeat(45)}`);
    const text = lines.join('\n');
    expect(text.length).toBeGreaterThan(1 << 20);
    await put(store, 't', 'huge', text);
    const view = mount({ store });
    await until(() => expect(view.paths()).toHaveLength(1));
    view.all('tbody tr.row')[0]!.click();

    await until(() => expect(view.all('.line')).toHaveLength(500));
    expect(view.root.textContent).toContain('Lines 1–500 of 20,000');
    expect(view.all('.lt')[0]!.textContent).toBe(lines[0]);
    button(view, 'Next page').click();
    await until(() => expect(view.all('.ln')[0]!.textContent).toBe('501'));
    expect(view.all('.lt')[0]!.textContent).toBe(lines[500]);
    button(view, 'Last page').click();
    await until(() => expect(view.root.textContent).toContain('Lines 19,501–20,000 of 20,000'));
    expect(view.all('.lt').at(-1)!.textContent).toBe(lines.at(-1));
    expect(button(view, 'Next page').disabled).toBe(true);
    button(view, 'Previous page').click();
    await until(() => expect(view.all('.ln')[0]!.textContent).toBe('19001'));
  });

  it('counts lines as the stored-result header and read_file do: a final newline ends the last line', async () => {
    const store = new MemoryOffloadStore();
    const offload = new ToolOutputOffload({ store, thresholdTokens: 1000 });
    const lines = Array.from({ length: 200 }, (_, i) => `line ${i + 1} ${'x'.repeat(30)}`);
    const text = `${lines.join('\n')}\n`;
    const outcome = await offload.offloadResult({ threadId: 't', callId: 'c1', toolName: 'echo', content: text });
    expect(outcome.kind).toBe('stored');
    const header = JSON.stringify(outcome.content);
    expect(header).toContain('Stored: all');
    expect(header).toContain('(200 lines)');
    const key = outcome.path!.slice('/large_tool_results/'.length);
    expect((await store.readLines('t', key, 0)).totalLines).toBe(200);
    await put(store, 't', 'blank', '\n'.repeat(5000));

    const view = mount({ store });
    await until(() => expect(view.paths()).toHaveLength(2));
    const open = (path: string) =>
      view
        .all('tbody tr.row')
        .find((row) => row.querySelector('td')?.textContent === path)!
        .click();
    open(outcome.path!);
    await until(() => expect(view.root.textContent).toContain('Lines 1–200 of 200'));
    expect(view.all('.lt')).toHaveLength(200);
    expect(view.all('.lt').at(-1)!.textContent).toBe(lines.at(-1));

    open('/large_tool_results/blank');
    await until(() => expect(view.root.textContent).toContain('Lines 1–500 of 5,000'));
    button(view, 'Last page').click();
    await until(() => expect(view.root.textContent).toContain('Lines 4,501–5,000 of 5,000'));
    expect(view.all('.ln').at(-1)!.textContent).toBe('5000');
  });

  it('shows a result the age limit (maxAgeMs) evicted as expired, and why when it is opened', async () => {
    const store = new MemoryOffloadStore();
    const day = 24 * 60 * 60 * 1000;
    await put(store, 'chat-1', 'old', 'o'.repeat(2000), { createdAt: Date.now() - 2 * day });
    await put(store, 'chat-1', 'new', 'n'.repeat(2000));
    const offload = new ToolOutputOffload({ store, maxAgeMs: day });
    // The thread's next update (here an adapter's call, kept whole) expires what is over a day old.
    await offload.offloadResult({ threadId: 'chat-1', callId: 'c1', toolName: 'echo', content: 'short' });
    const view = mount({ store });
    await until(() => expect(view.paths()).toEqual(['/large_tool_results/new']));
    button(view, 'Evictions (1)').click();
    await until(() => expect(view.all('.timeline li')).toHaveLength(1));
    const event = view.one('.timeline li');
    expect(event.querySelector('.reason')!.textContent).toBe('expired');
    expect(event.querySelector('.reason')!.classList.contains('reason-expired')).toBe(true);
    expect(event.textContent).toContain('/large_tool_results/old');
    event.querySelector('button')!.click();
    await until(() => expect(view.one('[role="alert"]').textContent).toMatch(/old was evicted because it expired/));
    expect(view.one('.facts').textContent).toContain('evicted (expired)');
  });

  it("shows the store's message when an evicted entry is opened from the timeline", async () => {
    const view = mount({ store: await sampleStore() });
    await until(() => expect(view.paths()).toHaveLength(3));
    expect(view.one('.title').textContent).toContain('3 entries · 1 eviction ·');
    button(view, 'Evictions (1)').click();
    await until(() => expect(view.all('.timeline li')).toHaveLength(1));
    const event = view.one('.timeline li');
    expect(event.querySelector('.reason')!.textContent).toBe('bound');
    expect(event.textContent).toContain('/large_tool_results/charlie');
    expect(event.querySelector('.tool-name')!.textContent).toBe('read_db');
    expect(event.textContent).toContain('100 B');
    event.querySelector('button')!.click();
    await until(() => expect(view.one('[role="alert"]').textContent).toMatch(/charlie was evicted/));
    expect(view.one('.facts').textContent).toContain('evicted (bound)');
    expect(view.one('.facts').textContent).toContain('tool read_db');
  });

  it('names the evicted tool only when the record has one: an older record shows none, unmarked', async () => {
    const store = new MemoryOffloadStore();
    const older = {
      threadId: 'chat',
      key: 'old',
      path: '/large_tool_results/old',
      bytes: 5,
      at: Date.now(),
      reason: 'bound',
    };
    const odd = { ...older, key: 'odd', path: '/large_tool_results/odd', toolName: 42 };
    const view = mount({
      store: {
        list: (threadId) => store.list(threadId),
        evictions: async () => [older, odd] as never[],
        failures: (threadId) => store.failures(threadId),
        read: (threadId, key) => store.read(threadId, key),
        totalBytes: (threadId) => store.totalBytes(threadId),
        subscribe: (listener) => store.subscribe(listener),
      },
    });
    await until(() => expect(button(view, 'Evictions (2)')).toBeTruthy());
    expect(view.one('.title').textContent).toContain('0 entries · 2 evictions ·');
    button(view, 'Evictions (2)').click();
    await until(() => expect(view.all('.timeline li')).toHaveLength(2));
    const [oddRow, oldRow] = view.all('.timeline li');
    expect(oldRow!.textContent).toContain('/large_tool_results/old');
    expect(oldRow!.querySelector('.tool-name')).toBeNull();
    expect(oldRow!.querySelector('.problem')).toBeNull();
    expect(oddRow!.querySelector('.problem')!.getAttribute('aria-label')).toBe(
      'Damaged record: toolName is not text (got 42)',
    );
  });

  it('copies the path and the preview, and falls back to selecting the text', async () => {
    const view = mount({ store: await sampleStore() });
    await until(() => expect(view.paths()).toHaveLength(3));
    view.all('tbody tr.row')[1]!.click();
    await until(() => view.one('pre.preview'));

    const copied: string[] = [];
    const clipboard = { writeText: async (text: string) => void copied.push(text) };
    const spy = vi.spyOn(navigator, 'clipboard', 'get').mockReturnValue(clipboard as unknown as Clipboard);
    button(view, 'Copy path').click();
    await until(() => expect(view.one('[role="status"]').textContent).toBe('Copied the path.'));
    button(view, 'Copy preview').click();
    await until(() =>
      expect(copied).toEqual(['/large_tool_results/bravo', 'Result stored at /large_tool_results/bravo\nline one']),
    );

    clipboard.writeText = () => Promise.reject(new DOMException('denied', 'NotAllowedError'));
    button(view, 'Copy preview').click();
    await until(() => expect(view.one('[role="status"]').textContent).toMatch(/preview is selected, press Ctrl\+C/));
    expect(document.getSelection()?.toString()).toBe('Result stored at /large_tool_results/bravo\nline one');
    spy.mockRestore();
  });

  it('is keyboard navigable: arrows move the active row, Enter selects it', async () => {
    const view = mount({ store: await sampleStore() });
    await until(() => expect(view.paths()).toHaveLength(3));
    const grid = view.one('table[role="grid"]');
    grid.focus();
    await userEvent.keyboard('{ArrowDown}{ArrowDown}{ArrowUp}');
    const active = () =>
      view.root.getElementById(grid.getAttribute('aria-activedescendant')!) as HTMLTableRowElement | null;
    await until(() => expect(active()?.cells[0]?.textContent).toBe('/large_tool_results/bravo'));
    await userEvent.keyboard('{Enter}');
    await until(() => expect(view.one('pre.preview').textContent).toContain('/large_tool_results/bravo'));
    await userEvent.keyboard('{End}{Enter}');
    await until(() => expect(view.one('.detail-head .path').textContent).toBe('/large_tool_results/alpha'));

    button(view, 'Entries (3)').focus();
    await userEvent.keyboard('{ArrowRight}');
    await until(() => expect(view.one('[role="tab"][aria-selected="true"]').textContent).toBe('Evictions (1)'));
    expect(view.root.activeElement?.textContent).toBe('Evictions (1)');
  });
});
