// IndexedDbOffloadStore keeps texts in chunks: a page reads only its chunks, every operation moves or
// deletes all chunks of a text, and a version 1 database (one value a text) is converted on open.
import { type DBSchema, openDB } from 'idb';
import { afterEach, describe, expect, it } from 'vitest';
import { IdbConnection } from '../../lib/shared/indexeddb-connection.js';
import { sliceLines, utf8Bytes } from '../../lib/shared/text.js';
import { OFFLOAD_DB_LAYOUTS, type OffloadDb } from '../../lib/store/indexeddb-schema.js';
import { IndexedDbOffloadStore } from '../../lib/store/indexeddb-store.js';
import { chunkText, defaultChunkChars } from '../../lib/store/text-chunks.js';
import { integrity } from './fixtures/idb-integrity.js';
import { snapshot } from './fixtures/idb-snapshot.js';
import { result } from './fixtures/staged-result.js';
import { put } from './store-contract.js';

const opened: IndexedDbOffloadStore[] = [];
function open(chunkChars?: number, name = `store-chunks-${crypto.randomUUID()}`) {
  const store = new IndexedDbOffloadStore(chunkChars === undefined ? { name } : { name, chunkChars });
  opened.push(store);
  return store;
}
afterEach(async () => {
  for (const store of opened.splice(0)) await store.deleteDatabase();
});

/** Calls `watch` with each key IndexedDB is asked to get from the chunks store, until the returned function is called. */
function watchChunkGets(watch: (key: IDBValidKey) => void): () => void {
  const original = IDBObjectStore.prototype.get;
  IDBObjectStore.prototype.get = function (this: IDBObjectStore, query: IDBValidKey | IDBKeyRange) {
    if (this.name === 'chunks') watch(query as IDBValidKey);
    return original.call(this, query);
  };
  return () => {
    IDBObjectStore.prototype.get = original;
  };
}

/** 200 lines of 50 characters: in chunks of 1000, each chunk holds 20 whole lines. */
const lines = Array.from({ length: 200 }, (_, i) => `line ${String(i).padStart(3, '0')} ${'x'.repeat(40)}\n`).join('');

describe('IndexedDbOffloadStore chunks', () => {
  it('reads a page from only the chunks that hold it, and counts lines without reading any', async () => {
    const store = open(1000);
    await put(store, 't', 'k', lines, 't1', 100_000);
    const asked: number[] = [];
    const restore = watchChunkGets((key) => asked.push((key as [string, number])[1]));
    try {
      expect(await store.readLines('t', 'k', 45, 10)).toEqual({ text: sliceLines(lines, 45, 10), totalLines: 200 });
      expect(asked).toEqual([2]);
      asked.length = 0;
      expect(await store.readLines('t', 'k', 55, 10)).toEqual({ text: sliceLines(lines, 55, 10), totalLines: 200 });
      expect(asked).toEqual([2, 3]);
      asked.length = 0;
      expect(await store.readLines('t', 'k', 0, 0)).toEqual({ text: '', totalLines: 200 });
      expect(await store.readLines('t', 'k', 200, 10)).toEqual({ text: '', totalLines: 200 });
      expect(asked).toEqual([]);
      expect(await store.read('t', 'k')).toBe(lines);
      expect(asked).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    } finally {
      restore();
    }
  });

  it('leaves no chunk behind and misses none through stage, commit, eviction, drop, restore, settle and clear', async () => {
    const store = open(10);
    const check = async (step: string) => expect((await integrity(store.name)).problems, step).toEqual([]);
    const text = (tag: string, length: number) => `${tag}\n${'x'.repeat(length)}`.slice(0, length);
    await put(store, 't', 'k1', text('one', 45), 't1', 150);
    await put(store, 't', 'k2', text('two', 38), 't1', 150);
    await store.stage(result('t', 'k2', text('restaged', 50), 't2'));
    await store.stage(result('t', 'k2', text('restaged again', 61), 't2'));
    await check('staged twice');
    await store.apply({ type: 'commit', threadId: 't', key: 'k2', turnId: 't2', maxTotalBytes: 150 });
    await put(store, 't', 'k3', text('three', 57), 't2', 150);
    await check('replaced and evicted');
    await store.apply({ type: 'drop', threadId: 't', keys: ['k3'], turnId: 't2', reason: 'summarized' });
    await store.restoreTurn('t', 't2', 150);
    await check('restored');
    expect(await store.read('t', 'k1')).toBe(text('one', 45));
    expect(await store.read('t', 'k2')).toBe(text('two', 38));
    await put(store, 't', 'k4', text('four', 70), 't3', 150);
    await store.settle('t', ['t1', 't2']);
    await check('settled');
    await store.clearThread('t');
    await check('cleared');
    expect((await snapshot(store.name, 't')).textIds).toEqual([]);
  });

  it('a stage that fails after some chunks were written leaves nothing of it', async () => {
    const store = open(10);
    await put(store, 't', 'k1', 'live text', 't1');
    const before = await snapshot(store.name, 't');
    const original = IDBObjectStore.prototype.put;
    let puts = 0;
    IDBObjectStore.prototype.put = function (this: IDBObjectStore, ...args: [unknown, IDBValidKey?]) {
      if (this.name === 'chunks' && ++puts === 3)
        throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
      return original.apply(this, args);
    };
    try {
      await expect(store.stage(result('t', 'k2', 'a text of many chunks', 't2'))).rejects.toMatchObject({
        name: 'QuotaExceededError',
      });
    } finally {
      IDBObjectStore.prototype.put = original;
    }
    expect(puts).toBe(3);
    expect(await snapshot(store.name, 't')).toEqual(before);
    expect((await integrity(store.name)).problems).toEqual([]);
  });

  it('the integrity check names a missing chunk, a chunk past the end and a chunk nobody refers to', async () => {
    const store = open(10);
    await put(store, 't', 'k', 'x'.repeat(35), 't1');
    const [entry] = (await snapshot(store.name, 't')).entries;
    const database = await openDB<OffloadDb>(store.name);
    await database.delete('chunks', [entry!.textId, 1]);
    await database.put('chunks', 'stray', [entry!.textId, 7]);
    await database.put('chunks', 'orphan', ['nobody', 0]);
    database.close();
    expect((await integrity(store.name)).problems).toEqual([
      `text ${entry!.textId}: chunk 1 of 4 is missing`,
      `text ${entry!.textId}: chunk 7 is past its 4 chunks`,
      'text nobody is stored but nothing refers to it',
    ]);
  });
});

/** The part of version 1's schema its code checks for. */
interface Version1Db extends DBSchema {
  entries: { key: [string, string]; value: unknown };
  texts: { key: string; value: string };
}

/** A database as version 1 of this package left it: one value a text in 'texts', undo steps naming eviction ids. */
async function version1Database(name: string, texts: Record<string, string>) {
  const database = await openDB(name, 1, {
    upgrade(db) {
      const entries = db.createObjectStore('entries', { keyPath: ['threadId', 'key'] });
      entries.createIndex('bySeq', ['threadId', 'seq'], { unique: true });
      db.createObjectStore('texts');
      db.createObjectStore('staged', { keyPath: ['threadId', 'key'] });
      const evictions = db.createObjectStore('evictions', { keyPath: 'id', autoIncrement: true });
      evictions.createIndex('byThread', 'threadId');
      evictions.createIndex('byKey', ['threadId', 'key']);
      db.createObjectStore('undo', { keyPath: ['threadId', 'turnId'] });
      db.createObjectStore('threads', { keyPath: 'threadId' });
      const failures = db.createObjectStore('failures', { keyPath: 'id', autoIncrement: true });
      failures.createIndex('byThread', 'threadId');
    },
  });
  const info = (key: string, seq?: number) => ({
    ...result('t', key, texts[key]!),
    ...(seq === undefined ? {} : { seq }),
    textId: `id-${key}`,
  });
  const strip = ({ text: _text, turnId: _turnId, ...record }: ReturnType<typeof info>) => record;
  const tx = database.transaction(['texts', 'entries', 'staged', 'evictions', 'undo', 'threads'], 'readwrite');
  for (const [key, text] of Object.entries(texts)) await tx.objectStore('texts').put(text, `id-${key}`);
  await tx.objectStore('entries').put(strip(info('live', 2)));
  await tx.objectStore('entries').put(strip(info('later', 3)));
  await tx.objectStore('staged').put({ ...strip(info('next')), turnId: 'turn-3' });
  const old = strip(info('old', 1));
  const evictionId = await tx.objectStore('evictions').add({
    threadId: 't',
    key: 'old',
    path: old.path,
    bytes: old.bytes,
    at: 1,
    reason: 'bound',
    turnId: 'turn-2',
  });
  await tx.objectStore('undo').put({
    threadId: 't',
    turnId: 'turn-2',
    steps: [
      { kind: 'evicted', entry: old, evictionId },
      { kind: 'stored', key: 'later', seq: 3 },
    ],
  });
  const totalBytes = utf8Bytes(texts.live!) + utf8Bytes(texts.later!);
  await tx.objectStore('threads').put({ threadId: 't', totalBytes, nextSeq: 4, entries: 2 });
  await tx.done;
  database.close();
}

describe('IndexedDbOffloadStore opening a version 1 database', () => {
  const texts = {
    // Over 60 characters a line: more than one chunk of the default size.
    live: Array.from({ length: 6000 }, (_, i) => `line ${i} ${'é'.repeat(50)}`).join('\n'),
    later: 'two\nlines\n',
    old: 'evicted, kept for undo\n',
    next: 'staged, not yet committed',
  };

  it('converts every text into chunks, keeps every record, and lets older code know it cannot use it', async () => {
    const name = `store-v1-${crypto.randomUUID()}`;
    await version1Database(name, texts);
    const store = open(undefined, name);
    expect(await store.read('t', 'live')).toBe(texts.live);
    expect(await store.readLines('t', 'live', 1500, 2)).toEqual({
      text: sliceLines(texts.live, 1500, 2),
      totalLines: 6000,
    });
    expect((await store.list('t')).map((entry) => Object.keys(entry).sort())).toEqual([
      Object.keys(strippedInfo()).sort(),
      Object.keys(strippedInfo()).sort(),
    ]);
    expect((await integrity(name)).problems).toEqual([]);
    const raw = await openDB<OffloadDb>(name);
    expect([...raw.objectStoreNames]).not.toContain('texts');
    const chunks = chunkText(texts.live, defaultChunkChars).chunks.length;
    expect(chunks).toBeGreaterThan(1);
    expect((await raw.getAllKeys('chunks')).filter(([id]) => id === 'id-live')).toHaveLength(chunks);
    raw.close();

    // The undo log still works: the blocked turn's entry goes, and the one it evicted comes back.
    await store.restoreTurn('t', 'turn-2', 1_000_000);
    expect((await store.list('t')).map((entry) => entry.key)).toEqual(['old', 'live']);
    expect(await store.read('t', 'old')).toBe(texts.old);
    expect((await store.evictions('t')).map((e) => [e.key, e.reason])).toEqual([['later', 'blocked']]);
    const applied = await store.apply({
      type: 'commit',
      threadId: 't',
      key: 'next',
      turnId: 'turn-3',
      maxTotalBytes: 1e6,
    });
    expect(applied.stored).toEqual(['next']);
    expect(await store.read('t', 'next')).toBe(texts.next);
    expect((await integrity(name)).problems).toEqual([]);
    await store.close();

    // Code of version 1 refuses the converted database rather than writing to it.
    const older = new IdbConnection<Version1Db>({
      name,
      version: 1,
      upgrade: () => {},
      layouts: { 1: OFFLOAD_DB_LAYOUTS[1]! },
      blockedTimeoutMs: 1000,
    });
    await expect(older.database()).rejects.toThrow(
      /written by a newer version of this app \(schema version \d+; this code knows up to 1\)/,
    );
  });
});

/** The fields of a listed entry. */
function strippedInfo() {
  const { text: _text, turnId: _turnId, ...info } = result('t', 'k', 'x');
  return { ...info, seq: 1 };
}
