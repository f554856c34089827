// A database under the store's name that the store did not write: another script of the origin, a
// library, an old experiment, or a newer copy of the app in another tab. The store adopts one that
// holds none of its object stores, refuses any other at once with an error naming what it found,
// and the run goes on either way (S3, S6).
import { openDB } from 'idb';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../lib/agent/create-agent.js';
import { ToolOutputOffload } from '../../lib/offload/tool-output-offload.js';
import { OFFLOAD_DB_LAYOUTS, OFFLOAD_DB_VERSION, OFFLOAD_STORES } from '../../lib/store/indexeddb-schema.js';
import { IndexedDbOffloadStore } from '../../lib/store/indexeddb-store.js';
import type { StoreEvent } from '../../lib/store/offload-store.js';
import { scriptedModel } from '../../lib/testing.js';
import { calls, lastToolText, linesOf, offloadAgent, pathIn, reply } from '../node/offload-harness.js';
import { unhandledRejectionsOf } from './fixtures/failing-stores.js';
import { cleanupMounts, mount, until } from './inspector-fixtures.js';
import { put } from './store-contract.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  cleanupMounts();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function request<T>(made: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    made.onsuccess = () => resolve(made.result);
    made.onerror = () => reject(made.error);
  });
}

/** A fresh database name, deleted after the test. */
function freshName(label: string): string {
  const name = `foreign-${label}-${crypto.randomUUID()}`;
  cleanups.push(() => request(indexedDB.deleteDatabase(name)).then(() => {}));
  return name;
}

/** A store on `name`, closed after the test (before its database is deleted). */
function storeOn(name: string): IndexedDbOffloadStore {
  const store = new IndexedDbOffloadStore({ name });
  cleanups.push(() => store.close());
  return store;
}

/** What a script does with a bare `indexedDB.open(name)` (at `version`, when given): an empty database. */
async function bareDatabase(name: string, version?: number): Promise<void> {
  (await request(indexedDB.open(name, version))).close();
}

/**
 * Another app's database under the same name, holding 'users', left open as a live app leaves it
 * (and deaf to 'versionchange', as code that never expected anyone else to open it is).
 */
async function foreignDatabase(name: string, stores: readonly string[] = ['users']): Promise<IDBDatabase> {
  const opening = indexedDB.open(name, 1);
  opening.onupgradeneeded = () => {
    for (const store of stores) opening.result.createObjectStore(store);
  };
  const database = await request(opening);
  const tx = database.transaction(stores[0]!, 'readwrite');
  tx.objectStore(stores[0]!).put({ name: 'Ada' }, 'user-1');
  await new Promise((resolve, reject) => {
    tx.oncomplete = resolve;
    tx.onerror = () => reject(tx.error);
  });
  cleanups.push(async () => database.close());
  return database;
}

/** A database of this name at a version above the store's, as a newer copy of the app in another tab holds it. */
async function newerDatabase(name: string): Promise<IDBDatabase> {
  const opening = indexedDB.open(name, OFFLOAD_DB_VERSION + 7);
  opening.onupgradeneeded = () => opening.result.createObjectStore('from-a-newer-app');
  const database = await request(opening);
  cleanups.push(async () => database.close());
  return database;
}

/** The other app's data, read through a connection of its own. */
async function usersOf(name: string) {
  const database = await request(indexedDB.open(name));
  try {
    const stores = [...database.objectStoreNames];
    const user = await request(database.transaction('users').objectStore('users').get('user-1'));
    return { version: database.version, stores, user };
  } finally {
    database.close();
  }
}

/** An agent on `store` whose tool returns 100 lines over its 1000-token threshold, then reads back what it was shown. */
function agentOn(store: IndexedDbOffloadStore) {
  const model = scriptedModel([
    calls(['emit', { lines: 100 }]),
    (request) => {
      const shown = lastToolText(request);
      return shown.includes('Path: ') ? calls(['read_file', { path: pathIn(shown), offset: 98, limit: 2 }]) : reply();
    },
    reply(),
  ]);
  const events: RunEvent[] = [];
  const { agent } = offloadAgent(model, {
    offload: { thresholdTokens: 1000, store },
    agent: { onEvent: (event) => events.push(event) },
  });
  return { agent, model, events };
}

const bigText = linesOf(100);

/** Runs one turn on a store that cannot open: the run completes, the result is cut with the note saying why. */
async function runRefused(store: IndexedDbOffloadStore, why: RegExp) {
  const { agent, model, events } = agentOn(store);
  const heard: StoreEvent[] = [];
  const unsubscribe = store.subscribe((event) => heard.push(event));
  let status = '';
  const unhandled = await unhandledRejectionsOf(async () => {
    status = (await agent.run('go', { threadId: 'a' })).status;
  });
  unsubscribe();
  expect(unhandled).toEqual([]);
  expect(status).toBe('completed');
  // The model saw the result cut, with the note saying it could not be stored, and why.
  const shown = lastToolText(model.requests[1]!);
  expect(shown).toContain(bigText.slice(0, 200));
  expect(shown).toMatch(/It could not be stored \(.+\), so the rest is not available\.\]$/);
  expect(shown).toMatch(why);
  expect(shown).not.toContain('Path: ');
  expect(model.requests).toHaveLength(2);
  // Events: the turn's start says the store is unavailable, once; the result says it was not stored.
  const unavailable = events.filter((event) => event.type === 'store-unavailable');
  expect(unavailable).toHaveLength(1);
  expect(unavailable[0]).toMatchObject({ middleware: 'ToolOutputOffload', why: expect.stringMatching(why) });
  expect(events.filter((event) => event.type === 'offload-failed')).toEqual([
    expect.objectContaining({ bytes: expect.any(Number), why: expect.stringMatching(why) }),
  ]);
  // The inspector's live view hears of the failure, and the failure is listed though it could not be
  // saved (kept in memory), so the inspector shows which result was cut; its other reads get the open error.
  expect(heard).toEqual([
    expect.objectContaining({ type: 'failed', threadId: 'a', error: expect.stringMatching(why) }),
  ]);
  expect(await store.failures('a')).toEqual([
    expect.objectContaining({ threadId: 'a', error: expect.stringMatching(why) }),
  ]);
  await expect(store.list('a')).rejects.toThrow(why);
  return shown;
}

describe('A database under the store name that holds none of its object stores is adopted', () => {
  it("a bare indexedDB.open(name): the agent's result is stored and read back, with no unhandled rejection", async () => {
    const name = freshName('bare');
    await bareDatabase(name);
    const store = storeOn(name);
    const { agent, model } = agentOn(store);
    let status = '';
    const unhandled = await unhandledRejectionsOf(async () => {
      status = (await agent.run('go', { threadId: 'a' })).status;
    });
    expect(unhandled).toEqual([]);
    expect(status).toBe('completed');
    const [entry] = await store.list('a');
    expect(await store.read('a', entry!.key)).toBe(bigText);
    const lines = bigText.split('\n');
    expect(lastToolText(model.requests[2]!)).toBe(`    99\t${lines[98]}\n   100\t${lines[99]}`);
    const database = await openDB(name);
    expect(database.version).toBe(OFFLOAD_DB_VERSION);
    expect([...database.objectStoreNames].sort()).toEqual([...OFFLOAD_STORES].sort());
    database.close();
  });

  it('a bare database its script holds open (deaf to versionchange): the upgrade fails when blocked, the run goes on', async () => {
    const name = freshName('bare-held');
    const held = await request(indexedDB.open(name));
    cleanups.push(async () => held.close());
    const store = new IndexedDbOffloadStore({ name, blockedTimeoutMs: 500 });
    cleanups.push(() => store.close());
    await runRefused(store, /stayed blocked for 500 ms because another tab or worker holds an older version/);
    held.close();
    // Once it lets go, the upgrade that was blocked goes through (IndexedDB runs the requests of a
    // database in order: an open queued after it sees it done), and the store works again.
    const after = await request(indexedDB.open(name));
    expect([after.version, [...after.objectStoreNames].sort()]).toEqual([
      OFFLOAD_DB_VERSION,
      [...OFFLOAD_STORES].sort(),
    ]);
    after.close();
    await put(store, 'a', 'k', 'stored at last');
    expect(await store.read('a', 'k')).toBe('stored at last');
  });

  it('a bare database through offloadResult, also one already at the store version or above', async () => {
    for (const version of [undefined, OFFLOAD_DB_VERSION, OFFLOAD_DB_VERSION + 5]) {
      const name = freshName(`bare-${version}`);
      await bareDatabase(name, version);
      const offload = new ToolOutputOffload({ thresholdTokens: 1000, store: storeOn(name) });
      let outcome: Awaited<ReturnType<ToolOutputOffload['offloadResult']>> | undefined;
      const unhandled = await unhandledRejectionsOf(async () => {
        outcome = await offload.offloadResult({ threadId: 't', callId: 'c1', toolName: 'fetch', content: bigText });
      });
      expect(unhandled).toEqual([]);
      expect(outcome).toMatchObject({ kind: 'stored', stored: true });
      const [read] = offload.readTools('t');
      expect((await read!.run({ path: outcome!.path, offset: 0, limit: 1 })).text).toContain(bigText.split('\n')[0]);
      expect(await offload.store.read('t', outcome!.path!.split('/').at(-1)!)).toBe(bigText);
    }
  });
});

describe('A database under the store name that holds other object stores is refused, and the run goes on', () => {
  it("through createAgent: the result is cut with the note saying why; the other app's data is untouched", async () => {
    const name = freshName('users');
    await foreignDatabase(name);
    const store = storeOn(name);
    const why = new RegExp(`"${name}".*not this store's.*"users"`);
    await expect(store.list('a')).rejects.toThrow(why);
    await runRefused(store, why);
    expect(await usersOf(name)).toEqual({ version: 1, stores: ['users'], user: { name: 'Ada' } });
    // The failures it could not save are still listed (kept in memory), so the inspector can show
    // which result was cut; its other reads show the open error.
    expect(await store.failures('a')).toEqual([
      expect.objectContaining({ threadId: 'a', error: expect.stringMatching(why) }),
    ]);
    const view = mount({ store });
    await until(() => expect(view.one('[role="alert"]').textContent).toMatch(why));
  });

  it('through offloadResult (the adapters): kind "failed", the note saying why, nothing changed', async () => {
    const name = freshName('users-open');
    await foreignDatabase(name);
    const offload = new ToolOutputOffload({ thresholdTokens: 1000, store: storeOn(name) });
    let outcome: Awaited<ReturnType<ToolOutputOffload['offloadResult']>> | undefined;
    const unhandled = await unhandledRejectionsOf(async () => {
      outcome = await offload.offloadResult({ threadId: 't', callId: 'c1', toolName: 'fetch', content: bigText });
    });
    expect(unhandled).toEqual([]);
    expect(outcome).toMatchObject({ kind: 'failed', stored: false, why: expect.stringMatching(/"users"/) });
    expect(outcome!.text).toMatch(/It could not be stored \(.*not this store's.*\), so the rest is not available\.\]$/);
    expect(await usersOf(name)).toEqual({ version: 1, stores: ['users'], user: { name: 'Ada' } });
  });

  it('names at most a few of the stores it found, each cut short: they are hostile input', async () => {
    const name = freshName('many');
    const stores = Array.from({ length: 40 }, (_, i) => `users-${i}-${'x'.repeat(5000)}`);
    await foreignDatabase(name, stores);
    const error = await storeOn(name)
      .list('a')
      .then(
        () => undefined,
        (reason: Error) => reason,
      );
    expect(error?.message).toContain(`"${name}"`);
    expect(error?.message).toContain('"users-0-xxx');
    expect(error?.message).toContain('and 35 more');
    expect(error!.message.length).toBeLessThan(1000);
  });
});

describe("An old database of this store's whose conversion fails", () => {
  it('is left as it was, the open saying why; the result is cut with that note', async () => {
    const name = freshName('v1-broken');
    const opening = indexedDB.open(name, 1);
    opening.onupgradeneeded = () => {
      for (const store of OFFLOAD_DB_LAYOUTS[1]!) opening.result.createObjectStore(store);
      // Not a text: version 1's conversion cannot chunk it.
      opening.transaction!.objectStore('texts').put(null, 'id-broken');
    };
    (await request(opening)).close();
    const offload = new ToolOutputOffload({ thresholdTokens: 1000, store: storeOn(name) });
    let outcome: Awaited<ReturnType<ToolOutputOffload['offloadResult']>> | undefined;
    const unhandled = await unhandledRejectionsOf(async () => {
      outcome = await offload.offloadResult({ threadId: 't', callId: 'c1', toolName: 'fetch', content: bigText });
    });
    expect(unhandled).toEqual([]);
    expect(outcome).toMatchObject({
      kind: 'failed',
      why: expect.stringMatching(/its upgrade from version 1 to \d+ failed, so nothing was changed: TypeError/),
    });
    const database = await request(indexedDB.open(name));
    expect([database.version, [...database.objectStoreNames].sort()]).toEqual([1, [...OFFLOAD_DB_LAYOUTS[1]!].sort()]);
    database.close();
  });
});

describe('A database of a newer version (another tab runs a newer copy of the app) is refused, and the run goes on', () => {
  it('through createAgent: the result is cut with the note saying why, at once', async () => {
    const name = freshName('newer');
    await newerDatabase(name);
    const store = storeOn(name);
    await runRefused(store, /newer version of this app/);
    const database = await request(indexedDB.open(name));
    expect([database.version, [...database.objectStoreNames]]).toEqual([OFFLOAD_DB_VERSION + 7, ['from-a-newer-app']]);
    database.close();
  });

  it('a newer app upgrading it between turns: the settle the next turn applies fails, and the turn goes on', async () => {
    const name = freshName('newer-between');
    const store = storeOn(name);
    const model = scriptedModel([
      calls(['emit', { lines: 100 }]),
      () => {
        throw new Error('the model went away');
      },
      reply('second turn'),
    ]);
    const events: RunEvent[] = [];
    const { agent } = offloadAgent(model, {
      offload: { thresholdTokens: 1000, store },
      agent: { onEvent: (event) => events.push(event) },
    });
    // A failed run leaves its turn unsettled (it may still be recovered): the next turn settles it.
    expect((await agent.run('go', { threadId: 'a' })).status).toBe('failed');
    expect(await store.list('a')).toHaveLength(1);
    await newerDatabase(name);
    events.length = 0;
    let result: Awaited<ReturnType<typeof agent.run>> | undefined;
    const unhandled = await unhandledRejectionsOf(async () => {
      result = await agent.run('again', { threadId: 'a' });
    });
    expect(unhandled).toEqual([]);
    expect(result?.status).toBe('completed');
    expect(JSON.stringify(result?.output)).toContain('second turn');
    expect(events.filter((event) => event.type === 'store-unavailable')).toEqual([
      expect.objectContaining({ why: expect.stringMatching(/newer version of this app/) }),
    ]);
  });

  it('through offloadResult (the adapters): kind "failed", the note saying why', async () => {
    const name = freshName('newer-result');
    await newerDatabase(name);
    const offload = new ToolOutputOffload({ thresholdTokens: 1000, store: storeOn(name) });
    let outcome: Awaited<ReturnType<ToolOutputOffload['offloadResult']>> | undefined;
    const unhandled = await unhandledRejectionsOf(async () => {
      outcome = await offload.offloadResult({ threadId: 't', callId: 'c1', toolName: 'fetch', content: bigText });
    });
    expect(unhandled).toEqual([]);
    expect(outcome).toMatchObject({ kind: 'failed', why: expect.stringMatching(/newer version of this app/) });
    expect(outcome!.text).toMatch(/It could not be stored \(.*newer version of this app.*\)/);
  });
});
