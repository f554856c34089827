import { afterEach, describe, expect, it, vi } from 'vitest';
import { type InspectorSource, mountInspector, type SourceChange } from '../../inspector/index.js';
import inspectorReadme from '../../inspector/README.md?raw';
import { MemoryOffloadStore } from '../../lib/store/memory-store.js';
import { cleanupMounts, inspectorRoot, mount, put, sampleStore, until } from './inspector-fixtures.js';
import example from './readme/inspector-source-example.ts?raw';
import { asPublished } from './readme/readme-block.js';

afterEach(cleanupMounts);

const settle = () => new Promise((resolve) => setTimeout(resolve, 100));

/** A source over a store in this window, written as a user would, counting who listens. */
function sourceOver(store: MemoryOffloadStore) {
  const listening = { count: 0 };
  const source: InspectorSource = {
    label: 'my source',
    list: (threadId, options) => store.list(threadId, options),
    evictions: (threadId) => store.evictions(threadId),
    totalBytes: (threadId) => store.totalBytes(threadId),
    read: (threadId, key) => store.read(threadId, key),
    onChange(listener) {
      listening.count += 1;
      const stop = store.subscribe((event) => listener([event]));
      return () => {
        listening.count -= 1;
        stop();
      };
    },
  };
  return { source, listening };
}

/** The first ```ts block under `## <heading>` in the inspector's README. */
function readmeSectionBlock(heading: string): string {
  const section = inspectorReadme.split(/^## /m).find((part) => part.startsWith(`${heading}\n`));
  const block = section && /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error(`inspector/README.md has no ts block under "## ${heading}"`);
  return block;
}

describe('mountInspector(target, { source })', () => {
  it('shows a source of your own, opens a stored text on demand, and follows its changes', async () => {
    const store = await sampleStore();
    const { source, listening } = sourceOver(store);
    const read = vi.spyOn(source, 'read');
    const view = mount({ source }, { bound: 4096 });
    await until(() => expect(view.paths()).toHaveLength(3));
    expect(view.one('.title').textContent).toContain('my source');
    // Without failures(), unreadable() or info(): no such tab, and the bound is the option's.
    expect(view.all('[role="tab"]').map((tab) => tab.textContent)).toEqual(['Entries (3)', 'Evictions (1)', 'Context']);
    expect(read).not.toHaveBeenCalled();

    view.all<HTMLElement>('tbody tr.row')[1]!.click();
    await until(() =>
      expect(view.all('.lt').map((line) => line.textContent)).toEqual(['line one', 'line two', 'line three']),
    );
    expect(read.mock.calls).toEqual([['chat-1', 'bravo']]);

    const list = vi.spyOn(source, 'list');
    await put(store, 'chat-2', 'echo', 'a new result', { createdAt: Date.now() + 1000 });
    await until(() => expect(view.paths()).toContain('/large_tool_results/echo'));
    await settle();
    expect(list.mock.calls).toEqual([['chat-2', { keys: ['echo'] }]]);

    expect(listening.count).toBeGreaterThan(0);
    view.unmount();
    expect(listening.count).toBe(0); // unmount stops listening, and leaves the source to its owner
  });

  it('reads everything again when a change is not well-formed, and survives methods that throw or answer no promise', async () => {
    const store = await sampleStore();
    const listeners = new Set<(changes: readonly SourceChange[] | undefined) => void>();
    const source: InspectorSource = {
      list: (threadId, options) => store.list(threadId, options),
      evictions: () => {
        throw new Error('the log is offline');
      },
      totalBytes: (threadId) => store.totalBytes(threadId),
      read: () => 'not a promise' as never,
      onChange(listener) {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    };
    const list = vi.spyOn(source, 'list');
    const view = mount({ source });
    await until(() => expect(view.paths()).toHaveLength(3));
    await until(() => expect(view.one('[role="alert"]').textContent).toContain('the log is offline'));
    expect(view.one('.title').textContent).toContain('custom source');

    list.mockClear();
    await put(store, 'chat-3', 'foxtrot', 'another', { createdAt: Date.now() + 1000 });
    for (const listener of listeners) listener([{ type: 'stored', threadId: 42, key: 'foxtrot' } as never]);
    await until(() => expect(view.paths()).toContain('/large_tool_results/foxtrot'));
    expect(list.mock.calls).toEqual([[undefined, undefined]]); // every thread

    view.all<HTMLElement>('tbody tr.row')[0]!.click();
    await until(() => expect(view.all('.lt').map((line) => line.textContent)).toEqual(['not a promise']));
  });

  it('refuses a malformed source with an error that names what is wrong', () => {
    const el = document.createElement('div');
    const { source } = sourceOver(new MemoryOffloadStore());
    const cases: Array<[unknown, RegExp]> = [
      [null, /mountInspector: source must be an InspectorSource object, got null/],
      ['store', /source must be an InspectorSource object, got "store"/],
      [[], /source must be an InspectorSource object, got an array/],
      [{ ...source, onChange: undefined }, /mountInspector: source\.onChange must be a function, got undefined/],
      [{ ...source, read: 'text' }, /source\.read must be a function, got "text"/],
      [{ ...source, failures: [] }, /source\.failures must be a function when given, got an array/],
      [{ ...source, info: {} }, /source\.info must be a function when given, got an object/],
      [{ ...source, label: 7 }, /source\.label must be a string when given, got 7/],
    ];
    for (const [bad, message] of cases) {
      expect(() => mountInspector(el, { source: bad as InspectorSource })).toThrow(message);
    }
    expect(() => mountInspector(el, { source, store: new MemoryOffloadStore() } as never)).toThrow(
      /source must be one of \{ store \}, \{ channel \} or \{ source \}, got store and source/,
    );
    expect(el.childElementCount).toBe(0);
  });
});

describe('the inspector README’s source example', () => {
  it('is the inspector README’s example, word for word', () => {
    const published = asPublished(example, {
      '../../../lib/index.js': 'tool-output-offload',
      '../../../inspector/index.js': 'tool-output-offload/inspector',
    });
    expect(readmeSectionBlock('A source of your own')).toBe(published);
  });

  it('shows one thread of the store, and reads nothing for the others', async () => {
    const { store, unmount } = await import('./readme/inspector-source-example.js');
    try {
      const list = vi.spyOn(store, 'list');
      await put(store, 'chat-1', 'mine', 'my result');
      await put(store, 'chat-2', 'theirs', 'their result');
      const root = inspectorRoot(document.body);
      const paths = () => [...root.querySelectorAll('tbody tr.row .path-text')].map((cell) => cell.textContent);
      await until(() => expect(paths()).toEqual(['/large_tool_results/mine']));
      expect(root.querySelector('.title')?.textContent).toContain('thread chat-1');
      await settle();
      expect(list.mock.calls.every(([threadId]) => threadId === 'chat-1')).toBe(true);
      expect(root.querySelector('[role="tab"]')?.textContent).toBe('Entries (1)');
    } finally {
      unmount();
    }
  });
});
