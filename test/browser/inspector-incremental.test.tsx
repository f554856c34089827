import { afterEach, describe, expect, it, vi } from 'vitest';
import { exposeToInspector, type InspectableStore, type InspectorSource } from '../../inspector/index.js';
import type { InspectorSourceOption } from '../../inspector/mount.js';
import { UNREADABLE_BATCH_MS } from '../../inspector/source/use-store.js';
import { MemoryOffloadStore } from '../../lib/store/memory-store.js';
import type { StoreEvent } from '../../lib/store/offload-store.js';
import { button, chooseThread, cleanupMounts, type Mounted, mount, put, until } from './inspector-fixtures.js';

const stops: Array<() => void> = [];
afterEach(() => {
  cleanupMounts();
  for (const stop of stops.splice(0)) stop();
});

/** A store of `threads` threads with `each` results each, and one eviction on thread t0. */
async function storeOf(threads: number, each = 1): Promise<MemoryOffloadStore> {
  const store = new MemoryOffloadStore();
  for (let t = 0; t < threads; t++)
    for (let i = 0; i < each; i++) await put(store, `t${t}`, `t${t}-k${i}`, `text ${t}/${i}`);
  await put(store, 't0', 't0-over', 'x'.repeat(200), {}, 200); // evicts the older entries of t0
  return store;
}

/** Every call of the store's read methods, with its arguments. */
function countCalls(store: MemoryOffloadStore) {
  return {
    list: vi.spyOn(store, 'list'),
    evictions: vi.spyOn(store, 'evictions'),
    failures: vi.spyOn(store, 'failures'),
    totalBytes: vi.spyOn(store, 'totalBytes'),
    reset() {
      for (const spy of [this.list, this.evictions, this.failures, this.totalBytes]) spy.mockClear();
    },
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 100));

const tabs = (view: Mounted) => view.all('[role="tab"]').map((tab) => tab.textContent);

/** The paths of the eviction timeline, newest first. */
const loggedPaths = (view: Mounted) =>
  view.all('.timeline li button[title="Show details"]').map((path) => path.textContent);

/** The store's read side, with an `evictions` that ignores its options (a store written before `keys`). */
function ignoringKeys(store: MemoryOffloadStore): InspectableStore {
  return {
    list: (threadId, options) => store.list(threadId, options),
    evictions: (threadId) => store.evictions(threadId),
    totalBytes: (threadId) => store.totalBytes(threadId),
    read: (threadId, key) => store.read(threadId, key),
    subscribe: (listener) => store.subscribe(listener),
  };
}

/** A custom source whose `evictions` ignores its options. */
function sourceIgnoringKeys(store: MemoryOffloadStore): InspectorSource {
  return {
    list: (threadId, options) => store.list(threadId, options),
    evictions: (threadId) => store.evictions(threadId),
    totalBytes: (threadId) => store.totalBytes(threadId),
    read: (threadId, key) => store.read(threadId, key),
    onChange: (listener) => store.subscribe((event) => listener([event])),
  };
}

const chatPaths = (...keys: string[]) => keys.map((key) => `/large_tool_results/${key}`);

/**
 * A store keeping 5 eviction records a thread: thread chat evicted k0 to k5 (k0 trimmed since),
 * shown through `show(store)`, on the evictions tab.
 */
async function trimmedLog(show: (store: MemoryOffloadStore) => InspectorSourceOption | InspectableStore) {
  const store = new MemoryOffloadStore({ logRetention: 5 });
  for (let i = 0; i <= 6; i++) await put(store, 'chat', `k${i}`, 'x'.repeat(10), { createdAt: Date.now() + i }, 10);
  const shown = show(store);
  const view = mount('subscribe' in shown ? { store: shown } : shown);
  await until(() => button(view, 'Evictions (5)')).then((tab) => tab.click());
  await until(() => expect(loggedPaths(view)).toEqual(chatPaths('k5', 'k4', 'k3', 'k2', 'k1')));
  await settle();
  return { store, view };
}

/** One more eviction (k6), which trims the oldest record (k1): the panel shows both. */
async function evictOnce(store: MemoryOffloadStore, view: Mounted) {
  await put(store, 'chat', 'k7', 'x'.repeat(10), { createdAt: Date.now() + 10 }, 10);
  await until(() => expect(loggedPaths(view)).toEqual(chatPaths('k6', 'k5', 'k4', 'k3', 'k2')));
  await settle();
  expect(tabs(view)).toContain('Evictions (5)');
}

describe('the panel reads what changed (store source)', () => {
  it('a new result on one thread of 50 reads that entry only, and no total (the event carries it)', async () => {
    const store = await storeOf(50);
    const calls = countCalls(store);
    const view = mount({ store }, { bound: 1 << 20 });
    await until(() => expect(view.one('[role="tab"]').textContent).toBe('Entries (50)'));
    await settle();
    calls.reset();

    await put(store, 't7', 't7-new', 'a new result on t7', { createdAt: Date.now() + 1000 });
    await until(() => expect(view.paths()[0]).toBe('/large_tool_results/t7-new'));
    await settle();
    expect(calls.list.mock.calls).toEqual([['t7', { keys: ['t7-new'] }]]);
    expect(calls.evictions).not.toHaveBeenCalled();
    expect(calls.failures).not.toHaveBeenCalled();
    expect(calls.totalBytes).not.toHaveBeenCalled();
    expect(view.one('[role="tab"]').textContent).toBe('Entries (51)');
  });

  it('an eviction reads the entries it named and that thread’s evictions, not its failures; its gauge takes the event’s total', async () => {
    const store = await storeOf(20);
    const calls = countCalls(store);
    const view = mount({ store }, { bound: 1000 });
    await until(() => expect(view.one('[role="tab"]').textContent).toBe('Entries (20)'));
    await settle();
    calls.reset();

    await put(store, 't3', 't3-big', 'y'.repeat(1000), {}, 1000); // evicts t3-k0
    await until(() => expect(view.paths()).toContain('/large_tool_results/t3-big'));
    await until(() => expect(view.all('[role="tab"]')[1]!.textContent).toBe('Evictions (2)'));
    await settle();
    expect(
      calls.list.mock.calls
        .flatMap(([threadId, options]) => (threadId === 't3' ? (options?.keys ?? ['all']) : ['other thread']))
        .sort(),
    ).toEqual(['t3-big', 't3-k0']);
    // Of the log, only the records of the keys the changes named (t3 had none to trim).
    expect(calls.evictions.mock.calls).toEqual([['t3', { keys: ['t3-k0', 't3-big'] }]]);
    // The thread still holds 1000 bytes: it was not cleared, so its failures are as they were.
    expect(calls.failures).not.toHaveBeenCalled();
    await chooseThread(view, 't3'); // its gauge comes into view
    await until(() =>
      expect(view.one<HTMLMeterElement>('meter[aria-label="Thread t3: stored bytes"]').value).toBe(1000),
    );
    expect(calls.totalBytes).not.toHaveBeenCalled();
  });

  it('a cleared thread reads its failures again (and no other thread’s), and they leave the panel', async () => {
    const store = await storeOf(10);
    for (const threadId of ['t2', 't5']) {
      await store.reportFailure({
        threadId,
        key: `${threadId}-quota`,
        path: `/large_tool_results/${threadId}-quota`,
        toolName: 'fetch_page',
        bytes: 10,
        at: Date.now(),
        error: 'QuotaExceededError',
      });
    }
    const calls = countCalls(store);
    const view = mount({ store });
    await until(() => expect(view.all('[role="tab"]').map((tab) => tab.textContent)).toContain('Not stored (2)'));
    await settle();
    calls.reset();

    await store.clearThread('t2');
    await until(() => expect(view.all('[role="tab"]').map((tab) => tab.textContent)).toContain('Not stored (1)'));
    await settle();
    expect(calls.failures.mock.calls).toEqual([['t2']]);
    expect(calls.list.mock.calls.every(([threadId]) => threadId === 't2')).toBe(true);
    expect(calls.evictions.mock.calls).toEqual([['t2']]);
  });

  it('an eviction on a long log reads only its keys and the oldest record’s; the retention’s trim leaves the panel too', async () => {
    const { store, view } = await trimmedLog((store) => store);
    const evictions = vi.spyOn(store, 'evictions');
    await evictOnce(store, view);
    // The new eviction's key, the stored key, and the oldest record's key: k1's, which was trimmed.
    expect(evictions.mock.calls).toEqual([['chat', { keys: ['k6', 'k7', 'k1'] }]]);
  });

  it('a store that ignores keys answers with the whole log: the panel keeps what it asked for, trim included', async () => {
    const { store, view } = await trimmedLog(ignoringKeys);
    const evictions = vi.spyOn(store, 'evictions');
    await evictOnce(store, view);
    expect(evictions.mock.calls).toEqual([['chat']]);
  });

  it('events without the thread’s total (maybe a clear): the entries named are read by key, the log whole', async () => {
    const store = await storeOf(5);
    const withoutTotals: InspectableStore = {
      ...ignoringKeys(store),
      evictions: (...args) => store.evictions(...args),
      subscribe: (listener) =>
        store.subscribe((event) => {
          const { totalBytes: _total, ...rest } = event as { totalBytes?: number };
          listener(rest as StoreEvent);
        }),
    };
    const calls = countCalls(store);
    const view = mount({ store: withoutTotals });
    await until(() => expect(tabs(view)).toContain('Entries (5)'));
    await settle();
    calls.reset();
    await put(store, 't3', 't3-big', 'y'.repeat(1000), {}, 1000); // evicts t3-k0
    await until(() => expect(view.paths()).toContain('/large_tool_results/t3-big'));
    await settle();
    expect(calls.list.mock.calls).toEqual([['t3', { keys: ['t3-k0', 't3-big'] }]]);
    expect(calls.evictions.mock.calls).toEqual([['t3']]);
  });

  it('a custom source without keys for evictions is read whole, and shows the same', async () => {
    const { store, view } = await trimmedLog((store) => ({ source: sourceIgnoringKeys(store) }));
    await evictOnce(store, view);
  });

  it('a thread cleared with nothing live leaves the panel: its failures go, its log says cleared', async () => {
    const store = new MemoryOffloadStore();
    await put(store, 'gone', 'a', 'aaaa');
    await store.apply({ type: 'drop', threadId: 'gone', keys: ['a'], turnId: 'turn-x', reason: 'summarized' });
    await store.reportFailure({ threadId: 'gone', key: 'q', path: '/p/q', toolName: 't', bytes: 1, at: 1, error: 'e' });
    await put(store, 'kept', 'b', 'bbbb');
    const view = mount({ store });
    await until(() => expect(tabs(view)).toContain('Not stored (1)'));
    button(view, 'Evictions (1)').click();
    await until(() => expect(view.one('.timeline').textContent).toContain('summarized'));

    await store.clearThread('gone');
    await until(() => expect(tabs(view)).not.toContain('Not stored (1)'));
    await until(() => expect(view.one('.timeline').textContent).toContain('cleared'));
    expect(view.one('.timeline').textContent).not.toContain('summarized');
    expect(tabs(view)).toContain('Entries (1)');
  });

  it('records the store could not read: every thread’s at mount, then only the changed thread’s', async () => {
    const store = await storeOf(30);
    const unreadable = vi.spyOn(store, 'unreadable');
    const view = mount({ store });
    await until(() => expect(view.one('[role="tab"]').textContent).toBe('Entries (30)'));
    await until(() => expect(unreadable.mock.calls).toEqual([[]]));

    await put(store, 't9', 't9-new', 'new on t9', { createdAt: Date.now() + 1000 });
    await put(store, 't9', 't9-newer', 'newer on t9', { createdAt: Date.now() + 2000 });
    await until(() => expect(view.paths()[0]).toBe('/large_tool_results/t9-newer'));
    // Read once for the burst, after UNREADABLE_BATCH_MS.
    await until(() => expect(unreadable.mock.calls).toEqual([[], ['t9']]), UNREADABLE_BATCH_MS + 3000);
  });

  it('a store whose events name no thread is read whole again, and still shows the change', async () => {
    const store = await storeOf(3);
    const anonymous: InspectableStore = {
      list: (threadId) => store.list(threadId),
      evictions: (threadId) => store.evictions(threadId),
      totalBytes: (threadId) => store.totalBytes(threadId),
      read: (threadId, key) => store.read(threadId, key),
      subscribe: (listener) => store.subscribe(() => listener({ type: 'stored' } as StoreEvent)),
    };
    const list = vi.spyOn(anonymous, 'list');
    const view = mount({ store: anonymous });
    await until(() => expect(view.paths()).toHaveLength(3));
    list.mockClear();
    await put(store, 't1', 't1-new', 'new', { createdAt: Date.now() + 1000 });
    await until(() => expect(view.paths()[0]).toBe('/large_tool_results/t1-new'));
    expect(list.mock.calls.at(-1)).toEqual([undefined]); // every thread
  });

  it('1,000 threads: totals are read for the gauges in view only, and scrolling the gauges reads the others', async () => {
    const store = await storeOf(1000);
    const calls = countCalls(store);
    const view = mount({ store }, { bound: 1 << 20 });
    await until(() => expect(view.one('[role="tab"]').textContent).toBe('Entries (1,000)'));
    await until(() => expect(view.all('meter').length).toBeGreaterThan(0));
    await settle();
    const gauges = view.all('.gauge').length;
    expect(gauges).toBeLessThanOrEqual(8);
    expect(calls.totalBytes.mock.calls.length).toBeLessThanOrEqual(gauges);
    expect(calls.list.mock.calls).toEqual([[undefined]]);

    const strip = view.one('.gauges');
    strip.scrollTop = strip.scrollHeight;
    await until(() =>
      expect(view.all('meter').map((meter) => meter.getAttribute('aria-label'))).toContain('Thread t999: stored bytes'),
    );
    expect(calls.totalBytes.mock.calls.map(([threadId]) => threadId)).toContain('t999');
    expect(calls.totalBytes.mock.calls.length).toBeLessThanOrEqual(2 * gauges);
  });
});

describe('the panel reads what changed (channel source)', () => {
  let channels = 0;
  const channelName = () => `inspector-incremental-${Date.now()}-${++channels}`;

  /** The requests posted on `name` from now on. */
  function requests(name: string): Array<Record<string, unknown>> {
    const seen: Array<Record<string, unknown>> = [];
    const channel = new BroadcastChannel(name);
    channel.onmessage = (event) => {
      if (event.data?.kind === 'request') seen.push(event.data);
    };
    stops.push(() => channel.close());
    return seen;
  }

  it('asks the exposing window for the eviction’s keys only; one that answers with the whole log still shows it right', async () => {
    for (const exposed of [(store: MemoryOffloadStore) => store, ignoringKeys]) {
      const channel = channelName();
      const wire = requests(channel);
      const { store, view } = await trimmedLog((store) => {
        stops.push(exposeToInspector(exposed(store), { channel }));
        return { channel };
      });
      wire.length = 0;
      await evictOnce(store, view);
      const logs = wire.filter(({ op }) => op === 'evictions');
      expect(logs.map(({ threadId, keys }) => ({ threadId, keys }))).toEqual([
        { threadId: 'chat', keys: ['k6', 'k7', 'k1'] },
      ]);
      cleanupMounts();
    }
  });

  it('asks the exposing window for the changed entry only', async () => {
    const store = await storeOf(30);
    const channel = channelName();
    stops.push(exposeToInspector(store, { channel, bound: 1 << 20 }));
    const wire = requests(channel);
    const view = mount({ channel });
    await until(() => expect(view.one('[role="tab"]').textContent).toBe('Entries (30)'));
    await settle();
    wire.length = 0;

    await put(store, 't12', 't12-new', 'new on t12', { createdAt: Date.now() + 1000 });
    await until(() => expect(view.paths()[0]).toBe('/large_tool_results/t12-new'));
    await settle();
    // Of the lists ('info', 'unreadable' and the gauges' totals are read on their own).
    const lists = wire.filter(({ op }) => op === 'list' || op === 'evictions' || op === 'failures');
    expect(lists.map(({ op, threadId, keys }) => ({ op, threadId, keys }))).toEqual([
      { op: 'list', threadId: 't12', keys: ['t12-new'] },
    ]);
    // The records the store could not read: of the changed thread only, once the batch is due.
    await until(
      () =>
        expect(wire.filter(({ op }) => op === 'unreadable')).toEqual([expect.objectContaining({ threadId: 't12' })]),
      UNREADABLE_BATCH_MS + 3000,
    );
  });
});
