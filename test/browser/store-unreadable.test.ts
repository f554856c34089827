import { type IDBPTransaction, openDB } from 'idb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { OffloadBackend } from '../../lib/offload/offload-backend.js';
import { BackendError } from '../../lib/shared/errors.js';
import type { OffloadDb } from '../../lib/store/indexeddb-schema.js';
import { IndexedDbOffloadStore } from '../../lib/store/indexeddb-store.js';
import { failure } from '../node/backend-failure.js';
import { put } from './store-contract.js';

/**
 * Records read back from IndexedDB are input: each case writes a malformed record with raw
 * IndexedDB, as another script of the origin, an older app or a disk fault would, and checks that
 * it is skipped and reported while everything else keeps working.
 */

const opened: IndexedDbOffloadStore[] = [];
function open(options: { chunkChars?: number } = {}) {
  const store = new IndexedDbOffloadStore({ name: `store-unreadable-${crypto.randomUUID()}`, ...options });
  opened.push(store);
  return store;
}
let warn: ReturnType<typeof vi.spyOn>;
afterEach(async () => {
  warn?.mockRestore();
  for (const store of opened.splice(0)) await store.deleteDatabase();
});

const tampered = ['entries', 'chunks', 'threads', 'evictions', 'failures'] as const;
type RawTx = IDBPTransaction<OffloadDb, typeof tampered extends readonly (infer N)[] ? N[] : never, 'readwrite'>;

/** Changes raw records in the store's database with plain IndexedDB, outside the store. */
async function tamper(name: string, change: (tx: RawTx) => Promise<unknown>) {
  const database = await openDB<OffloadDb>(name);
  try {
    const tx = database.transaction([...tampered], 'readwrite');
    await change(tx);
    await tx.done;
  } finally {
    database.close();
  }
}

describe('IndexedDbOffloadStore: malformed records are skipped and reported', () => {
  it('an entry with missing fields: not listed, a read is a clear error, grep over the mount still works', async () => {
    warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const store = open();
    await put(store, 't', 'k1', 'alpha needle\n', 't1', 1000);
    await put(store, 't', 'k2', 'beta needle\n', 't1', 1000);
    await put(store, 't', 'k3', 'gamma needle\n', 't1', 1000);
    await tamper(store.name, async (tx) => {
      const entries = tx.objectStore('entries');
      const { bytes: _bytes, preview: _preview, ...broken } = (await entries.get(['t', 'k2']))!;
      await entries.put(broken as never);
    });
    expect((await store.list('t')).map((e) => e.key)).toEqual(['k1', 'k3']);
    expect((await store.list()).map((e) => e.key)).toEqual(['k1', 'k3']);
    const error = await failure(store.read('t', 'k2'));
    expect(error).toBeInstanceOf(BackendError);
    expect(error).toMatchObject({ code: 'not-found', damage: 'its record is malformed: bytes is missing' });
    expect(error.message).toBe('k2 is unreadable: its record is malformed: bytes is missing');
    expect((await failure(store.readLines('t', 'k2', 0, 1))).message).toBe(error.message);
    expect(await store.unreadable('t')).toEqual([
      { store: 'entries', key: '["t","k2"]', threadId: 't', reason: 'bytes is missing' },
    ]);
    expect(await store.unreadable('other')).toEqual([]);

    const backend = new OffloadBackend(store, 't');
    expect((await backend.grep('needle')).map((match) => match.path)).toEqual(['/k1', '/k3']);
    const read = await failure(backend.read('/k2'));
    expect(read.message).toBe(
      '/large_tool_results/k2 is unreadable: its record is malformed: bytes is missing. The store skips it; other stored results are not affected. Run the tool again if you need it.',
    );
    expect(await backend.read('/k3')).toBe('gamma needle\n');
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('bytes is missing'));

    // clearThread deletes it with the rest.
    await store.clearThread('t');
    expect(await store.unreadable()).toEqual([]);
  });

  it('a chunk replaced by an object: never read as "[object Object]", reported with its key', async () => {
    warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const store = open({ chunkChars: 16 });
    const text = 'line one\nline two\nline three\n';
    await put(store, 't', 'k1', text, 't1', 1000);
    await put(store, 't', 'k2', 'fine line\n', 't1', 1000);
    const [entry] = await store.list('t');
    expect(entry!.key).toBe('k1');
    let textId = '';
    await tamper(store.name, async (tx) => {
      textId = (await tx.objectStore('entries').get(['t', 'k1']))!.textId;
      await tx.objectStore('chunks').put({ evil: true } as never, [textId, 1]);
    });
    const error = await failure(store.read('t', 'k1'));
    expect(error).toMatchObject({ code: 'not-found', damage: 'chunk 1 of its text is an object, not text' });
    expect(error.message).toMatch(/^k1 is unreadable: chunk 1 of its text is an object, not text/);
    expect(error.message).not.toContain('[object Object]');
    // A page in the chunk before the bad one still reads; the one holding it fails the same way.
    expect(await store.readLines('t', 'k1', 0, 1)).toEqual({ text: 'line one\n', totalLines: 3 });
    expect((await failure(store.readLines('t', 'k1', 1, 1))).message).toBe(error.message);
    expect(await store.unreadable('t')).toEqual([
      {
        store: 'chunks',
        key: JSON.stringify([textId, 1]),
        threadId: 't',
        reason: 'chunk 1 of its text is an object, not text (k1)',
      },
    ]);
    const backend = new OffloadBackend(store, 't');
    expect((await backend.grep('line')).map(({ path, line, text }) => ({ path, line, text }))).toEqual([
      { path: '/k2', line: 1, text: 'fine line' },
    ]);
    // Listed still (its record is fine), so the inspector shows it and the bound counts it.
    expect((await store.list('t')).map((e) => e.key)).toEqual(['k1', 'k2']);
  });

  it('a thread record with a string total: rebuilt from the entries, every seq a number, the bound held', async () => {
    warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const store = open();
    await put(store, 't', 'k0', 'x'.repeat(100), 't1', 1000);
    await tamper(store.name, async (tx) => {
      const threads = tx.objectStore('threads');
      await threads.put({ ...(await threads.get('t'))!, totalBytes: '100' as never });
    });
    expect(await store.unreadable('t')).toEqual([
      { store: 'threads', key: 't', threadId: 't', reason: 'totalBytes is "100", not a count of bytes' },
    ]);
    expect(await store.totalBytes('t')).toBe(100);
    for (let i = 1; i <= 18; i++) await put(store, 't', `k${i}`, 'y'.repeat(100), 't1', 1000);
    const entries = await store.list('t');
    const sum = entries.reduce((total, entry) => total + entry.bytes, 0);
    expect(sum).toBeLessThanOrEqual(1000);
    expect(await store.totalBytes('t')).toBe(sum);
    expect(entries.map((entry) => entry.key)).toEqual(Array.from({ length: 10 }, (_, i) => `k${i + 9}`));
    for (const entry of entries) expect(Number.isSafeInteger(entry.seq)).toBe(true);
    expect(new Set(entries.map((entry) => entry.seq)).size).toBe(10);
    // The rebuilt record was saved: nothing is unreadable any more.
    expect(await store.unreadable()).toEqual([]);
  });

  it('a damaged thread record and a damaged entry: the rebuilt record never reuses the seq that entry holds', async () => {
    warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const store = open();
    await put(store, 't', 'k1', 'one', 't1', 1000);
    await put(store, 't', 'k2', 'two', 't1', 1000);
    await tamper(store.name, async (tx) => {
      // The newest entry keeps its seq (still in the eviction queue's index) but is unreadable.
      const entries = tx.objectStore('entries');
      await entries.put({ ...(await entries.get(['t', 'k2']))!, createdAt: 'yesterday' as never });
      const threads = tx.objectStore('threads');
      await threads.put({ ...(await threads.get('t'))!, nextSeq: 'soon' as never });
    });
    // Every later store goes on: none fails on the damaged entry's seq.
    for (let i = 3; i <= 6; i++) await put(store, 't', `k${i}`, `text ${i}`, 't1', 1000);
    expect((await store.list('t')).map((entry) => entry.key)).toEqual(['k1', 'k3', 'k4', 'k5', 'k6']);
    expect(new Set((await store.list('t')).map((entry) => entry.seq)).size).toBe(5);
  });

  it('a thread record with a malformed bound: bound() reports none rather than trust it, and the next commit sets it', async () => {
    warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    for (const forged of [0, -1, 1.5, '100', null, Number.POSITIVE_INFINITY, 2 ** 60]) {
      const store = open();
      await put(store, 't', 'k1', 'x'.repeat(60), 't1', 100);
      expect(await store.bound('t')).toBe(100);
      await tamper(store.name, async (tx) => {
        const threads = tx.objectStore('threads');
        await threads.put({ ...(await threads.get('t'))!, maxTotalBytes: forged as never });
      });
      expect(await store.bound('t')).toBeUndefined();
      expect((await store.unreadable('t')).map((record) => [record.store, record.reason])).toEqual([
        ['threads', expect.stringMatching(/^maxTotalBytes is .*, not a positive integer or absent$/)],
      ]);
      // Its events tell none either; the next commit's bound is kept (the record rebuilt).
      const told: unknown[] = [];
      store.subscribe((event) => told.push('bound' in event ? event.bound : undefined));
      await put(store, 't', 'k2', 'y'.repeat(30), 't1', 200);
      expect(told).toEqual([200]);
      expect(await store.bound('t')).toBe(200);
    }
  });

  it('a thread total smaller than its entries cannot break the bound once entries run out', async () => {
    warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const store = open();
    await put(store, 't', 'k1', 'x'.repeat(60), 't1', 100);
    // The only entry turns unreadable, while the total still counts it.
    await tamper(store.name, async (tx) => {
      const entries = tx.objectStore('entries');
      await entries.put({ ...(await entries.get(['t', 'k1']))!, createdAt: 'yesterday' as never });
    });
    await put(store, 't', 'k2', 'y'.repeat(90), 't1', 100);
    expect(await store.totalBytes('t')).toBe(90);
    expect((await store.list('t')).map((e) => e.key)).toEqual(['k2']);
  });

  it('an entry with an invalid date is skipped in every list and reported', async () => {
    warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const store = open();
    await put(store, 't', 'k1', 'one', 't1', 1000);
    await put(store, 't', 'k2', 'two', 't1', 1000);
    await put(store, 'u', 'k1', 'other thread', 't1', 1000);
    await tamper(store.name, async (tx) => {
      const entries = tx.objectStore('entries');
      await entries.put({ ...(await entries.get(['t', 'k1']))!, createdAt: Number.NaN });
    });
    expect((await store.list('t')).map((e) => e.key)).toEqual(['k2']);
    expect((await store.list()).map((e) => `${e.threadId}/${e.key}`)).toEqual(['t/k2', 'u/k1']);
    expect(await store.unreadable()).toEqual([
      { store: 'entries', key: '["t","k1"]', threadId: 't', reason: 'createdAt is NaN, not a time in milliseconds' },
    ]);
    expect((await failure(store.read('t', 'k1'))).message).toContain('createdAt is NaN');
    expect(await store.read('t', 'k2')).toBe('two');
  });

  it('an entry whose kept facts are malformed (headerOnly, toolCallId not text) is skipped and reported', async () => {
    warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const store = open();
    await put(store, 't', 'k1', 'one', 't1', 1000);
    await put(store, 't', 'k2', 'two', 't1', 1000);
    await put(store, 't', 'k3', 'three', 't1', 1000);
    await tamper(store.name, async (tx) => {
      const entries = tx.objectStore('entries');
      await entries.put({ ...(await entries.get(['t', 'k1']))!, headerOnly: { length: 1e9 } as unknown as string });
      await entries.put({ ...(await entries.get(['t', 'k2']))!, toolCallId: 42 as unknown as string });
      // Kept as text, or absent (a record written before they were kept): valid.
      await entries.put({ ...(await entries.get(['t', 'k3']))!, headerOnly: 'h', toolCallId: 'c3' });
    });
    expect((await store.list('t')).map((e) => [e.key, e.toolCallId, e.headerOnly])).toEqual([['k3', 'c3', 'h']]);
    expect(await store.unreadable('t')).toEqual([
      {
        store: 'entries',
        key: '["t","k1"]',
        threadId: 't',
        reason: 'headerOnly is {"length":1000000000}, not a string or absent',
      },
      { store: 'entries', key: '["t","k2"]', threadId: 't', reason: 'toolCallId is 42, not a string or absent' },
    ]);
  });

  it('malformed eviction and failure records are skipped and reported; reads of their keys fall back', async () => {
    warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const store = open();
    await put(store, 't', 'k1', 'x'.repeat(60), 't1', 100);
    await put(store, 't', 'k2', 'y'.repeat(60), 't1', 100);
    await store.reportFailure({ threadId: 't', key: 'f', path: '/p', toolName: 'x', bytes: 1, at: 1, error: 'full' });
    await store.reportFailure({ threadId: 't', key: 'g', path: '/p', toolName: 'x', bytes: 1, at: 2, error: 'full' });
    await tamper(store.name, async (tx) => {
      const [eviction] = await tx.objectStore('evictions').getAll();
      await tx.objectStore('evictions').put({ ...eviction!, reason: 'because' as never });
      const [failure] = await tx.objectStore('failures').getAll();
      await tx.objectStore('failures').put({ ...failure!, at: {} as never });
    });
    expect(await store.evictions('t')).toEqual([]);
    expect(await store.evictions()).toEqual([]);
    expect((await store.failures('t')).map((f) => f.key)).toEqual(['g']);
    expect((await failure(store.read('t', 'k1'))).code).toBe('not-found');
    expect((await store.unreadable('t')).map((r) => [r.store, r.reason])).toEqual([
      ['evictions', 'reason is "because", not an eviction reason'],
      ['failures', 'at is {}, not a time in milliseconds'],
    ]);
  });
});

describe('IndexedDbOffloadStore: records of an older version', () => {
  it('an eviction logged before evictions named their tool is read as valid, without a tool', async () => {
    const store = open();
    await put(store, 't', 'k1', 'x'.repeat(60), 't1', 100);
    await put(store, 't', 'k2', 'y'.repeat(60), 't1', 100);
    await tamper(store.name, async (tx) => {
      const [eviction] = await tx.objectStore('evictions').getAll();
      const { toolName, ...older } = eviction!;
      expect(toolName).toBe('fetch');
      await tx.objectStore('evictions').put(older);
    });
    const [record] = await store.evictions('t');
    expect(record).toMatchObject({ key: 'k1', reason: 'bound' });
    expect(record).not.toHaveProperty('toolName');
    expect(await store.unreadable('t')).toEqual([]);
    expect((await failure(store.read('t', 'k1'))).code).toBe('evicted');
  });

  it.each([
    ['toolName', 7, 'toolName is 7, not a string or absent'],
    ['toolCallId', 42, 'toolCallId is 42, not a string or absent'],
    ['estimatedTokens', -1, 'estimatedTokens is -1, not a count or absent'],
    ['previewDigest', {}, 'previewDigest is {}, not a string or absent'],
    ['headerOnly', null, 'headerOnly is null, not a string or absent'],
  ])('an eviction whose %s is %j is skipped and reported', async (field, value, reason) => {
    warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const store = open();
    await put(store, 't', 'k1', 'x'.repeat(60), 't1', 100);
    await put(store, 't', 'k2', 'y'.repeat(60), 't1', 100);
    await tamper(store.name, async (tx) => {
      const [eviction] = await tx.objectStore('evictions').getAll();
      await tx.objectStore('evictions').put({ ...eviction!, [field]: value as never });
    });
    expect(await store.evictions('t')).toEqual([]);
    expect((await store.unreadable('t')).map((r) => [r.store, r.reason])).toEqual([['evictions', reason]]);
  });
});

describe('IndexedDbOffloadStore: a database of a newer schema', () => {
  it('is a clear error, not a silent downgrade', async () => {
    const store = open();
    await put(store, 't', 'k1', 'before', 't1', 100);
    await store.close();
    const newer = await openDB(store.name, 99, { upgrade: (database) => void database.createObjectStore('future') });
    newer.close();
    await expect(store.list('t')).rejects.toThrow(
      /newer version of this app \(schema version 99; this code knows up to \d+\)/,
    );
  });
});
