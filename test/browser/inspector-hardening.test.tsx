import { openDB } from 'idb';
import { render } from 'preact';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Boundary } from '../../inspector/boundary.js';
import { EntryList } from '../../inspector/entries/list.js';
import { defaultSort } from '../../inspector/entries/rows.js';
import type { InspectableStore } from '../../inspector/index.js';
import type { EntryRow } from '../../inspector/source/records.js';
import { IndexedDbOffloadStore } from '../../lib/store/indexeddb-store.js';
import { MemoryOffloadStore } from '../../lib/store/memory-store.js';
import type { StoredResultInfo } from '../../lib/store/offload-store.js';
import { button, cleanupMounts, mount, put, until } from './inspector-fixtures.js';

afterEach(cleanupMounts);

const FIVE_MB_LINE = 'p'.repeat(5_000_000);

/**
 * A store whose lists carry damaged records beside the real ones, as records read from storage
 * shared with every script of the origin can be: an invalid date, text where a number belongs,
 * missing fields, a 5 MB path, a reason this version does not know.
 */
function damagedStore(store: MemoryOffloadStore): InspectableStore {
  const damaged: unknown[] = [
    {
      threadId: 'chat',
      key: 'bad-date',
      path: '/large_tool_results/bad-date',
      toolName: 'fetch_page',
      bytes: 10,
      originalBytes: 10,
      estimatedTokens: 3,
      truncated: false,
      seq: 1,
      createdAt: 8.64e15 + 1,
      preview: 'bad date',
    },
    {
      threadId: 'chat',
      key: 'text-bytes',
      path: '/large_tool_results/text-bytes',
      toolName: 'search',
      bytes: 'five',
      originalBytes: { n: 5 },
      estimatedTokens: Number.NaN,
      truncated: 'no',
      seq: 2,
      createdAt: Date.now(),
      preview: 7,
    },
    { key: 'no-strings', bytes: 4, createdAt: Date.now() },
    {
      threadId: 'chat',
      key: 'huge',
      path: `/large_tool_results/${FIVE_MB_LINE}`,
      toolName: FIVE_MB_LINE,
      bytes: 1,
      originalBytes: 1,
      estimatedTokens: 1,
      truncated: false,
      seq: 3,
      createdAt: Date.now(),
      preview: FIVE_MB_LINE,
    },
  ];
  const badEvictions: unknown[] = [
    { threadId: 'chat', key: 'gone', path: '/large_tool_results/gone', bytes: -3, at: 'yesterday', reason: 'lost' },
  ];
  const badFailures: unknown[] = [{ threadId: 'chat', key: 'f', path: '/large_tool_results/f', at: Number.NaN }];
  return {
    list: async (threadId?: string) => [...damaged, ...(await store.list(threadId))] as StoredResultInfo[],
    evictions: async (threadId?: string) => [...badEvictions, ...(await store.evictions(threadId))] as never[],
    failures: async (threadId?: string) => [...badFailures, ...(await store.failures(threadId))] as never[],
    read: (threadId, key) => store.read(threadId, key),
    totalBytes: (threadId) => store.totalBytes(threadId),
    subscribe: (listener) => store.subscribe(listener),
  };
}

describe('damaged records (the inspector cannot be killed by data)', () => {
  it('shows every damaged record marked with what is wrong, and stays live: a new result appears after them', async () => {
    const store = new MemoryOffloadStore();
    await put(store, 'chat', 'good', 'a good result');
    const view = mount({ store: damagedStore(store) });
    await until(() => expect(view.one('[role="tab"]').textContent).toBe('Entries (5)'));
    const marks = () => view.all('tbody .problem').map((mark) => mark.getAttribute('aria-label'));
    await until(() => expect(marks()).toHaveLength(3)); // the 5 MB record is well-formed
    expect(marks()).toContain('Damaged record: createdAt is not a time (got 8640000000000001)');
    expect(marks()).toContain(
      'Damaged record: bytes is not a count (got "five"); originalBytes is not a count (got an object); ' +
        'estimatedTokens is not a count (got NaN); truncated is not true or false (got "no"); preview is not text (got 7)',
    );
    expect(marks().find((mark) => mark?.includes('threadId is missing'))).toContain('path is missing');
    const rows = view.all<HTMLTableRowElement>('tbody tr.row');
    const badDate = rows.find((row) => row.textContent?.includes('bad-date'))!;
    expect(badDate.cells[6]!.textContent).toBe('—');
    expect(badDate.cells[6]!.title).toBe('no valid time');
    expect(rows.find((row) => row.textContent?.includes('text-bytes'))!.cells[3]!.textContent).toBe('—');
    // A 5 MB field shows as one clipped line, not 5 MB of DOM text.
    expect(view.root.textContent!.length).toBeLessThan(50_000);

    await put(store, 'chat', 'after', 'a result stored after the damaged ones');
    await until(() => expect(view.paths()).toContain('/large_tool_results/after'));
    expect(view.one('[role="tab"]').textContent).toBe('Entries (6)');
  });

  it('opens a damaged entry: the facts it has, "invalid date" for its time, its preview clipped', async () => {
    const store = new MemoryOffloadStore();
    const view = mount({ store: damagedStore(store) });
    await until(() => expect(view.paths().some((path) => path.endsWith('/bad-date'))).toBe(true));
    view
      .all('tbody tr.row')
      .find((row) => row.textContent?.includes('bad-date'))!
      .click();
    await until(() => expect(view.one('.facts').textContent).toContain('stored at invalid date'));
    expect(view.one('.detail .problem').getAttribute('aria-label')).toContain('createdAt is not a time');

    view.one<HTMLButtonElement>('button[aria-label="Close details"]').click();
    view
      .all('tbody tr.row')
      .find((row) => row.querySelector('.path-text')?.textContent?.startsWith('/large_tool_results/ppp'))!
      .click();
    await until(() => expect(view.one('pre.preview').textContent!.length).toBe(200_000));
  });

  it('lists a damaged eviction and failure with "invalid date" and their marks', async () => {
    const store = new MemoryOffloadStore();
    await store.reportFailure({
      threadId: 'chat',
      key: 'quota',
      path: '/large_tool_results/quota',
      toolName: 'fetch_page',
      bytes: 10,
      at: Date.now(),
      error: 'QuotaExceededError',
    });
    const view = mount({ store: damagedStore(store) });
    await until(() => button(view, 'Evictions (1)')).then((tab) => tab.click());
    await until(() => expect(view.one('.timeline').textContent).toContain('invalid date'));
    expect(view.one('.timeline').textContent).toContain('lost');
    expect(view.one('.timeline time').hasAttribute('datetime')).toBe(false);
    expect(view.one('.timeline .problem').getAttribute('aria-label')).toBe(
      'Damaged record: bytes is not a count (got -3); at is not a time (got "yesterday")',
    );
    button(view, 'Not stored (2)').click();
    await until(() => expect(view.all('.timeline .event')).toHaveLength(2));
    expect(view.one('.timeline').textContent).toContain('QuotaExceededError');
  });

  it('says how many listed items were not records at all, and shows the rest', async () => {
    const store = new MemoryOffloadStore();
    await put(store, 'chat', 'good', 'a good result');
    const odd: InspectableStore = {
      ...damagedStore(store),
      list: async (threadId?: string) => [null, 'text', 42, ...(await store.list(threadId))] as StoredResultInfo[],
    };
    const view = mount({ store: odd });
    await until(() => expect(view.paths()).toEqual(['/large_tool_results/good']));
    expect(view.one('[role="alert"]').textContent).toBe(
      '3 items the store listed are not a record (not an object) and not shown.',
    );
  });

  it('shows a line of 1 MB cut, with a button that shows all of it', async () => {
    const store = new MemoryOffloadStore();
    await put(store, 'chat', 'long', `short line\n${'x'.repeat(1_000_000)}\nlast`);
    const view = mount({ store });
    await until(() => expect(view.paths()).toHaveLength(1));
    view.all('tbody tr.row')[0]!.click();
    await until(() => expect(view.all('.lt')).toHaveLength(3));
    const long = view.all('.lt')[1]!;
    expect(long.textContent!.length).toBeLessThan(10_100);
    button(view, 'Show the whole line (1,000,000 characters)').click();
    await until(() => expect(view.all('.lt')[1]!.textContent!.length).toBe(1_000_000));
  });
});

describe('the error boundary', () => {
  function Broken({ when }: { when: boolean }): null {
    if (when) throw new Error('cannot render this');
    return null;
  }

  it('says what failed, keeps its siblings live, and tries again with new data', async () => {
    const container = document.createElement('div');
    document.body.append(container);
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    const show = (version: number, broken: boolean) =>
      render(
        <>
          <Boundary what="The entries list" retryKey={version}>
            <Broken when={broken} />
            <p class="inside">inside {version}</p>
          </Boundary>
          <p class="beside">beside {version}</p>
        </>,
        container,
      );
    try {
      show(1, true);
      await until(() =>
        expect(container.querySelector('[role="alert"]')?.textContent).toBe(
          'The entries list could not be shown: cannot render this Try again',
        ),
      );
      expect(container.querySelector('.beside')?.textContent).toBe('beside 1');
      expect(logged).toHaveBeenCalledWith(
        'tool-output-offload inspector: The entries list failed to render',
        expect.any(Error),
      );
      show(2, true);
      await until(() => expect(container.querySelector('.beside')?.textContent).toBe('beside 2'));
      expect(container.querySelector('[role="alert"]')).not.toBeNull();
      show(3, false); // new data that renders
      await until(() => expect(container.querySelector('.inside')?.textContent).toBe('inside 3'));
      expect(container.querySelector('[role="alert"]')).toBeNull();
    } finally {
      render(null, container);
      container.remove();
      logged.mockRestore();
    }
  });

  it('a row that throws while rendering says so in its place; the other rows render', async () => {
    const container = document.createElement('div');
    container.style.cssText = 'width: 1000px; height: 400px; display: flex;';
    document.body.append(container);
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    const row = (key: string): EntryRow => ({
      threadId: 'chat',
      key,
      path: `/large_tool_results/${key}`,
      toolName: 'fetch_page',
      bytes: 10,
      originalBytes: 10,
      estimatedTokens: 3,
      truncated: false,
      seq: 1,
      createdAt: Date.now(),
      preview: key,
    });
    // A row object whose field throws when read: what a bug in a formatter would do.
    const hostile = Object.defineProperty(row('hostile'), 'bytes', {
      get() {
        throw new Error('bytes exploded');
      },
    });
    try {
      render(
        <EntryList
          rows={[row('one'), hostile, row('three')]}
          sort={defaultSort}
          onSort={() => {}}
          selectedId={undefined}
          onSelect={() => {}}
          now={Date.now()}
          total={3}
        />,
        container,
      );
      await until(() => expect(container.querySelectorAll('tbody tr.row')).toHaveLength(3));
      const texts = [...container.querySelectorAll('tbody tr.row')].map((tr) => tr.textContent);
      expect(texts[0]).toContain('/large_tool_results/one');
      expect(texts[1]).toBe('This row could not be shown: bytes exploded');
      expect(texts[2]).toContain('/large_tool_results/three');
    } finally {
      render(null, container);
      container.remove();
      logged.mockRestore();
    }
  });
});

describe('records the store skipped as unreadable', () => {
  it('an IndexedDB entry damaged on disk: listed under "Unreadable" with its key and why; the rest stays live', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const store = new IndexedDbOffloadStore({ name: `inspector-unreadable-${crypto.randomUUID()}` });
    try {
      await put(store, 'chat', 'good', 'a good result');
      await put(store, 'chat', 'damaged', 'a result whose record gets damaged');
      // Another script of the origin (or a disk fault) rewrites the record without its size.
      const raw = await openDB(store.name);
      const record = await raw.get('entries', ['chat', 'damaged']);
      await raw.put('entries', { ...record, bytes: 'many' });
      raw.close();

      const view = mount({ store });
      await until(() => expect(view.paths()).toEqual(['/large_tool_results/good']));
      await until(() => button(view, 'Unreadable (1)')).then((tab) => tab.click());
      await until(() => expect(view.one('.timeline').textContent).toContain('["chat","damaged"]'));
      expect(view.one('.timeline').textContent).toMatch(/entries.*unreadable.*chat.*bytes/);

      await put(store, 'chat', 'after', 'stored after');
      view.one('#tab-entries').click();
      await until(() => expect(view.paths()).toContain('/large_tool_results/after'));
    } finally {
      cleanupMounts();
      await store.deleteDatabase();
      warn.mockRestore();
    }
  });

  it('a custom store’s report, filtered by thread like the other lists; none from a store without unreadable()', async () => {
    const store = new MemoryOffloadStore();
    await put(store, 'chat', 'good', 'a good result');
    const reporting: InspectableStore = {
      ...damagedStore(store),
      unreadable: async () => [
        { store: 'entries', key: '["chat","x"]', threadId: 'chat', reason: 'createdAt is not a number' },
        { store: 'chunks', key: '["t1",0]', reason: 'the chunk is not text' },
      ],
    };
    const view = mount({ store: reporting });
    await until(() => button(view, 'Unreadable (2)')).then((tab) => tab.click());
    await until(() => expect(view.all('.timeline .event')).toHaveLength(2));
    expect(view.one('.timeline').textContent).toContain('createdAt is not a number');
    expect(view.one('.timeline').textContent).toContain('no thread');

    const plain = mount({ store: damagedStore(store) });
    await until(() => expect(plain.paths()).toContain('/large_tool_results/good'));
    expect(plain.all('[role="tab"]').map((tab) => tab.textContent)).not.toContain('Unreadable (0)');
    expect(plain.all('[role="tab"]').some((tab) => tab.textContent?.startsWith('Unreadable'))).toBe(false);
  });
});
