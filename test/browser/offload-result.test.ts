import { openDB } from 'idb';
import { describe, expect, it } from 'vitest';
import { ToolOutputOffload } from '../../lib/offload/tool-output-offload.js';
import {
  OFFLOAD_STORES,
  type OffloadDb,
  type OffloadStoreName,
  upgradeOffloadDb,
} from '../../lib/store/indexeddb-schema.js';
import { IndexedDbOffloadStore } from '../../lib/store/indexeddb-store.js';
import { IdbTx } from '../../lib/store/indexeddb-tx.js';
import { MemoryOffloadStore } from '../../lib/store/memory-store.js';
import { chunkText, defaultChunkChars } from '../../lib/store/text-chunks.js';
import { failMemoryCommits } from '../node/fixtures/fail-memory-commits.js';
import { failIdbCommits } from './fixtures/fail-commits.js';
import { integrity } from './fixtures/idb-integrity.js';
import { snapshot } from './fixtures/idb-snapshot.js';
import { result } from './fixtures/staged-result.js';
import { bigText, offloadResultContract } from './offload-result-contract.js';

offloadResultContract('MemoryOffloadStore in Chromium', {
  open: async () => new MemoryOffloadStore(),
  dispose: async () => {},
  failCommits: failMemoryCommits,
});

offloadResultContract('IndexedDbOffloadStore', {
  open: async () => new IndexedDbOffloadStore({ name: `offload-result-${crypto.randomUUID()}` }),
  dispose: (store) => (store as IndexedDbOffloadStore).deleteDatabase(),
  failCommits: failIdbCommits,
  problems: async (store) => {
    const { name } = store as IndexedDbOffloadStore;
    const { staged } = await snapshot(name, 't');
    return [...staged.map((s) => `staged ${s.key} left`), ...(await integrity(name)).problems];
  },
});

describe('offloadResult on IndexedDB: what it remembers', () => {
  const open = () => new IndexedDbOffloadStore({ name: `offload-result-${crypto.randomUUID()}` });

  it('A2 does not depend on the eviction log: with its record gone, an evicted result is still not stored again', async () => {
    const store = open();
    try {
      const offload = new ToolOutputOffload({ store, thresholdTokens: 1000, maxTotalBytes: 14_000 });
      const offer = (tag: string) =>
        offload.offloadResult({ threadId: 't', callId: tag, toolName: 'fetch', content: bigText(tag) });
      const first = await offer('a');
      await offer('b');
      await offer('c');
      // As the eviction log's retention would: the record of first's eviction is deleted.
      const raw = await openDB<OffloadDb>(store.name);
      await raw.clear('evictions');
      raw.close();
      const listed = await store.list('t');
      expect(await offer('a')).toEqual({ ...first, stored: false });
      expect(await store.list('t')).toEqual(listed);
      expect(await store.evictions('t')).toEqual([]);
    } finally {
      await store.deleteDatabase();
    }
  });

  it('a version 2 database gains the record of seen results and keeps its entries', async () => {
    const name = `offload-result-v2-${crypto.randomUUID()}`;
    const v2 = await openDB<OffloadDb>(name, 2, {
      // The schema's upgrade to version 2 makes a database as version 2 made it: no 'seen' yet.
      upgrade(database, oldVersion, newVersion, tx) {
        upgradeOffloadDb(database, oldVersion, newVersion, tx);
      },
    });
    const text = 'kept from version 2\n';
    const { text: _text, turnId: _turnId, ...info } = result('t', 'old', text);
    const { chunks, layout } = chunkText(text, defaultChunkChars);
    const tx = v2.transaction(['entries', 'chunks', 'threads'], 'readwrite');
    await tx.objectStore('entries').put({ ...info, ...layout, seq: 1, textId: 'id-old' });
    await tx.objectStore('chunks').put(chunks[0]!, ['id-old', 0]);
    await tx.objectStore('threads').put({ threadId: 't', totalBytes: info.bytes, nextSeq: 2, entries: 1 });
    await tx.done;
    v2.close();

    const store = new IndexedDbOffloadStore({ name });
    try {
      const offload = new ToolOutputOffload({ store, thresholdTokens: 1000 });
      const input = { threadId: 't', callId: 'c', toolName: 'fetch', content: bigText('new') };
      const first = await offload.offloadResult(input);
      expect(first.stored).toBe(true);
      expect(await offload.offloadResult(input)).toEqual({ ...first, stored: false });
      expect(await store.read('t', 'old')).toBe(text);
      expect((await store.list('t')).map((entry) => entry.seq)).toEqual([1, 2]);
      expect((await integrity(name)).problems).toEqual([]);
    } finally {
      await store.deleteDatabase();
    }
  });

  it('deletes the seen records of a thread oldest first through its seq index, leaving other threads alone', async () => {
    const store = open();
    try {
      await store.list('t'); // opens (creates) the database
      const raw = await openDB<OffloadDb>(store.name);
      const record = (threadId: string, seq: number) => ({
        threadId,
        key: `k${seq}`,
        seq,
        toolName: 'fetch',
        thresholdTokens: 1000,
        previewLines: 10,
        maxResultBytes: 100,
      });
      for (const seq of [1, 2, 3, 4]) await raw.put('seen', record('t', seq));
      await raw.put('seen', record('u', 1));
      const tx = raw.transaction(OFFLOAD_STORES as OffloadStoreName[], 'readwrite');
      await new IdbTx(tx).deleteSeenThrough('t', 2);
      await tx.done;
      expect((await raw.getAll('seen')).map((s) => `${s.threadId}:${s.seq}`).sort()).toEqual(['t:3', 't:4', 'u:1']);
      raw.close();
    } finally {
      await store.deleteDatabase();
    }
  });
});
