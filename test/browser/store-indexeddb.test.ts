import { afterEach, describe, expect, it, vi } from 'vitest';
import { IndexedDbOffloadStore } from '../../lib/store/indexeddb-store.js';
import type { StoreEvent } from '../../lib/store/offload-store.js';
import { failIdbFailureWrites } from './fixtures/fail-commits.js';
import { snapshot } from './fixtures/idb-snapshot.js';
import { result } from './fixtures/staged-result.js';
import { hasStorageApi } from './fixtures/storage-api.js';
import { put } from './store-contract.js';

const opened: IndexedDbOffloadStore[] = [];
function open(name = `store-idb-${crypto.randomUUID()}`) {
  const store = new IndexedDbOffloadStore({ name });
  opened.push(store);
  return store;
}
afterEach(async () => {
  for (const store of opened.splice(0)) await store.deleteDatabase();
});

/** Makes IndexedDB's `method` fail with a QuotaExceededError on one object store, as a full disk would. */
function failOn(method: 'put' | 'add', storeName: string): () => void {
  const original = IDBObjectStore.prototype[method];
  IDBObjectStore.prototype[method] = function (this: IDBObjectStore, ...args: [unknown, IDBValidKey?]) {
    if (this.name === storeName)
      throw new DOMException('The quota has been exceeded (injected).', 'QuotaExceededError');
    return original.apply(this, args);
  };
  return () => {
    IDBObjectStore.prototype[method] = original;
  };
}

describe('IndexedDbOffloadStore', () => {
  it('keeps entries, seq counter and failures for a new instance on the same database', async () => {
    const first = open();
    await put(first, 't', 'k1', 'x'.repeat(60));
    await put(first, 't', 'k2', 'y'.repeat(60));
    await first.reportFailure({ threadId: 't', key: 'k3', path: '/p', toolName: 'f', bytes: 5, at: 1, error: 'full' });
    await first.close();
    const second = new IndexedDbOffloadStore({ name: first.name });
    expect((await second.list('t')).map((e) => e.key)).toEqual(['k2']);
    expect(await second.read('t', 'k2')).toBe('y'.repeat(60));
    expect((await second.evictions('t')).map((e) => e.key)).toEqual(['k1']);
    expect((await second.failures('t')).map((f) => f.key)).toEqual(['k3']);
    await put(second, 't', 'k4', 'z');
    const seqs = (await second.list('t')).map((e) => e.seq);
    expect(seqs).toEqual([2, 3]);
    await second.close();
  });

  it("re-emits another instance's changes, with the thread's total and bound, to local subscribers", async () => {
    const writer = open();
    const watcher = new IndexedDbOffloadStore({ name: writer.name });
    const events: StoreEvent[] = [];
    watcher.subscribe((event) => events.push(event));
    await put(writer, 't', 'k1', 'hello');
    await expect.poll(() => events).toEqual([{ type: 'stored', threadId: 't', key: 'k1', totalBytes: 5, bound: 100 }]);
    expect(await watcher.bound('t')).toBe(100);
    await watcher.close();
  });

  it("tells another instance's clearThread as 'thread-cleared'; events forged on its channel reach no subscriber", async () => {
    const writer = open();
    const watcher = new IndexedDbOffloadStore({ name: writer.name });
    const events: StoreEvent[] = [];
    watcher.subscribe((event) => events.push(event));
    // Any script of the origin can post on the store's channel: each event is checked, only its own fields kept.
    const forger = new BroadcastChannel(`${writer.name}:changes`);
    const source = 'tool-output-offload/store-events';
    forger.postMessage({
      source,
      events: [
        { type: 'thread-cleared' },
        { type: 'thread-cleared', threadId: 42 },
        { type: 'thread-cleared', threadId: 'x'.repeat(5000) },
        { type: 'cleared-everything', threadId: 't' },
        { type: '__proto__', threadId: 't', key: 'k', totalBytes: 1 },
        { type: 'stored', threadId: 't', key: 'k', totalBytes: -1 },
        { type: 'stored', threadId: 't', key: 'k', totalBytes: 1, bound: 0.5 },
        { type: 'request', threadId: 't', step: 0, tokens: 1 },
        null,
        { type: 'thread-cleared', threadId: 'forged', html: '<img src=x onerror=alert(1)>' },
      ],
    });
    forger.postMessage({ source, events: 'not a list' });
    forger.close();
    await expect.poll(() => events).toEqual([{ type: 'thread-cleared', threadId: 'forged' }]);
    events.length = 0;
    await put(writer, 't', 'k1', 'hello');
    await writer.clearThread('t');
    await expect.poll(() => events.map((event) => event.type)).toEqual(['stored', 'evicted', 'thread-cleared']);
    expect(events.at(-1)).toEqual({ type: 'thread-cleared', threadId: 't' });
    await watcher.close();
  });

  it("tells another instance's reported usage with its step's 'request' event; a forged usage drops the event", async () => {
    const writer = open();
    const watcher = new IndexedDbOffloadStore({ name: writer.name });
    const events: StoreEvent[] = [];
    watcher.subscribe((event) => events.push(event));
    const forger = new BroadcastChannel(`${writer.name}:changes`);
    const source = 'tool-output-offload/store-events';
    forger.postMessage({
      source,
      events: [
        { type: 'request', threadId: 'f', step: 1, tokens: 1, reported: { inputTokens: -5 } },
        { type: 'request', threadId: 'f', step: 2, tokens: 1, reported: 'lots' },
        { type: 'request', threadId: 'f', step: 3, tokens: 1, reported: { inputTokens: 7, html: '<b>' } },
      ],
    });
    forger.close();
    await expect
      .poll(() => events)
      .toEqual([{ type: 'request', threadId: 'f', step: 3, tokens: 1, reported: { inputTokens: 7 } }]);
    events.length = 0;
    const parts = { system: 10, messages: 0, whole: 0, previews: 0, pointers: 0, cut: 0 };
    const record = { tokens: 10, tokensWithoutOffload: 10, parts, results: [] };
    const { step } = await writer.recordRequest({ threadId: 't', at: Date.now(), record, cleared: [] });
    expect(await writer.recordUsage({ threadId: 't', step, reported: { inputTokens: 12, cachedInputTokens: 0 } })).toBe(
      true,
    );
    await expect
      .poll(() => events.at(-1))
      .toEqual({
        type: 'request',
        threadId: 't',
        step,
        tokens: 10,
        reported: { inputTokens: 12, cachedInputTokens: 0 },
      });
    await watcher.close();
  });

  it('a QuotaExceededError while staging propagates unchanged and loses nothing stored', async () => {
    const store = open();
    await put(store, 't', 'k1', 'live text');
    const before = await snapshot(store.name, 't');
    const restore = failOn('put', 'chunks');
    let thrown: unknown;
    try {
      await store.stage(result('t', 'k1', 'rerun that does not fit', 't2'));
    } catch (error) {
      thrown = error;
    } finally {
      restore();
    }
    expect(thrown).toBeInstanceOf(DOMException);
    expect((thrown as DOMException).name).toBe('QuotaExceededError');
    expect(await snapshot(store.name, 't')).toEqual(before);
    expect(await store.read('t', 'k1')).toBe('live text');
    const nothing = await store.apply({ type: 'commit', threadId: 't', key: 'k1', turnId: 't2', maxTotalBytes: 100 });
    expect(nothing.stored).toEqual([]);
  });

  it('a commit that fails half way is rolled back; the retry evicts the oldest in its own transaction', async () => {
    const store = open();
    await put(store, 't', 'k1', 'x'.repeat(60));
    await store.stage(result('t', 'k2', 'y'.repeat(60), 't2'));
    const before = await snapshot(store.name, 't');
    const restore = failOn('put', 'entries');
    await expect(
      store.apply({ type: 'commit', threadId: 't', key: 'k2', turnId: 't2', maxTotalBytes: 100 }),
    ).rejects.toMatchObject({ name: 'QuotaExceededError' });
    restore();
    // The commit evicted k1 in its transaction, rolled back with it; the retry evicted k1 once,
    // on its own, with its text, to make room in the full quota, and the commit still failed:
    // nothing else changed.
    expect((await store.evictions('t')).map((e) => [e.key, e.reason])).toEqual([['k1', 'quota']]);
    const after = await snapshot(store.name, 't');
    const k1Text = before.entries[0]!.textId;
    expect(after.textIds.sort()).toEqual(before.textIds.filter((id) => id !== k1Text).sort());
    expect(after.staged).toEqual(before.staged);
    expect(after).toMatchObject({ totalBytes: 0, count: 0, entries: [] });
    expect(await store.list('t')).toEqual([]);
    // Still staged: once there is room again, the same commit goes through.
    const applied = await store.apply({ type: 'commit', threadId: 't', key: 'k2', turnId: 't2', maxTotalBytes: 100 });
    expect(applied).toMatchObject({ stored: ['k2'], totalBytes: 60 });
  });

  it('keeps a reported failure in memory when the quota refuses its write too', async () => {
    const store = open();
    const restore = failOn('add', 'failures');
    try {
      await store.reportFailure({ threadId: 't', key: 'k', path: '/p', toolName: 'f', bytes: 9, at: 5, error: 'full' });
    } finally {
      restore();
    }
    expect(await store.failures()).toEqual([
      { threadId: 't', key: 'k', path: '/p', toolName: 'f', bytes: 9, at: 5, error: 'full' },
    ]);
  });

  it('a failure whose transaction aborts is not in the database: only the instance that reported it keeps it', async () => {
    const store = open();
    const restore = failIdbFailureWrites();
    try {
      await store.reportFailure({ threadId: 't', key: 'k', path: '/p', toolName: 'f', bytes: 9, at: 5, error: 'full' });
    } finally {
      restore();
    }
    expect((await store.failures('t')).map((f) => f.key)).toEqual(['k']);
    const other = new IndexedDbOffloadStore({ name: store.name });
    expect(await other.failures('t')).toEqual([]);
    await other.reportFailure({ threadId: 't', key: 'saved', path: '/p', toolName: 'f', bytes: 1, at: 6, error: 'e' });
    expect((await store.failures('t')).map((f) => f.key)).toEqual(['k', 'saved']);
    await other.close();
  });

  it('never keeps a text nobody can reach: staged, undo and evicted texts are deleted when settled', async () => {
    const store = open();
    await put(store, 't', 'k1', 'x'.repeat(60), 't1');
    await put(store, 't', 'k2', 'y'.repeat(60), 't2');
    await store.stage(result('t', 'k3', 'orphan', 't2'));
    await store.stage(result('t', 'k3', 'orphan again', 't2'));
    expect((await snapshot(store.name, 't')).textIds).toHaveLength(3);
    await store.settle('t', ['t1', 't2']);
    expect((await snapshot(store.name, 't')).textIds).toHaveLength(1);
    await store.clearThread('t');
    expect((await snapshot(store.name, 't')).textIds).toHaveLength(0);
  });

  it.runIf(hasStorageApi)('reports storage estimates and asks for persistence', async () => {
    const store = open();
    const estimate = await store.estimate();
    expect(typeof estimate?.quota).toBe('number');
    const granted = await store.persist();
    expect(typeof granted).toBe('boolean');
    // persisted() reports what persist() obtained, without asking again.
    expect(await store.persisted()).toBe(await navigator.storage.persisted());
  });

  it.runIf(!hasStorageApi)(
    'without navigator.storage (WebKitGTK): no estimate, persist() and persisted() false, persist: true stores as usual',
    async () => {
      const store = new IndexedDbOffloadStore({ name: `store-idb-${crypto.randomUUID()}`, persist: true });
      opened.push(store);
      await put(store, 't', 'k1', 'first', 't1');
      expect(await store.read('t', 'k1')).toBe('first');
      expect(await store.estimate()).toBeUndefined();
      expect(await store.persist()).toBe(false);
      expect(await store.persisted()).toBe(false);
    },
  );

  it.runIf(hasStorageApi)(
    'with persist: true asks the browser once, at the first stored result, and not before',
    async () => {
      const ask = vi.spyOn(navigator.storage, 'persist').mockResolvedValue(true);
      try {
        const store = new IndexedDbOffloadStore({ name: `store-idb-${crypto.randomUUID()}`, persist: true });
        opened.push(store);
        await store.list('t');
        expect(ask).not.toHaveBeenCalled();
        await put(store, 't', 'k1', 'first', 't1');
        await put(store, 't', 'k2', 'second', 't1');
        expect(ask).toHaveBeenCalledTimes(1);
        const quiet = new IndexedDbOffloadStore({ name: `store-idb-${crypto.randomUUID()}` });
        opened.push(quiet);
        await put(quiet, 't', 'k1', 'first', 't1');
        expect(ask).toHaveBeenCalledTimes(1);
        expect(() => new IndexedDbOffloadStore({ persist: 'yes' as unknown as boolean })).toThrow(
          /persist must be a boolean/,
        );
      } finally {
        ask.mockRestore();
      }
    },
  );
});
