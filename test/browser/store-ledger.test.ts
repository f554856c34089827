// The context ledger and the cleared results in IndexedDB (C4, C7, issue 24): kept with the thread
// across instances and tabs, a database of version 3 upgraded with its data kept, and records read
// back checked (S2).
import { openDB } from 'idb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { storeSource } from '../../inspector/source/read-ops.js';
import {
  OFFLOAD_DB_LAYOUTS,
  OFFLOAD_DB_VERSION,
  type OffloadDb,
  type OffloadStoreName,
  type OffloadTransaction,
  upgradeOffloadDb,
} from '../../lib/store/indexeddb-schema.js';
import { IndexedDbOffloadStore } from '../../lib/store/indexeddb-store.js';
import { IdbTx } from '../../lib/store/indexeddb-tx.js';
import type { RequestChange, StoreEvent } from '../../lib/store/offload-store.js';
import { commit, stageResult } from '../../lib/store/store-operations.js';
import { defaultChunkChars } from '../../lib/store/text-chunks.js';
import { result } from './fixtures/staged-result.js';
import { put } from './store-contract.js';

const opened: IndexedDbOffloadStore[] = [];
function open(name = `store-ledger-${crypto.randomUUID()}`, options: { requestRetention?: number } = {}) {
  const store = new IndexedDbOffloadStore({ name, ...options });
  opened.push(store);
  return store;
}
let warn: ReturnType<typeof vi.spyOn> | undefined;
afterEach(async () => {
  warn?.mockRestore();
  warn = undefined;
  for (const store of opened.splice(0)) await store.deleteDatabase();
});

/** One model request of thread 't' that cleared `cleared`, in `turnId` when given. */
function request(tokens: number, cleared: string[] = [], turnId?: string): RequestChange {
  return {
    threadId: 't',
    ...(turnId === undefined ? {} : { turnId }),
    at: 1000 + tokens,
    record: {
      tokens,
      tokensWithoutOffload: tokens,
      parts: { system: tokens, messages: 0, whole: 0, previews: 0, pointers: 0, cut: 0 },
      results: [],
    },
    cleared: cleared.map((toolCallId) => ({
      toolCallId,
      toolName: 'fetch',
      path: `/large_tool_results/${toolCallId}`,
      pointer: `[Cleared from context] /large_tool_results/${toolCallId}`,
      tokens: 50,
    })),
  };
}

/** Changes raw records of the store's database with plain IndexedDB, outside the store. */
async function tamper(name: string, stores: OffloadStoreName[], change: (tx: OffloadTransaction) => Promise<unknown>) {
  const database = await openDB<OffloadDb>(name);
  try {
    const tx = database.transaction(stores, 'readwrite') as unknown as OffloadTransaction;
    await change(tx);
    await tx.done;
  } finally {
    database.close();
  }
}

describe('IndexedDbOffloadStore: the ledger and the cleared results across instances', () => {
  it('a second instance (another tab) goes on counting steps, sees the first clearings and hears its request events', async () => {
    const first = open();
    const second = new IndexedDbOffloadStore({ name: first.name });
    try {
      const heard: StoreEvent[] = [];
      second.subscribe((event) => heard.push(event));
      await first.recordRequest(request(10, ['c1'], 'turn-1'));
      await expect.poll(() => heard).toEqual([{ type: 'request', threadId: 't', step: 1, tokens: 10 }]);
      // The second keeps the first's record of c1 (C4), and numbers its own request 2.
      const recorded = await second.recordRequest({
        ...request(20, ['c1', 'c2']),
        cleared: [{ ...request(0, ['c1']).cleared[0]!, pointer: 'another wording' }, request(0, ['c2']).cleared[0]!],
      });
      expect(recorded.step).toBe(2);
      expect(recorded.cleared.map((cleared) => [cleared.toolCallId, cleared.step, cleared.pointer])).toEqual([
        ['c1', 1, '[Cleared from context] /large_tool_results/c1'],
        ['c2', 2, '[Cleared from context] /large_tool_results/c2'],
      ]);
      expect(await first.cleared('t')).toEqual(recorded.cleared);
      // A Block in the first tab takes back its turn's clearing; the second sees it.
      await first.restoreTurn('t', 'turn-1', 100);
      expect((await second.cleared('t')).map((cleared) => cleared.toolCallId)).toEqual(['c2']);
      expect((await second.requests('t')).map((record) => [record.step, record.tokens])).toEqual([
        [1, 10],
        [2, 20],
      ]);
    } finally {
      await second.close();
    }
  });

  it('requests with `after` reads only the later steps through the key, not the whole ledger', async () => {
    const store = open(undefined, { requestRetention: 300 });
    for (let i = 1; i <= 250; i++) await store.recordRequest(request(i));
    const gets: unknown[] = [];
    const original = IDBObjectStore.prototype.getAll;
    IDBObjectStore.prototype.getAll = function (this: IDBObjectStore, ...args: Parameters<IDBObjectStore['getAll']>) {
      const answer = original.apply(this, args);
      if (this.name === 'requests') answer.addEventListener('success', () => gets.push(answer.result.length));
      return answer;
    };
    try {
      expect((await store.requests('t', { after: 248 })).map((record) => record.step)).toEqual([249, 250]);
    } finally {
      IDBObjectStore.prototype.getAll = original;
    }
    expect(gets).toEqual([2]);
    expect(await store.requests('t', { after: 250 })).toEqual([]);
    expect(await store.requests('t')).toHaveLength(250);
  });
  it("the latest request (requests with `newest`, and the inspector's latestRequest) reads from the newest down, never the whole ledger", async () => {
    const store = open(undefined, { requestRetention: 300 });
    for (let i = 1; i <= 250; i++) await store.recordRequest(request(i));
    const read = { getAll: 0, cursors: 0 };
    const { getAll, openCursor } = IDBObjectStore.prototype;
    IDBObjectStore.prototype.getAll = function (this: IDBObjectStore, ...args: Parameters<IDBObjectStore['getAll']>) {
      if (this.name === 'requests') read.getAll++;
      return getAll.apply(this, args);
    };
    IDBObjectStore.prototype.openCursor = function (
      this: IDBObjectStore,
      ...args: Parameters<IDBObjectStore['openCursor']>
    ) {
      if (this.name === 'requests') read.cursors++;
      return openCursor.apply(this, args);
    };
    try {
      expect((await store.requests('t', { newest: 1 })).map((record) => record.step)).toEqual([250]);
      expect((await store.requests('t', { after: 200, newest: 2 })).map((record) => record.step)).toEqual([249, 250]);
      expect((await storeSource(store).latestRequest!('t'))?.step).toBe(250);
    } finally {
      Object.assign(IDBObjectStore.prototype, { getAll, openCursor });
    }
    // One cursor from the newest down each, never a getAll of the ledger.
    expect(read).toEqual({ getAll: 0, cursors: 3 });
    await expect(store.requests('t', { newest: 0 })).rejects.toThrow(/requests: options\.newest/);
  });
});

describe("IndexedDbOffloadStore: a ledger record past the thread's step counter", () => {
  it("is out of order: never read or sent, listed as unreadable; the next step and retention count from the thread's counter", async () => {
    warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const store = open(undefined, { requestRetention: 3 });
    for (const tokens of [10, 20, 30]) await store.recordRequest(request(tokens));
    const forged = 2 ** 52;
    await tamper(store.name, ['requests'], async (tx) => {
      const requests = tx.objectStore('requests');
      await requests.put({ ...(await requests.get(['t', 3]))!, step: forged, tokens: 999 });
    });
    expect((await store.requests('t')).map((record) => record.step)).toEqual([1, 2, 3]);
    expect((await store.requests('t', { newest: 1 })).map((record) => record.step)).toEqual([3]);
    expect(await store.unreadable('t')).toEqual([
      {
        store: 'requests',
        key: `["t",${forged}]`,
        threadId: 't',
        reason: `a step out of order: ${forged} is past the thread's request counter 3`,
      },
    ]);
    // Numbered from the thread's counter: the retention keeps the real ledger's newest three.
    expect((await store.recordRequest(request(40))).step).toBe(4);
    expect((await store.requests('t')).map((record) => record.step)).toEqual([2, 3, 4]);
    expect(await store.recordUsage({ threadId: 't', step: forged, reported: { inputTokens: 1 } })).toBe(false);
    await store.clearThread('t');
    expect(await store.unreadable('t')).toEqual([]);
    expect(await store.requests('t')).toEqual([]);
  });
});

describe('IndexedDbOffloadStore: a database of version 3', () => {
  it('is upgraded to version 4 on open, keeping every record; its threads count requests from 1', async () => {
    const name = `store-v3-${crypto.randomUUID()}`;
    // Version 3's layout, written by the same operations version 3 ran (none touches the ledger).
    const v3 = await openDB<OffloadDb>(name, 3, { upgrade: upgradeOffloadDb });
    expect([...v3.objectStoreNames].sort()).toEqual([...OFFLOAD_DB_LAYOUTS[3]!].sort());
    const stores = [...OFFLOAD_DB_LAYOUTS[3]!] as OffloadStoreName[];
    const write = async (operation: (tx: IdbTx) => Promise<unknown>) => {
      const tx = v3.transaction(stores, 'readwrite') as unknown as OffloadTransaction;
      await operation(new IdbTx(tx));
      await tx.done;
    };
    const seen = { toolName: 'fetch', thresholdTokens: 1, previewLines: 2, maxResultBytes: 3 };
    for (const [key, text] of [
      ['k1', 'x'.repeat(60)],
      ['k2', 'y'.repeat(60)],
    ] as const) {
      await write((tx) => stageResult(tx, result('t', key, text, 'turn-1'), defaultChunkChars));
      await write((tx) =>
        commit(tx, { type: 'commit', threadId: 't', key, turnId: 'turn-1', maxTotalBytes: 100, seen }, Date.now()),
      );
    }
    v3.close();

    const store = open(name);
    expect((await store.list('t')).map((entry) => entry.key)).toEqual(['k2']);
    expect(await store.read('t', 'k2')).toBe('y'.repeat(60));
    expect((await store.evictions('t')).map((eviction) => [eviction.key, eviction.reason])).toEqual([['k1', 'bound']]);
    expect(await store.seen('t', 'k1')).toEqual(seen);
    expect(await store.bound('t')).toBe(100);
    expect(await store.requests('t')).toEqual([]);
    expect(await store.cleared('t')).toEqual([]);
    expect(await store.recordRequest(request(10, ['k2'], 'turn-2'))).toMatchObject({
      step: 1,
      cleared: [{ toolCallId: 'k2', step: 1 }],
    });
    // Version 3's undo log still works beside the new one: the turn's entries go, what it evicted returns.
    await store.restoreTurn('t', 'turn-1', 100);
    expect(await store.list('t')).toEqual([]);
    await store.restoreTurn('t', 'turn-2', 100);
    expect(await store.cleared('t')).toEqual([]);
    expect(await store.totalBytes('t')).toBe(0);
    await store.close();
    const upgraded = await openDB<OffloadDb>(name);
    expect(upgraded.version).toBe(OFFLOAD_DB_VERSION);
    expect([...upgraded.objectStoreNames].sort()).toEqual([...OFFLOAD_DB_LAYOUTS[4]!].sort());
    upgraded.close();
  });
});

describe('IndexedDbOffloadStore: malformed ledger and cleared records are skipped and reported', () => {
  it('a ledger record and a cleared record another script broke: never returned, listed as unreadable, cleared with the thread', async () => {
    warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const store = open();
    await store.recordRequest(request(10, ['c1']));
    await store.recordRequest(request(20, ['c2']));
    await store.recordRequest(request(30));
    await tamper(store.name, ['requests', 'cleared'], async (tx) => {
      const requests = tx.objectStore('requests');
      await requests.put({ ...(await requests.get(['t', 2]))!, tokens: 'many' as never });
      const withText = (await requests.get(['t', 3]))!;
      await requests.put({
        ...withText,
        results: [{ toolCallId: 'c9', toolName: 'x', shownAs: 'whole', tokens: 1, text: 'secret' } as never],
      });
      const cleared = tx.objectStore('cleared');
      const { pointer: _pointer, ...broken } = (await cleared.get(['t', 'c2']))!;
      await cleared.put(broken as never);
    });
    expect((await store.requests('t')).map((record) => record.step)).toEqual([1, 3]);
    expect(JSON.stringify(await store.requests('t'))).not.toContain('secret');
    expect((await store.cleared('t')).map((cleared) => cleared.toolCallId)).toEqual(['c1']);
    expect(await store.unreadable('t')).toEqual([
      { store: 'cleared', key: '["t","c2"]', threadId: 't', reason: 'pointer is missing' },
      { store: 'requests', key: '["t",2]', threadId: 't', reason: 'tokens is "many", not a number of tokens' },
    ]);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('pointer is missing'));
    // A result whose record is unreadable is not cleared: clearing it again writes a good record.
    const again = await store.recordRequest(request(40, ['c2']));
    expect(again.cleared.map((cleared) => `${cleared.toolCallId}@${cleared.step}`)).toEqual(['c1@1', 'c2@4']);
    await store.clearThread('t');
    expect(await store.unreadable('t')).toEqual([]);
    expect(await store.requests('t')).toEqual([]);
  });

  it("a record's calibration (C9) is kept and read back, with its usage; one another script broke is unreadable", async () => {
    warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const store = open();
    const calibrated = (tokens: number, calibration: number): RequestChange => {
      const change = request(tokens);
      return { ...change, record: { ...change.record, calibration } };
    };
    await store.recordRequest(calibrated(10, 1.3));
    await store.recordRequest(calibrated(20, 1.25));
    expect(await store.recordUsage({ threadId: 't', step: 1, reported: { inputTokens: 13 } })).toBe(true);
    const again = new IndexedDbOffloadStore({ name: store.name });
    try {
      expect((await again.requests('t')).map(({ calibration, reported }) => ({ calibration, reported }))).toEqual([
        { calibration: 1.3, reported: { inputTokens: 13 } },
        { calibration: 1.25, reported: undefined },
      ]);
    } finally {
      await again.close();
    }
    // recordRequest checks it as reads do: below 1 is no factor.
    await expect(store.recordRequest(calibrated(30, 0.5))).rejects.toThrow(/change\.record\.calibration/);
    await tamper(store.name, ['requests'], async (tx) => {
      const requests = tx.objectStore('requests');
      await requests.put({ ...(await requests.get(['t', 2]))!, calibration: '<b>1.3</b>' as never });
    });
    expect((await store.requests('t')).map((record) => record.step)).toEqual([1]);
    expect(await store.unreadable('t')).toEqual([
      {
        store: 'requests',
        key: '["t",2]',
        threadId: 't',
        reason: 'calibration is "<b>1.3</b>", not a number of at least 1 or absent',
      },
    ]);
  });

  it('a cleared record whose pointer is over its bound is unreadable, never sent: clearing the result again replaces it', async () => {
    warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const store = open();
    await store.recordRequest(request(10, ['c1']));
    await tamper(store.name, ['requests', 'cleared'], async (tx) => {
      const cleared = tx.objectStore('cleared');
      await cleared.put({ ...(await cleared.get(['t', 'c1']))!, pointer: 'x'.repeat(1024 * 1024) });
    });
    expect(await store.cleared('t')).toEqual([]);
    expect(await store.unreadable('t')).toEqual([
      { store: 'cleared', key: '["t","c1"]', threadId: 't', reason: expect.stringMatching(/^pointer is /) },
    ]);
    const again = await store.recordRequest(request(20, ['c1']));
    expect(again.cleared.map((cleared) => `${cleared.toolCallId}@${cleared.step}`)).toEqual(['c1@2']);
    expect(again.cleared[0]!.pointer.length).toBeLessThan(200);
    // Nor can a writer keep one: the same bound refuses it, naming the field.
    const huge = request(30, ['c2']);
    const tooLong = { ...huge, cleared: [{ ...huge.cleared[0]!, pointer: 'y'.repeat(4097) }] };
    await expect(store.recordRequest(tooLong)).rejects.toThrow(/change\.cleared\[0\]\.pointer/);
  });

  it('a thread record another script broke: the next request is numbered past the ledger, not from 1 again', async () => {
    warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const store = open();
    await put(store, 't', 'k1', 'hello');
    await store.recordRequest(request(10));
    await store.recordRequest(request(20));
    await tamper(store.name, ['threads'], async (tx) => {
      const threads = tx.objectStore('threads');
      await threads.put({ ...(await threads.get('t'))!, requestStep: 'two' as never });
    });
    expect((await store.unreadable('t')).map((record) => [record.store, record.reason])).toEqual([
      ['threads', 'requestStep is "two", not a count or absent'],
    ]);
    expect((await store.recordRequest(request(30))).step).toBe(3);
    // The thread's record is rebuilt with it: its total holds for its entries.
    expect(await store.totalBytes('t')).toBe(5);
    expect(await store.unreadable('t')).toEqual([]);
  });
});

describe('IndexedDbOffloadStore options', () => {
  it('checks requestRetention like its other options, and rejects an unknown option naming it', () => {
    expect(() => new IndexedDbOffloadStore({ requestRetention: 0 })).toThrow(
      'IndexedDbOffloadStore: requestRetention must be an integer of at least 1, got 0',
    );
    expect(() => new IndexedDbOffloadStore({ requestRetention: 2.5 })).toThrow(RangeError);
    expect(() => new IndexedDbOffloadStore({ name: 'x', logRetenion: 5 } as never)).toThrow(
      new TypeError(
        'IndexedDbOffloadStore: unknown option "logRetenion"; the options are name, blockedTimeoutMs, chunkChars, persist, logRetention, requestRetention',
      ),
    );
    expect(() => new IndexedDbOffloadStore('db' as never)).toThrow(/options must be an object/);
  });
});
