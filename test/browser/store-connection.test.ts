import { deleteDB, openDB } from 'idb';
import { describe, expect, it } from 'vitest';
import { IndexedDbCheckpointer } from '../../lib/runtime/indexeddb-checkpointer.js';
import { IdbConnection } from '../../lib/shared/indexeddb-connection.js';
import { OFFLOAD_DB_VERSION } from '../../lib/store/indexeddb-schema.js';
import { IndexedDbOffloadStore } from '../../lib/store/indexeddb-store.js';
import { put } from './store-contract.js';

const fresh = (label: string) => `store-${label}-${crypto.randomUUID()}`;

/** A raw connection that ignores 'versionchange', as an old tab that never closes would. */
function stubbornConnection(name: string, version: number): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(name, version);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

describe('IndexedDB connections shared with other tabs (S4)', () => {
  it("closes on another tab's upgrade and lets it through; then refuses the newer database, naming it", async () => {
    const store = new IndexedDbOffloadStore({ name: fresh('versionchange') });
    try {
      await put(store, 't', 'k1', 'before');
      let blocked = false;
      const newer = await openDB(store.name, OFFLOAD_DB_VERSION + 1, {
        upgrade: (database) => void database.createObjectStore('added-by-a-newer-tab'),
        blocked: () => {
          blocked = true;
        },
      });
      expect(blocked).toBe(false);
      newer.close();
      // Its records may be in a shape this code does not know: no read, no write, a clear error.
      await expect(store.read('t', 'k1')).rejects.toThrow(
        `written by a newer version of this app (schema version ${OFFLOAD_DB_VERSION + 1}; this code knows up to ${OFFLOAD_DB_VERSION})`,
      );
      await expect(put(store, 't', 'k2', 'after')).rejects.toThrow(/Reload this tab/);
    } finally {
      await store.deleteDatabase();
    }
  });

  it('lets another tab delete the database, then starts a new one on the next call', async () => {
    const store = new IndexedDbOffloadStore({ name: fresh('deleted') });
    try {
      await put(store, 't', 'k1', 'gone soon');
      await deleteDB(store.name);
      expect(await store.list('t')).toEqual([]);
      await put(store, 't', 'k2', 'new');
      expect(await store.read('t', 'k2')).toBe('new');
    } finally {
      await store.deleteDatabase();
    }
  });

  it('fails a blocked upgrade after the timeout with an error naming the database, then recovers', async () => {
    const name = fresh('blocked');
    const old = await stubbornConnection(name, 1);
    const connection = new IdbConnection<never>({
      name,
      version: 2,
      upgrade: () => {},
      layouts: { 1: [], 2: [] },
      // The call after old.close() waits for the blocked upgrade to go through, up to this long:
      // generous, for a busy machine.
      blockedTimeoutMs: 2000,
    });
    const error = await connection.database().then(
      () => undefined,
      (reason: Error) => reason,
    );
    expect(error?.message).toContain(`"${name}"`);
    expect(error?.message).toContain('another tab or worker holds an older version');
    old.close();
    const database = await connection.database();
    expect(database.version).toBe(2);
    await connection.deleteDatabase();
  });

  it('fails a blocked delete after the timeout instead of hanging', async () => {
    const name = fresh('blocked-delete');
    const old = await stubbornConnection(name, 1);
    const store = new IndexedDbOffloadStore({ name, blockedTimeoutMs: 200 });
    await expect(store.deleteDatabase()).rejects.toThrow(/Could not delete IndexedDB database .* stayed blocked/);
    old.close();
    await deleteDB(name);
  });

  it('rejects bad options with errors naming them', () => {
    expect(() => new IndexedDbOffloadStore({ name: '' })).toThrow(/database name/);
    expect(() => new IndexedDbOffloadStore({ blockedTimeoutMs: -1 })).toThrow(/blockedTimeoutMs/);
    expect(() => new IndexedDbOffloadStore({ logRetention: 0 })).toThrow(
      'IndexedDbOffloadStore: logRetention must be an integer of at least 1, got 0',
    );
    expect(() => new IndexedDbOffloadStore({ logRetention: 2.5 })).toThrow(RangeError);
  });
});

describe('IndexedDbCheckpointer', () => {
  it('round-trips a checkpoint and keeps it for a new instance', async () => {
    const name = fresh('checkpoints');
    const checkpoint = {
      messages: [{ role: 'user', content: [{ type: 'text', text: 'héllo' }] }],
      state: { toolOutputOffload: { keys: ['a', 'b'] }, nested: [[1, [2, [3]]], null, true] },
      step: 3,
    };
    const first = new IndexedDbCheckpointer({ name });
    try {
      await first.save('thread-1', checkpoint);
      expect(await first.load('thread-1')).toEqual(checkpoint);
      expect(await first.load('other')).toBeUndefined();
      await first.close();
      const second = new IndexedDbCheckpointer({ name });
      expect(await second.load('thread-1')).toEqual(checkpoint);
      await second.close();
    } finally {
      await first.deleteDatabase();
    }
  });

  it('adopts a bare database under its name (indexedDB.open(name)) and refuses one holding other stores (S6)', async () => {
    const bare = fresh('checkpoints-bare');
    (await stubbornConnection(bare, 1)).close();
    const adopted = new IndexedDbCheckpointer({ name: bare });
    try {
      await adopted.save('t', { step: 1 });
      expect(await adopted.load('t')).toEqual({ step: 1 });
    } finally {
      await adopted.deleteDatabase();
    }
    const foreign = fresh('checkpoints-foreign');
    await openDB(foreign, 1, { upgrade: (database) => void database.createObjectStore('users') }).then((d) =>
      d.close(),
    );
    const refused = new IndexedDbCheckpointer({ name: foreign });
    await expect(refused.load('t')).rejects.toThrow(`"${foreign}": it is not this store's database`);
    await refused.close();
    const untouched = await openDB(foreign);
    expect([untouched.version, [...untouched.objectStoreNames]]).toEqual([1, ['users']]);
    untouched.close();
    await deleteDB(foreign);
  });

  it('refuses what cannot be cloned, keeping the saved checkpoint, and names a bad thread id', async () => {
    const checkpointer = new IndexedDbCheckpointer({ name: fresh('checkpoints-bad') });
    try {
      await checkpointer.save('t', { step: 1 });
      await expect(checkpointer.save('t', { step: 2, run: () => 1 })).rejects.toMatchObject({ name: 'DataCloneError' });
      expect(await checkpointer.load('t')).toEqual({ step: 1 });
      await expect(checkpointer.save('', {})).rejects.toThrow(/threadId/);
    } finally {
      await checkpointer.deleteDatabase();
    }
  });
});
