import { afterEach, describe, expect, it, vi } from 'vitest';
import { commitStaged, stageResult } from '../../lib/agent/offload-staging.js';
import { ToolOutputOffload } from '../../lib/offload/tool-output-offload.js';
import { IndexedDbOffloadStore } from '../../lib/store/indexeddb-store.js';
import type { StoreEvent } from '../../lib/store/offload-store.js';
import { failure } from '../node/backend-failure.js';
import { put } from './store-contract.js';

/** Deletes a database with plain IndexedDB; says whether another connection blocked it. */
function deleteWithRawIdb(name: string): Promise<{ blocked: boolean }> {
  return new Promise((resolve, reject) => {
    let blocked = false;
    const request = indexedDB.deleteDatabase(name);
    request.onblocked = () => {
      blocked = true;
    };
    request.onsuccess = () => resolve({ blocked });
    request.onerror = () => reject(request.error);
  });
}

/** Counts the BroadcastChannels opened and not yet closed, from now until `stop`. */
function countChannels() {
  const Original = globalThis.BroadcastChannel;
  const open = new Set<BroadcastChannel>();
  globalThis.BroadcastChannel = class extends Original {
    constructor(name: string) {
      super(name);
      open.add(this);
    }
    override close(): void {
      open.delete(this);
      super.close();
    }
  };
  const stop = () => {
    globalThis.BroadcastChannel = Original;
  };
  return { open, stop };
}

const big = (tag: string) => `${tag} ${'x'.repeat(99)}\n`.repeat(60);
const fresh = () => `store-lifecycle-${crypto.randomUUID()}`;

let channels: ReturnType<typeof countChannels> | undefined;
afterEach(() => {
  channels?.stop();
  channels = undefined;
});

describe('store lifecycle', () => {
  it('deleteDatabase is not blocked after close(), even with a listener subscribed', async () => {
    const store = new IndexedDbOffloadStore({ name: fresh() });
    await put(store, 't', 'k1', 'kept until deleted');
    store.subscribe(() => {});
    await store.close();
    expect(await deleteWithRawIdb(store.name)).toEqual({ blocked: false });
    // Used again, it starts a new database.
    expect(await store.list('t')).toEqual([]);
    await store.deleteDatabase();
  });

  it('ToolOutputOffload closes the store it made (close and Symbol.asyncDispose), not one it was given', async () => {
    const offload = new ToolOutputOffload();
    const store = offload.store as IndexedDbOffloadStore;
    expect(store).toBeInstanceOf(IndexedDbOffloadStore);
    // The default database is shared with other test files: the store's close is watched, not the database deleted.
    const closeDefault = vi.spyOn(store, 'close');
    await store.list('t');
    await offload.close();
    expect(closeDefault).toHaveBeenCalledTimes(1);
    await offload[Symbol.asyncDispose]();
    expect(closeDefault).toHaveBeenCalledTimes(2);

    const given = new IndexedDbOffloadStore({ name: fresh() });
    const closeGiven = vi.spyOn(given, 'close');
    await given.list('t');
    await new ToolOutputOffload({ store: given }).close();
    expect(closeGiven).not.toHaveBeenCalled();
    await given.deleteDatabase();
  });

  it('the change channel is open only while someone listens; a post with no listener leaves none open', async () => {
    channels = countChannels();
    const writer = new IndexedDbOffloadStore({ name: fresh() });
    const watcher = new IndexedDbOffloadStore({ name: writer.name });
    try {
      await put(writer, 't', 'k1', 'unheard');
      expect(channels.open.size).toBe(0);
      const events: StoreEvent[] = [];
      const stopOne = watcher.subscribe((event) => events.push(event));
      const stopTwo = watcher.subscribe(() => {});
      expect(channels.open.size).toBe(1);
      // The writer, with no listener of its own, opens a channel to post and closes it at once.
      await put(writer, 't', 'k2', 'heard');
      expect(channels.open.size).toBe(1);
      await expect
        .poll(() => events.map((e) => `${e.type} ${'key' in e ? e.key : 'step' in e ? e.step : ''}`))
        .toEqual(['stored k2']);
      stopOne();
      expect(channels.open.size).toBe(1);
      stopTwo();
      expect(channels.open.size).toBe(0);
    } finally {
      await watcher.close();
      await writer.deleteDatabase();
    }
  });
});

describe("a read of a cleared result says 'cleared'", () => {
  it('after clearThread, and after the database was deleted under the offload', async () => {
    const store = new IndexedDbOffloadStore({ name: fresh() });
    const offload = new ToolOutputOffload({ thresholdTokens: 1000, store });
    try {
      const first = await offload.offloadResult({
        threadId: 't',
        callId: 'c1',
        toolName: 'fetch',
        content: big('one'),
      });
      expect(first.stored).toBe(true);
      const backend = offload.backend('t');
      const file = first.path!.slice(ToolOutputOffload.mount.length - 1);
      expect(await backend.read(file, { offset: 0, limit: 1 })).toContain('one');

      await store.clearThread('t');
      const cleared = await failure(backend.read(file));
      expect(cleared.code).toBe('evicted');
      expect(cleared.message).toContain(first.path!);
      expect(cleared.message).toContain('cleared');

      const second = await offload.offloadResult({
        threadId: 't',
        callId: 'c2',
        toolName: 'fetch',
        content: big('two'),
      });
      const file2 = second.path!.slice(ToolOutputOffload.mount.length - 1);
      // Another tab (or a site-data wipe) deletes the whole database: the store has no record left.
      await store.close();
      expect(await deleteWithRawIdb(store.name)).toEqual({ blocked: false });
      const wiped = await failure(backend.read(file2));
      expect(wiped.code).toBe('evicted');
      expect(wiped.message).toMatch(/was cleared: it was stored earlier, but the store no longer has it/);
      // A path this offload never stored is still "not found".
      const never = await failure(backend.read('/never-stored'));
      expect(never).toMatchObject({ code: 'not-found' });
      expect(never.message).toContain('no tool result was stored under this path');
    } finally {
      await store.deleteDatabase();
    }
  });

  it("after the database was deleted under the built-in agent's two steps (stage, then commit)", async () => {
    const store = new IndexedDbOffloadStore({ name: fresh() });
    const offload = new ToolOutputOffload({ thresholdTokens: 1000, store });
    try {
      const staged = await stageResult(offload, {
        threadId: 't',
        turnId: 'turn-1',
        key: 'call-key-1',
        callId: 'c1',
        toolName: 'fetch',
        content: big('one'),
      });
      expect(staged.kind).toBe('stored');
      expect(await commitStaged(offload, staged.commit!)).toHaveProperty('applied');
      const backend = offload.backend('t');
      const file = staged.path!.slice(ToolOutputOffload.mount.length - 1);
      expect(await backend.read(file, { offset: 0, limit: 1 })).toContain('one');
      await store.close();
      expect(await deleteWithRawIdb(store.name)).toEqual({ blocked: false });
      const wiped = await failure(backend.read(file));
      expect(wiped.code).toBe('evicted');
      expect(wiped.message).toMatch(/was cleared: it was stored earlier, but the store no longer has it/);
    } finally {
      await store.deleteDatabase();
    }
  });
});
