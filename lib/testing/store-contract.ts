import { describe, expect, it, vi } from 'vitest';
import { checkOptionNames } from '../shared/checks.js';
import { BackendError } from '../shared/errors.js';
import { sliceLines, utf8Bytes } from '../shared/text.js';
import type {
  AppliedChange,
  EvictionReason,
  HeldText,
  RequestChange,
  RequestResult,
  StagedResult,
  StoreEvent,
  WritableOffloadStore,
} from '../store/offload-store.js';
import { StoreReadError } from '../store/store-read-error.js';

/** How `storeContract` opens, frees and, where it can, breaks the store under test. */
export interface StoreContractOptions<Store extends WritableOffloadStore = WritableOffloadStore> {
  /**
   * The suite's name in the test report.
   * @default 'WritableOffloadStore'
   */
  name?: string;
  /**
   * Frees what `makeStore` made (e.g. deletes its database).
   * @default `store.close?.()`
   */
  dispose?(store: Store): Promise<void> | void;
  /**
   * Makes the next `times` commits fail with a QuotaExceededError, as a full disk would (only
   * writes of live entries fail, so evictions still go through); returns how to stop. Without it
   * the tests of a full quota (S3) are skipped.
   */
  failCommits?(times: number): () => void;
  /**
   * Makes each failure record's write fail right after it is made, so the atomic unit recording it
   * fails and is rolled back; returns how to stop. Without it the tests of that case are skipped.
   */
  failFailureWrites?(): () => void;
  /**
   * The eviction and failure records the store keeps per thread (S1), checked with twice as many
   * evictions (a store in IndexedDB passes a smaller one to run faster).
   * @default 1000
   */
  logRetention?: number;
  /**
   * The context ledger records the store keeps per thread (`requestRetention` of the built-in
   * stores), checked with a few more requests than that.
   * @default 10_000
   */
  requestRetention?: number;
  /**
   * Also require the built-in stores' errors word for word: a failed read is a StoreReadError
   * carrying why as data, bad input is refused in their words. For the package's stores and a
   * store that hands their errors on; without it, errors need only their type, code and the name
   * of what was wrong.
   * @default false
   */
  exactMessages?: boolean;
}

/** A result as the offload stages it, under `/large_tool_results/<key>`. */
function result(threadId: string, key: string, text: string, turnId?: string): StagedResult {
  const bytes = utf8Bytes(text);
  return {
    threadId,
    key,
    path: `/large_tool_results/${key}`,
    toolName: 'fetch',
    bytes,
    originalBytes: bytes,
    estimatedTokens: Math.ceil(text.length / 4),
    truncated: false,
    createdAt: Date.now(),
    preview: `preview of ${key}`,
    text,
    ...(turnId === undefined ? {} : { turnId }),
  };
}

/** Stages and commits one result. */
async function put(store: WritableOffloadStore, threadId: string, key: string, text: string, turnId = 't1', max = 100) {
  await store.stage(result(threadId, key, text, turnId));
  return store.apply({ type: 'commit', threadId, key, turnId, maxTotalBytes: max });
}

/** What one model request carried, as a way in measures it: `tokens` in the system part, and its results. */
function carried(tokens: number, results: RequestResult[] = []): RequestChange['record'] {
  const parts = { system: tokens, messages: 0, whole: 0, previews: 0, pointers: 0, cut: 0 };
  return { tokens, tokensWithoutOffload: tokens * 2, parts, results };
}

/** A result cleared by a request, its pointer naming its path (or `pointer`, a different wording). */
function clearing(toolCallId: string, pointer?: string): RequestChange['cleared'][number] {
  const path = `/large_tool_results/${toolCallId}`;
  return { toolCallId, toolName: 'fetch', path, pointer: pointer ?? `[Cleared from context] ${path}`, tokens: 100 };
}

/** One model request of a thread: its record and what it cleared, at `at` (default now), in a turn when given. */
function requestOf(
  threadId: string,
  { turnId, at, tokens = 10, cleared = [] }: { turnId?: string; at?: number; tokens?: number; cleared?: string[] } = {},
): RequestChange {
  return {
    threadId,
    ...(turnId === undefined ? {} : { turnId }),
    at: at ?? Date.now(),
    record: carried(tokens),
    cleared: cleared.map((id) => clearing(id)),
  };
}

/** A change to a thread's entries or failures (every event but a ledger record's 'request' and a clear's 'thread-cleared'). */
type EntryEvent = Exclude<StoreEvent, { type: 'request' | 'thread-cleared' }>;

/** The event, which must be a change to entries or failures (the tests that expect one make no request). */
function entryEvent(event: StoreEvent): EntryEvent {
  if (event.type === 'request' || event.type === 'thread-cleared') {
    throw new Error(`expected a change to entries, got ${JSON.stringify(event)}`);
  }
  return event;
}

/** What clearThread tells: a change to entries (without its bound), or the clear itself. */
type ClearEvent = EntryEvent | Extract<StoreEvent, { type: 'thread-cleared' }>;
const clearEvent = (event: StoreEvent): ClearEvent => (event.type === 'thread-cleared' ? event : withoutBound(event));

/**
 * An event without its optional `bound` (a custom store need not tell it), so events compare as
 * the contract requires them; a bound told must be a positive integer (its value is checked apart).
 */
function withoutBound(event: StoreEvent): EntryEvent {
  const { bound, ...rest } = entryEvent(event);
  if (bound !== undefined) expect(Number.isSafeInteger(bound) && bound > 0).toBe(true);
  return rest as EntryEvent;
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the promise to reject');
}

/**
 * The behaviour every WritableOffloadStore must have (S1–S3, O3, O8, A1, A2, C4, C7;
 * docs/stores.md), as vitest tests: call it at the top level of a test file. `makeStore` opens a
 * fresh, empty store for each test; `options.dispose` frees it after. The package's own stores run
 * this same suite, in Node (memory) and in Chromium, Firefox and WebKit (memory and IndexedDB).
 */
export function storeContract<Store extends WritableOffloadStore>(
  makeStore: () => Store | Promise<Store>,
  options: StoreContractOptions<Store> = {},
): void {
  checkOptionNames('storeContract', options, [
    'name',
    'dispose',
    'failCommits',
    'failFailureWrites',
    'logRetention',
    'requestRetention',
    'exactMessages',
  ]);
  const { failCommits, failFailureWrites, exactMessages: exact = false } = options;
  const retention = options.logRetention ?? 1000;
  const requestRetention = options.requestRetention ?? 10_000;
  const dispose = options.dispose ?? ((store: Store) => store.close?.());

  /**
   * The error a read of an evicted key throws: 'evicted'; a StoreReadError (required with
   * `exactMessages`) carries the key's latest eviction as data (its reason among it), and its
   * message states it, naming the path.
   */
  async function evictedRead(read: Promise<unknown>, reason: EvictionReason): Promise<BackendError> {
    const error = await rejection(read);
    expect(error).toBeInstanceOf(BackendError);
    expect((error as BackendError).code).toBe('evicted');
    if (exact) expect(error).toBeInstanceOf(StoreReadError);
    if (error instanceof StoreReadError) {
      expect(error.eviction).toMatchObject({ key: error.key, threadId: error.threadId, reason });
      expect(error.message).toContain(`${error.eviction!.path} was evicted`);
    }
    return error as BackendError;
  }

  /** A read's error says why in the store's words (checked for a StoreReadError, whose words are the package's). */
  function says(error: Error, words: string | RegExp): void {
    if (error instanceof StoreReadError) expect(error.message).toMatch(words);
  }

  /** Bad input is refused naming what was wrong (with `exactMessages`, in the built-in stores' words). */
  function badInput(error: Error, field: string, words?: string | RegExp): void {
    expect(error.message).toContain(field);
    if (exact && words !== undefined) expect(error.message).toMatch(words);
  }

  /** Checks the bytes the store holds for a thread, where it says (`heldText`, optional). */
  function heldText(store: WritableOffloadStore) {
    return async (threadId: string, expected: HeldText) => {
      if (store.heldText !== undefined) expect(await store.heldText(threadId)).toEqual(expected);
    };
  }

  describe(`${options.name ?? 'WritableOffloadStore'} (store contract)`, () => {
    async function withStore(body: (store: Store) => Promise<void>) {
      const store = await makeStore();
      try {
        await body(store);
      } finally {
        await dispose(store);
      }
    }

    it('keeps a staged result out of sight until it is committed', () =>
      withStore(async (store) => {
        await store.stage(result('a', 'k1', 'hello'));
        expect(await store.list('a')).toEqual([]);
        expect(await store.totalBytes('a')).toBe(0);
        expect((await rejection(store.read('a', 'k1'))) as BackendError).toMatchObject({ code: 'not-found' });
        const applied = await store.apply({
          type: 'commit',
          threadId: 'a',
          key: 'k1',
          turnId: 't1',
          maxTotalBytes: 100,
        });
        expect(applied).toEqual({ stored: ['k1'], evicted: [], totalBytes: 5, entries: 1 });
        expect(await store.read('a', 'k1')).toBe('hello');
        const [info] = await store.list('a');
        expect(info).toMatchObject({ threadId: 'a', key: 'k1', path: '/large_tool_results/k1', bytes: 5 });
        expect(info).not.toHaveProperty('text');
        expect(info).not.toHaveProperty('turnId');
      }));

    it('stores text byte for byte, whatever its characters', () =>
      withStore(async (store) => {
        const text = 'é😀\u0000\n\r\ttail\uFFFD';
        await put(store, 'a', 'k', text);
        expect(await store.read('a', 'k')).toBe(text);
        expect(await store.totalBytes('a')).toBe(utf8Bytes(text));
      }));

    it('readLines gives lines [offset, offset + limit) with their newlines and the line count', () =>
      withStore(async (store) => {
        const text = `${Array.from({ length: 40 }, (_, i) => `line ${i} ${'é😀'.repeat(i % 5)}`).join('\n')}\n`;
        await put(store, 'a', 'k', text, 't1', 10_000);
        for (const [offset, limit] of [
          [0, 1],
          [0, 40],
          [3, 7],
          [38, 5],
          [17, undefined],
          [0, undefined],
        ] as const) {
          expect(await store.readLines('a', 'k', offset, limit)).toEqual({
            text: sliceLines(text, offset, limit),
            totalLines: 40,
          });
        }
        // Pages concatenate back to the text; past the end is '' and still says how many lines there are.
        const pages: string[] = [];
        for (let offset = 0; offset < 40; offset += 6) pages.push((await store.readLines('a', 'k', offset, 6)).text);
        expect(pages.join('')).toBe(text);
        expect(await store.readLines('a', 'k', 40, 10)).toEqual({ text: '', totalLines: 40 });
        expect(await store.readLines('a', 'k', 12, 0)).toEqual({ text: '', totalLines: 40 });
      }));

    it('readLines counts lines as the file tools do: a last line without a newline, an empty text, one long line', () =>
      withStore(async (store) => {
        await put(store, 'a', 'open', 'one\ntwo\nthree', 't1', 10_000);
        expect(await store.readLines('a', 'open', 2, 5)).toEqual({ text: 'three', totalLines: 3 });
        await put(store, 'a', 'empty', '', 't1', 10_000);
        expect(await store.readLines('a', 'empty', 0, 5)).toEqual({ text: '', totalLines: 0 });
        expect(await store.read('a', 'empty')).toBe('');
        const long = `${'x'.repeat(300)}😀${'y'.repeat(300)}\nshort\n`;
        await put(store, 'a', 'long', long, 't1', 10_000);
        expect(await store.readLines('a', 'long', 0, 1)).toEqual({ text: long.slice(0, -6), totalLines: 2 });
        expect(await store.readLines('a', 'long', 1, 1)).toEqual({ text: 'short\n', totalLines: 2 });
      }));

    it('readLines fails as read does, and rejects a bad offset or limit naming it', () =>
      withStore(async (store) => {
        await put(store, 'a', 'k1', 'x'.repeat(60));
        await put(store, 'a', 'k2', 'y'.repeat(60));
        const evicted = (await rejection(store.readLines('a', 'k1', 0, 10))) as BackendError;
        expect(evicted).toMatchObject({ code: 'evicted' });
        expect(evicted.message).toBe((await rejection(store.read('a', 'k1'))).message);
        expect((await rejection(store.readLines('a', 'nope', 0))) as BackendError).toMatchObject({ code: 'not-found' });
        badInput(
          await rejection(store.readLines('a', 'k2', -1)),
          'offset',
          /offset must be an integer of at least 0, got -1/,
        );
        expect(await rejection(store.readLines('a', 'k2', 0, 1.5))).toBeInstanceOf(RangeError);
        badInput(await rejection(store.readLines('a', 'k2', 0, Number.NaN)), 'limit', /limit must be/);
      }));

    it('changes nothing when a commit has no staged result (never staged, or already committed)', () =>
      withStore(async (store) => {
        await put(store, 'a', 'k1', 'abc');
        const again = await store.apply({ type: 'commit', threadId: 'a', key: 'k1', turnId: 't1', maxTotalBytes: 100 });
        expect(again).toEqual({ stored: [], evicted: [], totalBytes: 3, entries: 1 });
        const never = await store.apply({ type: 'commit', threadId: 'a', key: 'zz', turnId: 't1', maxTotalBytes: 100 });
        expect(never.stored).toEqual([]);
        expect(await store.list('a')).toHaveLength(1);
        expect(await store.evictions('a')).toEqual([]);
      }));

    it('restaging a key replaces the earlier staged text; staging a rerun leaves the live text alone', () =>
      withStore(async (store) => {
        await store.stage(result('a', 'k', 'first'));
        await store.stage(result('a', 'k', 'second'));
        await store.apply({ type: 'commit', threadId: 'a', key: 'k', turnId: 't1', maxTotalBytes: 100 });
        expect(await store.read('a', 'k')).toBe('second');
        const before = await store.list('a');
        await store.stage(result('a', 'k', 'rerun!'));
        expect(await store.read('a', 'k')).toBe('second');
        const applied = await store.apply({
          type: 'commit',
          threadId: 'a',
          key: 'k',
          turnId: 't2',
          maxTotalBytes: 100,
        });
        expect(applied.evicted.map((e) => e.reason)).toEqual(['replaced']);
        expect(await store.read('a', 'k')).toBe('rerun!');
        const after = await store.list('a');
        expect(after).toHaveLength(1);
        expect(after[0]!.seq).toBeGreaterThan(before[0]!.seq);
        expect(await store.totalBytes('a')).toBe(6);
      }));

    it('evicts the oldest until the thread fits, logs why, and says so when an evicted path is read', () =>
      withStore(async (store) => {
        await put(store, 'a', 'k1', 'x'.repeat(40));
        await put(store, 'a', 'k2', 'y'.repeat(40));
        const applied = await put(store, 'a', 'k3', 'z'.repeat(70));
        expect(applied.evicted.map((e) => [e.key, e.reason])).toEqual([
          ['k1', 'bound'],
          ['k2', 'bound'],
        ]);
        expect(applied).toMatchObject({ stored: ['k3'], totalBytes: 70, entries: 1 });
        expect((await store.list('a')).map((e) => e.key)).toEqual(['k3']);
        expect((await store.evictions('a')).map((e) => [e.key, e.path, e.bytes, e.reason])).toEqual([
          ['k1', '/large_tool_results/k1', 40, 'bound'],
          ['k2', '/large_tool_results/k2', 40, 'bound'],
        ]);
        const error = await evictedRead(store.read('a', 'k1'), 'bound');
        expect(error.message).toContain('/large_tool_results/k1');
        if (!(error instanceof StoreReadError)) return;
        expect(error).toMatchObject({ threadId: 'a', key: 'k1' });
        expect(error.eviction).toEqual({
          threadId: 'a',
          key: 'k1',
          path: '/large_tool_results/k1',
          bytes: 40,
          at: expect.any(Number),
          reason: 'bound',
          toolName: 'fetch',
        });
        expect(error.eviction).toEqual((await store.evictions('a'))[0]);
        expect(error.message).toBe(
          "/large_tool_results/k1 was evicted to keep the thread's stored results within maxTotalBytes (the oldest results go first).",
        );
      }));

    it('names in every eviction record the tool whose result was evicted, whatever the reason', () =>
      withStore(async (store) => {
        const stage = (key: string, toolName: string, text: string, turnId: string) =>
          store.stage({ ...result('a', key, text, turnId), toolName });
        const commit = (key: string, turnId: string) =>
          store.apply({ type: 'commit', threadId: 'a', key, turnId, maxTotalBytes: 100 });
        await stage('k1', 'fetch_page', 'x'.repeat(40), 't1');
        await commit('k1', 't1');
        await stage('k2', 'search', 'y'.repeat(40), 't1');
        await commit('k2', 't1');
        await stage('k2', 'search_again', 'y'.repeat(10), 't1');
        expect((await commit('k2', 't1')).evicted.map((e) => [e.key, e.reason, e.toolName])).toEqual([
          ['k2', 'replaced', 'search'],
        ]);
        await stage('k3', 'read_file', 'z'.repeat(70), 't2');
        expect((await commit('k3', 't2')).evicted.map((e) => [e.key, e.reason, e.toolName])).toEqual([
          ['k1', 'bound', 'fetch_page'],
        ]);
        expect((await store.evictions('a')).map((e) => [e.key, e.reason, e.toolName])).toEqual([
          ['k2', 'replaced', 'search'],
          ['k1', 'bound', 'fetch_page'],
        ]);
        // Undone, the turn's own eviction leaves the log; its entry is logged as blocked.
        await store.restoreTurn('a', 't2', 100);
        await store.apply({ type: 'drop', threadId: 'a', keys: ['k1'], turnId: 't3', reason: 'summarized' });
        await stage('k4', 'list_dir', 'w', 't4');
        await commit('k4', 't4');
        expect((await store.evictions('a')).map((e) => [e.key, e.reason, e.toolName])).toEqual([
          ['k2', 'replaced', 'search'],
          ['k3', 'blocked', 'read_file'],
          ['k1', 'summarized', 'fetch_page'],
        ]);
        const expired = await store.apply({ type: 'expire', threadId: 'a', before: Date.now() + 60_000 });
        expect(expired.evicted.map((e) => [e.key, e.reason, e.toolName]).sort()).toEqual([
          ['k2', 'expired', 'search_again'],
          ['k4', 'expired', 'list_dir'],
        ]);
        await store.clearThread('a');
        expect((await store.evictions('a')).map((e) => [e.key, e.reason, e.toolName])).toEqual([
          ['k3', 'cleared', 'read_file'],
          ['k1', 'cleared', 'fetch_page'],
          ['k2', 'cleared', 'search_again'],
          ['k4', 'cleared', 'list_dir'],
        ]);
      }));

    it('refuses a result larger than the bound with a RangeError, keeping everything else', () =>
      withStore(async (store) => {
        await put(store, 'a', 'k1', 'keep');
        await store.stage(result('a', 'big', 'b'.repeat(101)));
        const error = await rejection(
          store.apply({ type: 'commit', threadId: 'a', key: 'big', turnId: 't1', maxTotalBytes: 100 }),
        );
        expect(error).toBeInstanceOf(RangeError);
        expect(error.message).toContain('maxTotalBytes');
        expect(await store.read('a', 'k1')).toBe('keep');
        const later = await store.apply({
          type: 'commit',
          threadId: 'a',
          key: 'big',
          turnId: 't1',
          maxTotalBytes: 500,
        });
        expect(later.stored).toEqual([]);
        expect(await store.totalBytes('a')).toBe(4);
      }));

    it('gives each entry a seq from a counter that never goes back, even after a clear', () =>
      withStore(async (store) => {
        await put(store, 'a', 'k1', 'x'.repeat(60));
        await put(store, 'a', 'k2', 'x'.repeat(60));
        await put(store, 'a', 'k3', 'x'.repeat(60));
        const seqs = (await store.evictions('a')).length;
        expect(seqs).toBe(2);
        const [last] = await store.list('a');
        await store.clearThread('a');
        await put(store, 'a', 'k4', 'x');
        const [fresh] = await store.list('a');
        expect(fresh!.seq).toBeGreaterThan(last!.seq);
      }));

    it('drops summarized keys, ignoring missing ones, and says why when they are read', () =>
      withStore(async (store) => {
        await put(store, 'a', 'k1', 'one');
        await put(store, 'a', 'k2', 'two');
        const applied = await store.apply({
          type: 'drop',
          threadId: 'a',
          keys: ['k1', 'missing'],
          turnId: 't2',
          reason: 'summarized',
        });
        expect(applied).toMatchObject({ stored: [], totalBytes: 3, entries: 1 });
        expect(applied.evicted.map((e) => [e.key, e.reason])).toEqual([['k1', 'summarized']]);
        says(await evictedRead(store.read('a', 'k1'), 'summarized'), /evicted.*summary/);
      }));

    it('restoreTurn undoes a turn byte for byte: its entries go, what it evicted comes back', () =>
      withStore(async (store) => {
        await put(store, 'a', 'k1', 'ä'.repeat(20), 't1');
        await put(store, 'a', 'k2', 'b'.repeat(30), 't1');
        const before = await store.list('a');
        const logBefore = await store.evictions('a');
        await put(store, 'a', 'k2', 'rerun'.repeat(10), 't2');
        await put(store, 'a', 'k3', 'c'.repeat(40), 't2');
        await put(store, 'a', 'k4', 'd'.repeat(45), 't2');
        expect((await store.evictions('a')).length).toBeGreaterThan(0);
        const events: EntryEvent[] = [];
        store.subscribe((event) => events.push(withoutBound(event)));
        await store.restoreTurn('a', 't2', 100);
        expect(await store.list('a')).toEqual(before);
        expect(await store.read('a', 'k1')).toBe('ä'.repeat(20));
        expect(await store.read('a', 'k2')).toBe('b'.repeat(30));
        expect(await store.totalBytes('a')).toBe(70);
        const log = await store.evictions('a');
        expect(log.slice(0, logBefore.length)).toEqual(logBefore);
        expect(log.slice(logBefore.length).map((e) => [e.key, e.reason])).toEqual([
          ['k4', 'blocked'],
          ['k3', 'blocked'],
          ['k2', 'blocked'],
        ]);
        says(await evictedRead(store.read('a', 'k4'), 'blocked'), 'blocked');
        // Undone backwards: k4 goes, the k2 rerun it evicted returns and goes, k3 goes, k1 and k2 return.
        expect(events.map((e) => `${e.type} ${e.key}`)).toEqual([
          'evicted k4',
          'restored k2',
          'evicted k3',
          'restored k1',
          'evicted k2',
          'restored k2',
        ]);
        expect(events.at(-1)!.totalBytes).toBe(70);
        // Undone once: a second restore changes nothing.
        await store.restoreTurn('a', 't2', 100);
        expect(await store.list('a')).toEqual(before);
      }));

    it("restoreTurn deletes the turn's staged results that were never committed", () =>
      withStore(async (store) => {
        await store.stage(result('a', 'k1', 'one', 't2'));
        await store.stage(result('a', 'k2', 'two', 't3'));
        await store.restoreTurn('a', 't2', 100);
        const gone = await store.apply({ type: 'commit', threadId: 'a', key: 'k1', turnId: 't2', maxTotalBytes: 100 });
        expect(gone.stored).toEqual([]);
        const kept = await store.apply({ type: 'commit', threadId: 'a', key: 'k2', turnId: 't3', maxTotalBytes: 100 });
        expect(kept.stored).toEqual(['k2']);
      }));

    it('settle forgets how to undo the named turns and deletes their staged leftovers, leaving other turns alone', () =>
      withStore(async (store) => {
        await put(store, 'a', 'k1', 'x'.repeat(60), 't1');
        await put(store, 'a', 'k2', 'y'.repeat(60), 't2');
        await put(store, 'a', 'k3', 'z'.repeat(60), 't3');
        await store.stage(result('a', 'orphan', 'o', 't2'));
        await store.stage(result('a', 'mine', 'm', 't3'));
        await store.settle('a', ['t1', 't2']);
        const orphan = await store.apply({
          type: 'commit',
          threadId: 'a',
          key: 'orphan',
          turnId: 't2',
          maxTotalBytes: 100,
        });
        expect(orphan.stored).toEqual([]);
        await store.restoreTurn('a', 't2', 100);
        expect((await rejection(store.read('a', 'k1'))).message).toContain('evicted');
        // t3 can still be undone: k2, which it evicted, comes back.
        await store.restoreTurn('a', 't3', 100);
        expect(await store.read('a', 'k2')).toBe('y'.repeat(60));
        const mine = await store.apply({
          type: 'commit',
          threadId: 'a',
          key: 'mine',
          turnId: 't3',
          maxTotalBytes: 100,
        });
        expect(mine.stored).toEqual([]);
        await store.settle('a', ['t3']);
        await store.restoreTurn('a', 't2', 100);
        expect(await store.read('a', 'k2')).toBe('y'.repeat(60));
      }));

    it('settle with continuing drops what the turn evicted and staged; restoreTurn still takes back what it stored', () =>
      withStore(async (store) => {
        const held = heldText(store);
        await put(store, 'a', 'k1', 'x'.repeat(60), 't1');
        await put(store, 'a', 'k2', 'y'.repeat(60), 't2');
        await store.stage(result('a', 'left', 'l'.repeat(7), 't2'));
        await store.stage(result('a', 'other', 'o'.repeat(5), 't3'));
        await held('a', { live: 60, undo: 60, staged: 12 });
        await store.settle('a', ['t2'], { continuing: true });
        await held('a', { live: 60, undo: 0, staged: 5 });
        // The turn goes on: a later commit of it is undone with what it stored before.
        await put(store, 'a', 'k3', 'z'.repeat(30), 't2');
        await store.restoreTurn('a', 't2', 100);
        expect(await store.list('a')).toEqual([]);
        expect((await rejection(store.read('a', 'k1'))).message).toContain('evicted');
        await held('a', { live: 0, undo: 0, staged: 5 });
        badInput(
          await rejection(store.settle('a', [], { continuing: 'yes' as never })),
          'continuing',
          /continuing must be a boolean/,
        );
      }));

    it('settle with stagedBefore drops the undo copies of turns that last wrote before it; what they stored stays undoable', () =>
      withStore(async (store) => {
        const held = heldText(store);
        await put(store, 'a', 'k1', 'x'.repeat(60), 't1');
        await put(store, 'a', 'k2', 'y'.repeat(60), 'crashed');
        await store.settle('a', [], { stagedBefore: Date.now() - 60_000 });
        await held('a', { live: 60, undo: 60, staged: 0 });
        await store.settle('a', [], { stagedBefore: Date.now() + 1000 });
        await held('a', { live: 60, undo: 0, staged: 0 });
        await store.restoreTurn('a', 'crashed', 100);
        expect(await store.list('a')).toEqual([]);
        expect((await rejection(store.read('a', 'k1'))).message).toContain('evicted');
      }));

    it('fits a commit that brings the total to exactly maxTotalBytes without evicting; one byte over evicts one', () =>
      withStore(async (store) => {
        await put(store, 'a', 'k1', 'x'.repeat(60));
        const exact = await put(store, 'a', 'k2', 'y'.repeat(40));
        expect(exact).toEqual({ stored: ['k2'], evicted: [], totalBytes: 100, entries: 2 });
        const over = await put(store, 'a', 'k3', 'z');
        expect(over.evicted.map((e) => [e.key, e.reason])).toEqual([['k1', 'bound']]);
        expect(over).toMatchObject({ totalBytes: 41, entries: 2 });
      }));

    it('an optional commit (evict: false) is stored only if the thread fits it as it is: it never evicts', () =>
      withStore(async (store) => {
        /** Stages `text` under `key` and commits it as an optional copy. */
        const optional = async (key: string, text: string) => {
          await store.stage(result('a', key, text, 't1'));
          return store.apply({ type: 'commit', threadId: 'a', key, maxTotalBytes: 100, evict: false });
        };
        await put(store, 'a', 'k1', 'x'.repeat(60));
        const fits = await optional('fits', 'y'.repeat(40));
        expect(fits).toEqual({ stored: ['fits'], evicted: [], totalBytes: 100, entries: 2 });
        const over = await optional('over', 'z');
        expect(over).toEqual({ stored: [], evicted: [], totalBytes: 100, entries: 2 });
        expect((await store.list('a')).map((e) => e.key)).toEqual(['k1', 'fits']);
        expect(await store.evictions('a')).toEqual([]);
        // Its staged copy went with it: a normal commit of the key finds nothing to make live.
        const again = await store.apply({ type: 'commit', threadId: 'a', key: 'over', maxTotalBytes: 100 });
        expect(again.stored).toEqual([]);
        // Nor does it replace the key's own live entry.
        expect(await optional('fits', 'w')).toMatchObject({ stored: [], evicted: [] });
        expect(await store.read('a', 'fits')).toBe('y'.repeat(40));
      }));

    it.skipIf(!failCommits)('an optional commit makes no room when a full quota refuses it: nothing is evicted', () =>
      withStore(async (store) => {
        await put(store, 'a', 'k1', 'x'.repeat(20));
        await store.stage(result('a', 'copy', 'c'.repeat(10), 't1'));
        const stop = failCommits!(1);
        let error: Error;
        try {
          error = await rejection(
            store.apply({ type: 'commit', threadId: 'a', key: 'copy', maxTotalBytes: 100, evict: false }),
          );
        } finally {
          stop();
        }
        expect(error.name).toBe('QuotaExceededError');
        expect((await store.list('a')).map((e) => e.key)).toEqual(['k1']);
        expect(await store.evictions('a')).toEqual([]);
      }),
    );

    it('restoreTurn keeps the bound when another writer committed since: the oldest go (reason bound)', () =>
      withStore(async (store) => {
        await put(store, 'a', 'X', 'x'.repeat(70), 't0');
        await put(store, 'a', 'W', 'w'.repeat(20), 't0');
        const tA = await put(store, 'a', 'Y', 'y'.repeat(30), 'tA');
        expect(tA.evicted.map((e) => e.key)).toEqual(['X']);
        await put(store, 'a', 'Z', 'z'.repeat(50), 'tB');
        expect(await store.totalBytes('a')).toBe(100);
        const events: EntryEvent[] = [];
        store.subscribe((event) => events.push(withoutBound(event)));
        await store.restoreTurn('a', 'tA', 100);
        // Y goes, X comes back (140 bytes), then the oldest, X again, goes for the bound.
        const listed = await store.list('a');
        expect(listed.map((e) => e.key)).toEqual(['W', 'Z']);
        expect(await store.totalBytes('a')).toBe(70);
        expect(listed.reduce((sum, e) => sum + e.bytes, 0)).toBe(70);
        expect((await store.evictions('a')).map((e) => [e.key, e.reason]).slice(-2)).toEqual([
          ['Y', 'blocked'],
          ['X', 'bound'],
        ]);
        expect(events.map((e) => `${e.type} ${e.key} ${e.totalBytes}`)).toEqual([
          'evicted Y 70',
          'restored X 70',
          'evicted X 70',
        ]);
        says(await evictedRead(store.read('a', 'X'), 'bound'), 'maxTotalBytes');
        badInput(
          await rejection(store.restoreTurn('a', 'tA', 0)),
          'maxTotalBytes',
          /restoreTurn: maxTotalBytes must be/,
        );
      }));

    it.skipIf(!failCommits)(
      'retries a commit refused for a full quota after evicting the oldest entries, one at a time',
      () =>
        withStore(async (store) => {
          await put(store, 'a', 'k1', 'x'.repeat(20));
          await put(store, 'a', 'k2', 'y'.repeat(20));
          await put(store, 'a', 'k3', 'z'.repeat(20));
          await store.stage(result('a', 'new', 'n'.repeat(30), 't2'));
          const events: EntryEvent[] = [];
          store.subscribe((event) => events.push(withoutBound(event)));
          const stop = failCommits!(2);
          let applied: AppliedChange;
          try {
            applied = await store.apply({
              type: 'commit',
              threadId: 'a',
              key: 'new',
              turnId: 't2',
              maxTotalBytes: 100,
            });
          } finally {
            stop();
          }
          expect(applied.stored).toEqual(['new']);
          // Well within its bound (90 of 100 bytes): the quota, not the bound, evicted them.
          expect(applied.evicted.map((e) => [e.key, e.reason])).toEqual([
            ['k1', 'quota'],
            ['k2', 'quota'],
          ]);
          expect((await store.list('a')).map((e) => e.key)).toEqual(['k3', 'new']);
          expect(await store.totalBytes('a')).toBe(50);
          expect((await store.evictions('a')).map((e) => [e.key, e.reason])).toEqual([
            ['k1', 'quota'],
            ['k2', 'quota'],
          ]);
          says(await evictedRead(store.read('a', 'k1'), 'quota'), 'storage for this site was full');
          expect(events.map((e) => `${e.type} ${e.key} ${e.totalBytes}`)).toEqual([
            'evicted k1 40',
            'evicted k2 20',
            'stored new 50',
          ]);
        }),
    );

    it.skipIf(!failCommits)(
      'when a full quota refuses a commit with nothing left to evict, a reported failure is read from its staged text',
      () =>
        withStore(async (store) => {
          await put(store, 'a', 'k1', 'x'.repeat(20));
          const text = 'one\ntwo\nthree\n';
          await store.stage(result('a', 'new', text, 't2'));
          const stop = failCommits!(Number.POSITIVE_INFINITY);
          let error: Error;
          try {
            error = await rejection(
              store.apply({ type: 'commit', threadId: 'a', key: 'new', turnId: 't2', maxTotalBytes: 100 }),
            );
          } finally {
            stop();
          }
          expect(error.name).toBe('QuotaExceededError');
          expect(await store.list('a')).toEqual([]);
          expect((await store.evictions('a')).map((e) => [e.key, e.reason])).toEqual([['k1', 'quota']]);
          // Until the failure is recorded the staged text stays out of sight, as any staged text.
          expect((await rejection(store.read('a', 'new'))) as BackendError).toMatchObject({ code: 'not-found' });
          const failure = { threadId: 'a', key: 'new', path: '/large_tool_results/new', toolName: 'fetch', bytes: 14 };
          await store.reportFailure({ ...failure, at: 1, error: 'QuotaExceededError: full' });
          expect(await store.read('a', 'new')).toBe(text);
          expect(await store.readLines('a', 'new', 1, 1)).toEqual({ text: 'two\n', totalLines: 3 });
          expect(await store.list('a')).toEqual([]);
          expect(await store.totalBytes('a')).toBe(0);
          // Settling its turn (and the age sweep) keeps it: its path was shown.
          await store.settle('a', ['t2'], { stagedBefore: Date.now() + 1000 });
          expect(await store.read('a', 'new')).toBe(text);
          await store.clearThread('a');
          expect((await rejection(store.read('a', 'new'))) as BackendError).toMatchObject({ code: 'not-found' });
        }),
    );

    it('settle deletes staged orphans older than stagedBefore, whatever their turn, and checks its input', () =>
      withStore(async (store) => {
        await store.stage({ ...result('a', 'old', 'o', 'crashed'), createdAt: 1000 });
        await store.stage({ ...result('a', 'young', 'y', 'running'), createdAt: 5000 });
        await store.settle('a', [], { stagedBefore: 2000 });
        const commit = (key: string, turnId: string) =>
          store.apply({ type: 'commit', threadId: 'a', key, turnId, maxTotalBytes: 100 });
        expect((await commit('old', 'crashed')).stored).toEqual([]);
        expect((await commit('young', 'running')).stored).toEqual(['young']);
        badInput(await rejection(store.settle('a', 't1' as never)), 'turnIds', /settle: turnIds must be an array/);
        badInput(await rejection(store.settle('a', [], { stagedBefore: 'soon' as never })), 'stagedBefore');
      }));

    it('lists oldest first per thread and across threads, with totals per thread', () =>
      withStore(async (store) => {
        await put(store, 'a', 'a1', 'aa');
        await put(store, 'b', 'b1', 'bbb');
        await put(store, 'a', 'a2', 'a');
        expect((await store.list('a')).map((e) => e.key)).toEqual(['a1', 'a2']);
        expect((await store.list()).map((e) => e.key)).toEqual(['a1', 'b1', 'a2']);
        expect(await store.totalBytes('a')).toBe(3);
        expect(await store.totalBytes('b')).toBe(3);
        expect(await store.totalBytes('nobody')).toBe(0);
        await put(store, 'b', 'b2', 'x'.repeat(100));
        expect((await store.evictions()).map((e) => e.key)).toEqual(['b1']);
        expect(await store.evictions('a')).toEqual([]);
      }));

    it('tells subscribers about each change with the total after it; a throwing listener harms no one', () =>
      withStore(async (store) => {
        const error = vi.spyOn(console, 'error').mockImplementation(() => {});
        const events: StoreEvent[] = [];
        store.subscribe(() => {
          throw new Error('listener bug');
        });
        const unsubscribe = store.subscribe((event) => events.push(withoutBound(event)));
        await put(store, 'a', 'k1', 'x'.repeat(60));
        await put(store, 'a', 'k2', 'y'.repeat(60));
        expect(events).toEqual([
          { type: 'stored', threadId: 'a', key: 'k1', totalBytes: 60 },
          { type: 'evicted', threadId: 'a', key: 'k1', totalBytes: 60 },
          { type: 'stored', threadId: 'a', key: 'k2', totalBytes: 60 },
        ]);
        unsubscribe();
        await put(store, 'a', 'k3', 'z');
        expect(events).toHaveLength(3);
        expect(await store.read('a', 'k3')).toBe('z');
        error.mockRestore();
      }));

    it("clearThread deletes one thread's entries and failures, leaves others alone, and a read says 'cleared'", () =>
      withStore(async (store) => {
        await put(store, 'a', 'k1', 'x'.repeat(60));
        await put(store, 'a', 'k2', 'y'.repeat(60));
        await put(store, 'b', 'k1', 'other');
        await store.reportFailure({ threadId: 'a', key: 'k9', path: '/p', toolName: 't', bytes: 1, at: 1, error: 'e' });
        const events: ClearEvent[] = [];
        store.subscribe((event) => events.push(clearEvent(event)));
        await store.clearThread('a');
        // One event a key it cleared anything of: the logged k1, the live k2, the failed k9; then the clear.
        expect(events).toEqual([
          ...['k1', 'k2', 'k9'].map((key) => ({ type: 'evicted', threadId: 'a', key, totalBytes: 0 })),
          { type: 'thread-cleared', threadId: 'a' },
        ]);
        expect(await store.list('a')).toEqual([]);
        // The log keeps one record a key that was evicted or live, so a read says what happened.
        expect((await store.evictions('a')).map((e) => [e.key, e.path, e.bytes, e.reason])).toEqual([
          ['k1', '/large_tool_results/k1', 60, 'cleared'],
          ['k2', '/large_tool_results/k2', 60, 'cleared'],
        ]);
        expect(await store.failures('a')).toEqual([]);
        expect(await store.totalBytes('a')).toBe(0);
        for (const key of ['k1', 'k2']) {
          const error = await evictedRead(store.read('a', key), 'cleared');
          expect(error.message).toContain(`/large_tool_results/${key}`);
          says(error, 'cleared');
        }
        const never = await rejection(store.read('a', 'never'));
        expect(never).toBeInstanceOf(BackendError);
        expect(never).toMatchObject({ code: 'not-found' });
        if (exact) expect(never).toBeInstanceOf(StoreReadError);
        if (never instanceof StoreReadError) {
          expect(never).toMatchObject({ threadId: 'a', key: 'never' });
          expect(never).not.toHaveProperty('eviction');
          expect(never).not.toHaveProperty('damage');
          expect(never.message).toBe('never not found: no result is stored under this key in thread a');
        }
        expect(await store.read('b', 'k1')).toBe('other');
        // Stored again after the clear, a key reads as it is now.
        await put(store, 'a', 'k1', 'back');
        expect(await store.read('a', 'k1')).toBe('back');
        const [k2Cleared] = await store.evictions('a', { keys: ['k2'] });
        events.length = 0;
        await store.clearThread('a');
        expect((await store.evictions('a')).map((e) => [e.key, e.reason])).toEqual([
          ['k2', 'cleared'],
          ['k1', 'cleared'],
        ]);
        // k2 was cleared before and not stored since: its record and time stay, and no event names it.
        expect(await store.evictions('a', { keys: ['k2'] })).toEqual([k2Cleared]);
        expect(events).toEqual([
          { type: 'evicted', threadId: 'a', key: 'k1', totalBytes: 0 },
          { type: 'thread-cleared', threadId: 'a' },
        ]);
      }));

    it('clearThread tells of a thread with nothing live (its failures, staged text, eviction log), and of nothing cleared says nothing', () =>
      withStore(async (store) => {
        const events: ClearEvent[] = [];
        store.subscribe((event) => events.push(clearEvent(event)));
        const evicted = (threadId: string, ...keys: string[]) => [
          ...keys.map((key) => ({ type: 'evicted', threadId, key, totalBytes: 0 })),
          { type: 'thread-cleared', threadId },
        ];
        // A result whose commit failed: its staged text and failure stay, and nothing is live.
        await store.stage(result('f', 'k1', 'staged text', 'turn-f'));
        await store.reportFailure({
          threadId: 'f',
          key: 'k1',
          path: '/p',
          toolName: 't',
          bytes: 11,
          at: 1,
          error: 'e',
        });
        expect(await store.read('f', 'k1')).toBe('staged text');
        events.length = 0;
        await store.clearThread('f');
        expect(events).toEqual(evicted('f', 'k1'));
        expect(await store.failures('f')).toEqual([]);
        await expect(store.read('f', 'k1')).rejects.toMatchObject({ code: 'not-found' });

        // A failure whose own write failed is kept outside the store's records: cleared with the thread too.
        if (failFailureWrites) {
          const stop = failFailureWrites();
          try {
            await store.reportFailure({
              threadId: 'u',
              key: 'k1',
              path: '/p',
              toolName: 't',
              bytes: 1,
              at: 1,
              error: 'e',
            });
          } finally {
            stop();
          }
          expect(await store.failures('u')).toHaveLength(1);
          events.length = 0;
          await store.clearThread('u');
          expect(events).toEqual(evicted('u', 'k1'));
          expect(await store.failures('u')).toEqual([]);
        }

        // Every entry dropped: only the eviction log is left.
        await put(store, 'd', 'k1', 'one');
        await put(store, 'd', 'k2', 'two');
        await store.apply({ type: 'drop', threadId: 'd', keys: ['k1', 'k2'], turnId: 't9', reason: 'summarized' });
        expect(await store.list('d')).toEqual([]);
        events.length = 0;
        await store.clearThread('d');
        expect(events).toEqual(evicted('d', 'k1', 'k2'));
        expect((await store.evictions('d')).map((e) => [e.key, e.reason])).toEqual([
          ['k1', 'cleared'],
          ['k2', 'cleared'],
        ]);

        // Nothing to clear: a thread never written, or one cleared already.
        events.length = 0;
        const log = await store.evictions('d');
        await store.clearThread('d');
        await store.clearThread('never');
        expect(events).toEqual([]);
        expect(await store.evictions('d')).toEqual(log);
        expect(await store.evictions('never')).toEqual([]);
      }));

    // Twice the retention in commits, each its own transaction: seconds on a busy machine.
    it('keeps at most logRetention eviction and failure records per thread, the newest', { timeout: 60_000 }, () =>
      withStore(async (store) => {
        const count = retention * 2;
        // Each its own turn (one turn's undo log would grow with every commit).
        for (let i = 0; i < count; i++) await put(store, 'a', `k${i}`, 'x', `t${i}`, 1);
        const log = await store.evictions('a');
        expect(log).toHaveLength(retention);
        expect(log.map((e) => e.key)).toEqual(
          Array.from({ length: retention }, (_, i) => `k${count - 1 - retention + i}`),
        );
        expect(await store.read('a', `k${count - 1}`)).toBe('x');
        for (let i = 0; i < retention + 5; i++) {
          await store.reportFailure({
            threadId: 'a',
            key: `f${i}`,
            path: '/p',
            toolName: 't',
            bytes: 1,
            at: i,
            error: 'e',
          });
        }
        await store.reportFailure({
          threadId: 'b',
          key: 'other',
          path: '/p',
          toolName: 't',
          bytes: 1,
          at: 0,
          error: 'e',
        });
        const failures = await store.failures('a');
        expect(failures).toHaveLength(retention);
        expect(failures[0]!.key).toBe('f5');
        expect(await store.failures('b')).toHaveLength(1);
      }),
    );

    // Thousands of commits with the default retention: several seconds on a busy machine.
    it(
      'keeps its eviction log at the newest logRetention records through replaced keys and Blocks',
      { timeout: 60_000 },
      () =>
        withStore(async (store) => {
          // What the log should hold, oldest first: each put evicts the one live entry (the bound is
          // one byte); every fourth turn is blocked, which evicts what it stored and restores (and
          // unlogs) what it evicted.
          const model: string[] = [];
          let live: string | undefined;
          for (let i = 0; i < 3 * retention; i++) {
            const key = `k${i % 7}`;
            await put(store, 'a', key, 'x', `t${i}`, 1);
            const evicted = live === undefined ? undefined : `${live} ${live === key ? 'replaced' : 'bound'}`;
            if (evicted) model.push(evicted);
            if (i % 4 === 3) {
              await store.restoreTurn('a', `t${i}`, 1);
              if (evicted) model.splice(model.lastIndexOf(evicted), 1);
              model.push(`${key} blocked`);
              live = evicted && live;
            } else {
              live = key;
            }
            const log = await store.evictions('a');
            expect(log).toHaveLength(Math.min(model.length, retention));
            if (i % 16 === 0 || i === 3 * retention - 1) {
              expect(log.map((e) => `${e.key} ${e.reason}`)).toEqual(model.slice(-retention));
            }
          }
          expect(model.length).toBeGreaterThan(retention);
          expect(await store.totalBytes('a')).toBe(live === undefined ? 0 : 1);
        }),
    );

    it('holds a thread to the smallest maxTotalBytes of the agents that commit to it', () =>
      withStore(async (store) => {
        await put(store, 'a', 'k1', 'x'.repeat(40), 't1', 100);
        // Another agent, bounded at 300, writes to the same thread: 100 still holds.
        await put(store, 'a', 'k2', 'y'.repeat(40), 't2', 300);
        const applied = await put(store, 'a', 'k3', 'z'.repeat(40), 't2', 300);
        expect(applied.evicted.map((e) => [e.key, e.reason])).toEqual([['k1', 'bound']]);
        expect(await store.totalBytes('a')).toBe(80);
        await store.stage(result('a', 'big', 'b'.repeat(150), 't2'));
        const error = await rejection(
          store.apply({ type: 'commit', threadId: 'a', key: 'big', turnId: 't2', maxTotalBytes: 300 }),
        );
        expect(error).toBeInstanceOf(RangeError);
        badInput(
          error,
          'maxTotalBytes (100',
          /maxTotalBytes \(100, the smallest bound of the agents writing to the thread\)/,
        );
        // restoreTurn with the larger bound keeps the smaller one too; other threads are not affected.
        await put(store, 'a', 'k4', 'w'.repeat(60), 't3', 300);
        await store.restoreTurn('a', 't3', 300);
        expect(await store.totalBytes('a')).toBeLessThanOrEqual(100);
        await put(store, 'b', 'k1', 'v'.repeat(250), 't1', 300);
        expect(await store.totalBytes('b')).toBe(250);
      }));

    it('reports the bound a thread is held to, where it has bound(): the smallest of its writers, also in its events', () =>
      withStore(async (store) => {
        if (typeof store.bound !== 'function') return; // optional: the inspector falls back to its option
        const events: EntryEvent[] = [];
        store.subscribe((event) => event.type !== 'thread-cleared' && events.push(entryEvent(event)));
        /** The thread's bound, and each event told since that tells one tells this one. */
        const bound = async (threadId: string) => {
          const read = await store.bound!(threadId);
          for (const event of events.splice(0)) {
            if (event.bound !== undefined) expect({ event, bound: event.bound }).toEqual({ event, bound: read });
          }
          return read;
        };
        // Unknown before any commit; staging is not committing.
        expect(await bound('a')).toBeUndefined();
        await store.stage(result('a', 'k0', 'staged'));
        expect(await bound('a')).toBeUndefined();
        // Two agents write to the thread, bounded at 300 and 100 (in either order): 100 is reported.
        await put(store, 'a', 'k1', 'x'.repeat(40), 't1', 300);
        expect(await bound('a')).toBe(300);
        await put(store, 'a', 'k2', 'y'.repeat(40), 't2', 100);
        expect(await bound('a')).toBe(100);
        await put(store, 'a', 'k3', 'z'.repeat(40), 't1', 300);
        expect(await bound('a')).toBe(100);
        await put(store, 'b', 'k1', 'v'.repeat(40), 't1', 100);
        await put(store, 'b', 'k2', 'w'.repeat(40), 't2', 300);
        expect(await bound('b')).toBe(100);
        // A restore with a smaller bound lowers it; a clear keeps it; other threads have their own.
        await store.restoreTurn('a', 't2', 90);
        expect(await bound('a')).toBe(90);
        await store.clearThread('a');
        expect(await bound('a')).toBe(90);
        expect(await bound('c')).toBeUndefined();
      }));

    /** Thread 'a' holding 3 bytes, the store's events from now on, and a failure of thread 'a' to report. */
    async function watchingFailures(store: WritableOffloadStore) {
      await put(store, 'a', 'k1', 'abc');
      const events: EntryEvent[] = [];
      store.subscribe((event) => events.push(withoutBound(event)));
      const failure = { threadId: 'a', key: 'k2', path: '/large_tool_results/k2', toolName: 'fetch', bytes: 9 };
      return { events, failure };
    }

    it('records failures to store, oldest first, and tells subscribers', () =>
      withStore(async (store) => {
        const { events, failure } = await watchingFailures(store);
        await store.reportFailure({ ...failure, at: 1, error: 'QuotaExceededError: full' });
        await store.reportFailure({ ...failure, threadId: 'b', at: 2, error: 'again' });
        expect(await store.failures('a')).toEqual([{ ...failure, at: 1, error: 'QuotaExceededError: full' }]);
        expect((await store.failures()).map((f) => f.threadId)).toEqual(['a', 'b']);
        expect(events[0]).toEqual({
          type: 'failed',
          threadId: 'a',
          key: 'k2',
          totalBytes: 3,
          error: 'QuotaExceededError: full',
        });
        await expect(store.reportFailure({ ...failure, at: 3 } as never)).rejects.toThrow(/error/);
      }));

    it.skipIf(!failFailureWrites)(
      'records a failure in one atomic unit: one whose unit fails is kept once, in this instance, with one event',
      () =>
        withStore(async (store) => {
          const { events, failure } = await watchingFailures(store);
          const stop = failFailureWrites!();
          try {
            await store.reportFailure({ ...failure, at: 1, error: 'QuotaExceededError: full' });
          } finally {
            stop();
          }
          // Rolled back with its unit, the written record is gone: only the copy kept here is listed.
          expect(await store.failures('a')).toEqual([{ ...failure, at: 1, error: 'QuotaExceededError: full' }]);
          expect(events).toEqual([
            { type: 'failed', threadId: 'a', key: 'k2', totalBytes: 3, error: 'QuotaExceededError: full' },
          ]);
          // A failure whose unit is kept is told once too, after it is kept: a listener reading on the event finds it.
          let listedAtEvent: Promise<string[]> | undefined;
          store.subscribe(() => {
            listedAtEvent ??= store.failures('a').then((listed) => listed.map((f) => f.key));
          });
          await store.reportFailure({ ...failure, key: 'k3', at: 2, error: 'again' });
          expect(events.map((event) => `${event.type} ${event.key}`)).toEqual(['failed k2', 'failed k3']);
          expect(await listedAtEvent).toEqual(['k2', 'k3']);
          await store.clearThread('a');
          expect(await store.failures()).toEqual([]);
        }),
    );

    it('rejects bad input with errors that name what was wrong', () =>
      withStore(async (store) => {
        await expect(store.stage({ ...result('a', 'k', 'x'), text: 42 as never })).rejects.toThrow(/text/);
        await expect(store.stage({ ...result('a', 'k', 'x'), key: '' })).rejects.toThrow(/key/);
        // Every field as reads will check it: a store never writes what it could not read back.
        badInput(
          await rejection(store.stage({ ...result('a', 'k', 'x'), createdAt: Number.NaN })),
          'createdAt',
          'stage: /large_tool_results/k: createdAt is NaN, not a time in milliseconds',
        );
        badInput(
          await rejection(store.stage({ ...result('a', 'k', 'x'), preview: undefined as never })),
          'preview',
          /preview is missing/,
        );
        await expect(store.stage({ ...result('a', 'k', 'x'), truncated: 'no' as never })).rejects.toThrow(/truncated/);
        await expect(store.stage({ ...result('a', 'k', 'x'), turnId: 7 as never })).rejects.toThrow(/turnId/);
        badInput(await rejection(store.apply({ type: 'nope' } as never)), 'type', /change.type/);
        await store.stage(result('a', 'k', 'x'));
        await expect(
          store.apply({ type: 'commit', threadId: 'a', key: 'k', turnId: 't', maxTotalBytes: 0 }),
        ).rejects.toThrow(RangeError);
        expect(await store.list('a')).toEqual([]);
      }));

    /** The toolCallIds of the thread's cleared results with the step that cleared each, in the order `cleared` gives them. */
    async function clearedIds(store: WritableOffloadStore, threadId: string): Promise<string[]> {
      return (await store.cleared(threadId)).map((cleared) => `${cleared.toolCallId}@${cleared.step}`);
    }

    it("recordRequest numbers a thread's requests from 1 across turns; requests reads them back oldest first, no other field", () =>
      withStore(async (store) => {
        const shown: RequestResult[] = [
          { toolCallId: 'c1', toolName: 'fetch', path: '/large_tool_results/c1', shownAs: 'preview', tokens: 5 },
          { toolCallId: 'c2', toolName: 'read_file', shownAs: 'whole', tokens: 2.5 },
        ];
        const first = {
          ...requestOf('a', { turnId: 't1', at: 1000 }),
          record: { ...carried(10, shown), budget: 8000 },
        };
        expect(await store.recordRequest(first)).toEqual({ step: 1, cleared: [] });
        expect((await store.recordRequest(requestOf('a', { turnId: 't1', at: 2000, tokens: 20 }))).step).toBe(2);
        expect((await store.recordRequest(requestOf('b', { at: 2500 }))).step).toBe(1);
        // Another turn, or none, goes on counting: steps are the thread's, not a turn's.
        expect((await store.recordRequest(requestOf('a', { turnId: 't2', at: 3000, tokens: 30 }))).step).toBe(3);
        // Whatever else a caller puts in a record (a text) is not kept: the ledger holds no text.
        const extra = requestOf('a', { at: 4000, tokens: 40 });
        const withTextResult: RequestResult & { text: string } = { ...shown[1]!, text: 'secret' };
        const results: RequestResult[] = [withTextResult];
        const withText = { ...extra, record: { ...extra.record, text: 'secret', results } } as RequestChange;
        expect((await store.recordRequest(withText)).step).toBe(4);
        const ledger = await store.requests('a');
        const all = [
          { threadId: 'a', step: 1, at: 1000, ...carried(10, shown), budget: 8000 },
          { threadId: 'a', step: 2, at: 2000, ...carried(20) },
          { threadId: 'a', step: 3, at: 3000, ...carried(30) },
          { threadId: 'a', step: 4, at: 4000, ...carried(40, [shown[1]!]) },
        ];
        // (A store keeping fewer than 4 keeps the newest.)
        expect(ledger).toEqual(all.slice(-requestRetention));
        if (requestRetention >= 4) {
          expect(ledger[1]).not.toHaveProperty('budget');
          expect(ledger[0]!.results[1]).not.toHaveProperty('path');
        }
        expect(JSON.stringify(ledger)).not.toContain('secret');
        expect(await store.requests('b')).toEqual([{ threadId: 'b', step: 1, at: 2500, ...carried(10) }]);
        expect(await store.requests('never')).toEqual([]);
        // With `after`, the later steps (a custom store may answer with all: callers filter).
        const later = await store.requests('a', { after: 2 });
        expect(later.filter((record) => record.step > 2)).toEqual(all.slice(2).slice(-requestRetention));
        if (exact) expect(later).toEqual(all.slice(2).slice(-requestRetention));
        expect((await store.requests('a', { after: 4 })).filter((record) => record.step > 4)).toEqual([]);
      }));

    it('recordUsage adds what the provider reported to a ledger record, tells a request event, and checks every field', () =>
      withStore(async (store) => {
        const events: StoreEvent[] = [];
        store.subscribe((event) => events.push(event));
        const { step } = await store.recordRequest(requestOf('a', { at: 1000, tokens: 40 }));
        const reported = { inputTokens: 52, cachedInputTokens: 0, outputTokens: 7 };
        expect(await store.recordUsage({ threadId: 'a', step, reported })).toBe(true);
        const [record] = (await store.requests('a')).filter((one) => one.step === step);
        // A 0 the provider gave stays 0; the estimate stays beside it.
        expect(record).toEqual({ threadId: 'a', step, at: 1000, ...carried(40), reported });
        expect(events.filter((event) => event.type === 'request').at(-1)).toEqual({
          type: 'request',
          threadId: 'a',
          step,
          tokens: 40,
          reported,
        });
        // Reported again, it replaces; a count not given stays absent.
        expect(await store.recordUsage({ threadId: 'a', step, reported: { inputTokens: 60 } })).toBe(true);
        const [again] = (await store.requests('a')).filter((one) => one.step === step);
        expect(again!.reported).toEqual({ inputTokens: 60 });
        // No record of that step (never recorded, or the thread cleared since): nothing written.
        expect(await store.recordUsage({ threadId: 'a', step: step + 5, reported })).toBe(false);
        expect(await store.recordUsage({ threadId: 'never', step: 1, reported })).toBe(false);
        badInput(
          await rejection(store.recordUsage({ threadId: 'a', step, reported: { inputTokens: Number.NaN } })),
          'inputTokens',
          'recordUsage: change.reported.inputTokens is NaN, not a number of tokens',
        );
        badInput(
          await rejection(store.recordUsage({ threadId: 'a', step, reported: { inputTokens: 1, outputTokens: -1 } })),
          'outputTokens',
        );
        badInput(
          await rejection(store.recordUsage({ threadId: 'a', step, reported: { inputTokens: 1, text: 'x' } as never })),
          'text',
          /unknown option "text"/,
        );
        badInput(await rejection(store.recordUsage({ threadId: 'a', step: 0, reported })), 'step');
        badInput(await rejection(store.recordUsage({ threadId: 'a', step, reported, extra: 1 } as never)), 'extra');
        const [kept] = (await store.requests('a')).filter((one) => one.step === step);
        expect(kept!.reported).toEqual({ inputTokens: 60 });
        await store.clearThread('a');
        expect(await store.recordUsage({ threadId: 'a', step, reported })).toBe(false);
      }));

    it(
      'keeps the newest requestRetention ledger records of a thread; its steps go on counting',
      { timeout: 60_000 },
      () =>
        withStore(async (store) => {
          for (let i = 0; i < requestRetention + 3; i++) await store.recordRequest(requestOf('a', { tokens: i }));
          await store.recordRequest(requestOf('b'));
          const ledger = await store.requests('a');
          expect(ledger).toHaveLength(requestRetention);
          expect(ledger[0]).toMatchObject({ step: 4, tokens: 3 });
          expect(ledger.at(-1)).toMatchObject({ step: requestRetention + 3, tokens: requestRetention + 2 });
          expect(ledger.map((record) => record.step)).toEqual(
            Array.from({ length: requestRetention }, (_, i) => i + 4),
          );
          expect((await store.recordRequest(requestOf('a'))).step).toBe(requestRetention + 4);
          expect(await store.requests('a')).toHaveLength(requestRetention);
          expect(await store.requests('b')).toHaveLength(1);
        }),
    );

    it('keeps the first cleared record of a result (C4): a later clearing of it, or a second in one change, changes nothing', () =>
      withStore(async (store) => {
        const at = 5000;
        const one = await store.recordRequest(requestOf('a', { at, cleared: ['z', 'y'] }));
        const expected = (toolCallId: string, step: number, when = at) => ({
          threadId: 'a',
          step,
          at: when,
          ...clearing(toolCallId),
        });
        // Those of one step in the order the change gave them.
        expect(one).toEqual({ step: 1, cleared: [expected('z', 1), expected('y', 1)] });
        const again = {
          ...requestOf('a', { at: 6000 }),
          cleared: [clearing('y', 'another pointer'), clearing('x'), clearing('x', 'a second pointer'), clearing('w')],
        };
        const two = await store.recordRequest(again);
        const all = [expected('z', 1), expected('y', 1), expected('x', 2, 6000), expected('w', 2, 6000)];
        expect(two).toEqual({ step: 2, cleared: all });
        expect(await store.cleared('a')).toEqual(all);
        // A file tool's page has no path: its pointer names the call to repeat (O11).
        const page = { ...clearing('page'), path: undefined, pointer: 'call read_file again' };
        const three = await store.recordRequest({ ...requestOf('a'), cleared: [page] });
        expect(three.cleared.at(-1)).not.toHaveProperty('path');
        expect(three.cleared.at(-1)).toMatchObject({ toolCallId: 'page', pointer: 'call read_file again', step: 3 });
        expect(await store.cleared('b')).toEqual([]);
      }));

    it('restoreTurn takes back the clearings of its turn (C7) and what it stored for them; settle keeps them', () =>
      withStore(async (store) => {
        await store.recordRequest(requestOf('a', { turnId: 't1', cleared: ['c1'] }));
        await store.recordRequest(requestOf('a', { turnId: 't2', cleared: ['c2', 'c1'] }));
        await store.recordRequest(requestOf('a', { cleared: ['c3'] }));
        // The turn stored a small result to clear it (C3): an ordinary commit of the turn.
        await put(store, 'a', 'c4', 'small result', 't2');
        await store.recordRequest(requestOf('a', { turnId: 't2', cleared: ['c4'] }));
        expect(await clearedIds(store, 'a')).toEqual(['c1@1', 'c2@2', 'c3@3', 'c4@4']);
        await store.restoreTurn('a', 't2', 100);
        // No pointer names a path the Block took back; the requests it sent stay in the ledger.
        expect(await clearedIds(store, 'a')).toEqual(['c1@1', 'c3@3']);
        await evictedRead(store.read('a', 'c4'), 'blocked');
        expect((await store.requests('a')).map((record) => record.step)).toEqual([1, 2, 3, 4].slice(-requestRetention));
        await store.restoreTurn('a', 't2', 100);
        expect(await clearedIds(store, 'a')).toEqual(['c1@1', 'c3@3']);
        // Cleared again later, a result has a new first record.
        await store.recordRequest(requestOf('a', { turnId: 't3', cleared: ['c2'] }));
        expect(await clearedIds(store, 'a')).toEqual(['c1@1', 'c3@3', 'c2@5']);
        // Settled, a turn's clearings stay; settled as continuing, a Block still takes them back.
        await store.settle('a', ['t1', 't3']);
        await store.restoreTurn('a', 't1', 100);
        await store.restoreTurn('a', 't3', 100);
        expect(await clearedIds(store, 'a')).toEqual(['c1@1', 'c3@3', 'c2@5']);
        await store.recordRequest(requestOf('a', { turnId: 't4', cleared: ['c6'] }));
        await store.settle('a', ['t4'], { continuing: true });
        expect(await clearedIds(store, 'a')).toEqual(['c1@1', 'c3@3', 'c2@5', 'c6@6']);
        await store.restoreTurn('a', 't4', 100);
        expect(await clearedIds(store, 'a')).toEqual(['c1@1', 'c3@3', 'c2@5']);
        // Another thread's turn of the same id is its own.
        await store.recordRequest(requestOf('b', { turnId: 't4', cleared: ['c1'] }));
        await store.restoreTurn('a', 't4', 100);
        expect(await clearedIds(store, 'b')).toEqual(['c1@1']);
      }));

    it('clearThread deletes the ledger and the cleared results, and counts steps from 1 again; other threads keep theirs', () =>
      withStore(async (store) => {
        await store.recordRequest(requestOf('a', { turnId: 't1', cleared: ['c1'] }));
        await store.recordRequest(requestOf('a', { cleared: ['c2'] }));
        await store.recordRequest(requestOf('b', { cleared: ['c1'] }));
        await store.clearThread('a');
        expect(await store.requests('a')).toEqual([]);
        expect(await store.cleared('a')).toEqual([]);
        // Its turns' undo data went too: a Block after the clear brings nothing back.
        await store.restoreTurn('a', 't1', 100);
        expect(await store.cleared('a')).toEqual([]);
        const fresh = await store.recordRequest(requestOf('a', { cleared: ['c2'] }));
        expect(fresh).toMatchObject({ step: 1, cleared: [{ toolCallId: 'c2', step: 1 }] });
        expect(await store.requests('b')).toHaveLength(1);
        expect(await clearedIds(store, 'b')).toEqual(['c1@1']);
        // A thread with entries and a ledger: both go; its entries' seq counter still never goes back.
        await put(store, 'a', 'k1', 'one');
        const [entry] = await store.list('a');
        await store.clearThread('a');
        await put(store, 'a', 'k2', 'two');
        expect((await store.list('a'))[0]!.seq).toBeGreaterThan(entry!.seq);
        expect((await store.recordRequest(requestOf('a'))).step).toBe(1);
      }));

    it("clearThread of a thread with only a ledger and cleared results tells 'thread-cleared' alone; a repeat tells nothing", () =>
      withStore(async (store) => {
        await store.recordRequest(requestOf('a', { cleared: ['c1'] }));
        await store.recordRequest(requestOf('b'));
        const events: StoreEvent[] = [];
        store.subscribe((event) => events.push(event));
        await store.clearThread('a');
        expect(events).toEqual([{ type: 'thread-cleared', threadId: 'a' }]);
        expect(await store.requests('a')).toEqual([]);
        events.length = 0;
        await store.clearThread('a');
        expect(events).toEqual([]);
        await store.clearThread('b');
        expect(events).toEqual([{ type: 'thread-cleared', threadId: 'b' }]);
      }));

    it("tells a 'request' event once the record is kept, with its step and tokens; a refused change tells none", () =>
      withStore(async (store) => {
        const events: StoreEvent[] = [];
        let readAtEvent: Promise<number[]> | undefined;
        store.subscribe((event) => {
          events.push(event);
          readAtEvent ??= store.requests('a').then((records) => records.map((record) => record.step));
        });
        await store.recordRequest(requestOf('a', { tokens: 12, cleared: ['c1'] }));
        await store.recordRequest(requestOf('a', { tokens: 7.5 }));
        await store.recordRequest(requestOf('b', { tokens: 3 }));
        await rejection(store.recordRequest({ ...requestOf('a'), at: Number.NaN }));
        expect(events).toEqual([
          { type: 'request', threadId: 'a', step: 1, tokens: 12 },
          { type: 'request', threadId: 'a', step: 2, tokens: 7.5 },
          { type: 'request', threadId: 'b', step: 1, tokens: 3 },
        ]);
        expect(await readAtEvent).toEqual([1]);
      }));

    it('recordRequest refuses a change with a bad field, naming it, and keeps nothing of it', () =>
      withStore(async (store) => {
        const good = {
          ...requestOf('a', { cleared: ['c1'] }),
          record: carried(10, [{ ...clearing('c1'), shownAs: 'pointer' } as never]),
        };
        const { record } = good;
        const result = record.results[0]!;
        const bad: Array<[change: unknown, field: string, words: string]> = [
          [undefined, 'change', 'change is undefined, not a record'],
          [{ ...good, threadId: '' }, 'threadId', 'change.threadId is "", not a non-empty string'],
          [{ ...good, turnId: 7 }, 'turnId', 'change.turnId is 7, not a string or absent'],
          [{ ...good, at: Number.NaN }, 'at', 'change.at is NaN, not a time in milliseconds'],
          [{ ...good, record: undefined }, 'record', 'change.record is missing'],
          [
            { ...good, record: { ...record, tokens: -1 } },
            'tokens',
            'change.record.tokens is -1, not a number of tokens',
          ],
          [
            { ...good, record: { ...record, tokensWithoutOffload: '5' } },
            'tokensWithoutOffload',
            'change.record.tokensWithoutOffload is "5"',
          ],
          [
            { ...good, record: { ...record, budget: 0 } },
            'budget',
            'change.record.budget is 0, not a positive integer or absent',
          ],
          [
            { ...good, record: { ...record, parts: { ...record.parts, cut: undefined } } },
            'parts.cut',
            'change.record.parts.cut is missing',
          ],
          [{ ...good, record: { ...record, results: {} } }, 'results', 'change.record.results is {}, not an array'],
          [
            { ...good, record: { ...record, results: [{ ...result, shownAs: 'hidden' }] } },
            'results[0].shownAs',
            'change.record.results[0].shownAs is "hidden", not one of whole, preview, pointer, cut',
          ],
          [
            { ...good, record: { ...record, results: [{ ...result, toolCallId: '' }] } },
            'results[0].toolCallId',
            'change.record.results[0].toolCallId is ""',
          ],
          [
            { ...good, record: { ...record, results: [{ ...result, path: 5 }] } },
            'results[0].path',
            'change.record.results[0].path is 5',
          ],
          [{ ...good, cleared: 'c1' }, 'cleared', 'change.cleared is "c1", not an array'],
          [
            { ...good, cleared: [{ ...clearing('c1'), pointer: undefined }] },
            'cleared[0].pointer',
            'change.cleared[0].pointer is missing',
          ],
          [
            { ...good, cleared: [clearing('c0'), { ...clearing('c1'), tokens: Number.NaN }] },
            'cleared[1].tokens',
            'change.cleared[1].tokens is NaN',
          ],
        ];
        for (const [change, field, words] of bad) {
          const error = await rejection(store.recordRequest(change as RequestChange));
          expect(error).toBeInstanceOf(TypeError);
          badInput(error, field, `recordRequest: ${words}`);
        }
        expect(await store.requests('a')).toEqual([]);
        expect(await store.cleared('a')).toEqual([]);
        expect(await store.recordRequest(good)).toMatchObject({ step: 1, cleared: [{ toolCallId: 'c1' }] });
        if (!exact) return;
        badInput(
          await rejection(store.requests('a', { after: -1 })),
          'after',
          /requests: options.after must be an integer of at least 0, got -1/,
        );
        badInput(await rejection(store.requests('a', { from: 1 } as never)), 'from', /requests: unknown option "from"/);
        badInput(await rejection(store.cleared(undefined as never)), 'threadId', /threadId must be a non-empty string/);
      }));

    it('keeps the bound and exact totals under a parallel batch', () =>
      withStore(async (store) => {
        const keys = Array.from({ length: 40 }, (_, i) => `k${i}`);
        await Promise.all(keys.map((key, i) => put(store, 'a', key, 'x'.repeat(5 + (i % 7) * 5), 't1', 60)));
        const entries = await store.list('a');
        const total = entries.reduce((sum, entry) => sum + entry.bytes, 0);
        expect(await store.totalBytes('a')).toBe(total);
        expect(total).toBeLessThanOrEqual(60);
        const evicted = new Set((await store.evictions('a')).map((e) => e.key));
        // Each key is live or logged, as long as the log keeps them all.
        if (keys.length <= retention) {
          for (const key of keys) expect(evicted.has(key) || entries.some((e) => e.key === key)).toBe(true);
        }
        expect(new Set(entries.map((e) => e.seq)).size).toBe(entries.length);
      }));

    it('numbers concurrent recordRequest calls apart and keeps every record and the first clearing (C4)', () =>
      withStore((store) => concurrentRequestsHold(store, requestRetention)));
  });
}

/**
 * recordRequest is one atomic unit: calls that overlap (two tabs, or a queued ledger write and a
 * clearing) each get a step of their own, every record is kept, and a result two of them clear keeps
 * one pointer, the same in every answer (C4). A store whose call awaits between reading the step
 * counter and writing the record fails here, as it would in use.
 */
async function concurrentRequestsHold(store: WritableOffloadStore, retention: number): Promise<void> {
  const calls = 8;
  const answers = await Promise.all(
    Array.from({ length: calls }, (_, i) =>
      store.recordRequest({
        ...requestOf('a', { at: 1000 + i, tokens: 10 + i }),
        cleared: [clearing('shared', `pointer of call ${i}`), clearing(`own-${i}`)],
      }),
    ),
  );
  const steps = answers.map((answer) => answer.step).sort((a, b) => a - b);
  expect(steps).toEqual(Array.from({ length: calls }, (_, i) => i + 1));
  const ledger = await store.requests('a');
  // The newest `retention` of them, each with the tokens its own call gave.
  expect(ledger.map((record) => record.step)).toEqual(steps.slice(-retention));
  const tokensOf = new Map(answers.map((answer, i) => [answer.step, 10 + i]));
  for (const record of ledger) expect(record.tokens).toBe(tokensOf.get(record.step));
  const cleared = await store.cleared('a');
  const shared = cleared.filter((record) => record.toolCallId === 'shared');
  expect(shared).toHaveLength(1);
  for (const answer of answers) {
    expect(answer.cleared.filter((record) => record.toolCallId === 'shared')).toEqual(shared);
  }
  expect(cleared.filter((record) => record.toolCallId.startsWith('own-'))).toHaveLength(calls);
}
