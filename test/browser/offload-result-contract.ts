import { describe, expect, it } from 'vitest';
import { ToolOutputOffload } from '../../lib/offload/tool-output-offload.js';
import type { ContentPart } from '../../lib/shared/content.js';
import { utf8Bytes } from '../../lib/shared/text.js';
import type { StoreEvent, WritableOffloadStore } from '../../lib/store/offload-store.js';
import type { ContractStores } from './store-contract.js';

/**
 * `offloadResult` (A1–A3, S3) on a store. Registered against the memory store (Node and Chromium)
 * and the IndexedDB store (Chromium), so the open core behaves the same on both.
 */
export interface OffloadResultStores extends Omit<ContractStores, 'failFailureWrites'> {
  /** What is wrong inside the store (staged leftovers, texts nothing refers to), where the test can see it. */
  problems?(store: WritableOffloadStore): Promise<string[]>;
}

/** Over 1000 estimated tokens: `lines` numbered lines of about 60 characters. */
export function bigText(tag: string, lines = 100): string {
  return Array.from({ length: lines }, (_, i) => `${tag} line ${i} ${'x'.repeat(48)}`).join('\n');
}

const image: ContentPart = { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' };

/** A store whose named method rejects, as a closed database or a full disk would. */
function failing(
  store: WritableOffloadStore,
  method: keyof WritableOffloadStore,
  error = new Error('the database is closed'),
) {
  return new Proxy(store, {
    get(target, name, receiver) {
      if (name === method) return async () => Promise.reject(error);
      const value = Reflect.get(target, name, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

export function offloadResultContract(name: string, stores: OffloadResultStores): void {
  describe(`offloadResult on ${name}`, () => {
    async function withOffload(
      body: (offload: ToolOutputOffload, store: WritableOffloadStore) => Promise<void>,
      options: { maxTotalBytes?: number; previewLines?: number } = {},
    ) {
      const store = await stores.open();
      try {
        await body(new ToolOutputOffload({ store, thresholdTokens: 1000, ...options }), store);
      } finally {
        await stores.dispose(store);
      }
    }
    async function expectSound(store: WritableOffloadStore) {
      if (stores.problems) expect(await stores.problems(store)).toEqual([]);
    }

    it('passes a result within the threshold through unchanged, storing nothing', () =>
      withOffload(async (offload, store) => {
        const content: ContentPart[] = [{ type: 'text', text: 'small' }, image];
        const shown = await offload.offloadResult({ threadId: 't', callId: 'c1', toolName: 'fetch', content });
        expect(shown).toEqual({ kind: 'kept', content, text: 'small', stored: false });
        expect(shown).not.toHaveProperty('path');
        expect(await store.list('t')).toEqual([]);
      }));

    it('stores a result over the threshold and shows the header and first lines naming its path, media kept after', () =>
      withOffload(async (offload, store) => {
        const text = bigText('page');
        const shown = await offload.offloadResult({
          threadId: 't',
          callId: 'call_abc',
          toolName: 'fetch',
          content: [{ type: 'text', text }, image],
        });
        expect(shown.stored).toBe(true);
        expect(shown.path).toMatch(/^\/large_tool_results\/call_abc-[A-Za-z0-9_-]{16}$/);
        expect(shown.text).toContain(`Path: ${shown.path}`);
        expect(shown.text).toContain('page line 0 ');
        expect(shown.text).not.toContain('page line 99 ');
        expect(shown.content).toEqual([{ type: 'text', text: shown.text }, image]);
        const [entry] = await store.list('t');
        expect(entry).toMatchObject({
          path: shown.path,
          toolName: 'fetch',
          bytes: utf8Bytes(text),
          preview: shown.text,
        });
        expect(await store.read('t', entry!.key)).toBe(text);
        await expectSound(store);
      }));

    it('A1: the same result again gives the same text and path, storing and evicting nothing', () =>
      withOffload(async (offload, store) => {
        const input = { threadId: 't', callId: 'c1', toolName: 'fetch', content: bigText('a') };
        const first = await offload.offloadResult(input);
        const events: StoreEvent[] = [];
        store.subscribe((event) => events.push(event));
        const listed = await store.list('t');
        for (let turn = 0; turn < 3; turn++) {
          const again = await offload.offloadResult({ ...input });
          expect(again).toEqual({ ...first, stored: false });
        }
        expect(await store.list('t')).toEqual(listed);
        expect(await store.evictions('t')).toEqual([]);
        expect(events).toEqual([]);
      }));

    it('A1: a new ToolOutputOffload over the same store answers the same, even with other options', () =>
      withOffload(async (offload, store) => {
        const input = { threadId: 't', callId: 'c1', toolName: 'fetch', content: bigText('a') };
        const first = await offload.offloadResult(input);
        const reloaded = new ToolOutputOffload({ store, thresholdTokens: 1000, previewLines: 3, maxResultBytes: 100 });
        expect(await reloaded.offloadResult(input)).toEqual({ ...first, stored: false });
        expect(await store.list('t')).toHaveLength(1);
      }));

    it('A1: the path comes from the id and the text; reused, long and odd ids still name one result each', () =>
      withOffload(async (offload, store) => {
        const offer = (callId: string, tag: string, threadId = 't') =>
          offload.offloadResult({ threadId, callId, toolName: 'get_weather', content: bigText(tag) });
        // Ollama-style: the tool name as the id, for two different results.
        const [one, two] = [await offer('get_weather', 'one'), await offer('get_weather', 'two')];
        expect(one.path).not.toBe(two.path);
        expect([one.stored, two.stored]).toEqual([true, true]);
        // The same text under another id is another result.
        expect((await offer('other', 'one')).path).not.toBe(one.path);
        // A 1.5 KB id with characters no path may hold, and an empty id.
        const long = await offer(`gw/${'é:'.repeat(750)}`, 'long');
        const key = long.path!.slice('/large_tool_results/'.length);
        expect(key).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
        expect(key.startsWith('gw_')).toBe(true);
        expect((await offer(`gw/${'é:'.repeat(750)}`, 'long')).path).toBe(long.path);
        expect((await offer('', 'empty')).path).toMatch(/^\/large_tool_results\/[A-Za-z0-9_-]{16}$/);
        // Another thread with the same id and text stores its own copy.
        const elsewhere = await offer('get_weather', 'one', 'u');
        expect(elsewhere).toMatchObject({ path: one.path, stored: true });
        expect((await store.list('t')).length).toBe(5);
        expect((await store.list('u')).length).toBe(1);
      }));

    it('A1: the same result offered several times at once is stored once', () =>
      withOffload(async (offload, store) => {
        const input = { threadId: 't', callId: 'c1', toolName: 'fetch', content: bigText('a') };
        const shown = await Promise.all(Array.from({ length: 5 }, () => offload.offloadResult({ ...input })));
        expect(shown.filter((s) => s.stored)).toHaveLength(1);
        expect(new Set(shown.map((s) => s.text)).size).toBe(1);
        expect(new Set(shown.map((s) => s.path)).size).toBe(1);
        expect(await store.list('t')).toHaveLength(1);
        expect(await store.evictions('t')).toEqual([]);
        await expectSound(store);
      }));

    it('A1: a copy staged after the first one was committed (two tabs at once) is discarded, not stored again', () =>
      withOffload(async (_offload, store) => {
        let release!: () => void;
        const gate = new Promise<void>((resolve) => {
          release = resolve;
        });
        let bothLooked!: () => void;
        const looked = new Promise<void>((resolve) => {
          bothLooked = resolve;
        });
        let lookups = 0;
        let stages = 0;
        // Both calls find nothing seen; then the second call's stage waits until the first has committed.
        const slow = new Proxy(store, {
          get(target, name) {
            const value = Reflect.get(target, name);
            if (name === 'seen') {
              return async (...args: Parameters<WritableOffloadStore['seen']>) => {
                const answer = await target.seen(...args);
                if (++lookups === 2) bothLooked();
                await looked;
                return answer;
              };
            }
            if (name === 'stage') {
              return async (...args: Parameters<WritableOffloadStore['stage']>) => {
                if (stages++ === 1) await gate;
                return target.stage(...args);
              };
            }
            return typeof value === 'function' ? value.bind(target) : value;
          },
        });
        const offload = new ToolOutputOffload({ store: slow, thresholdTokens: 1000 });
        const input = { threadId: 't', callId: 'c1', toolName: 'fetch', content: bigText('a') };
        const pending = [offload.offloadResult(input), offload.offloadResult({ ...input })];
        // The call that staged first commits first (which one that is depends on how the two hashes
        // interleave); the other's stage waits for it.
        const first = await Promise.race(pending);
        release();
        const both = await Promise.all(pending);
        const second = both.find((result) => result !== first)!;
        expect(stages).toBe(2);
        expect([first.stored, second.stored]).toEqual([true, false]);
        expect(second.text).toBe(first.text);
        expect(await store.list('t')).toHaveLength(1);
        expect(await store.evictions('t')).toEqual([]);
        await expectSound(store);
      }));

    it('A2: an evicted result offered again is not stored again; the same text; reading it says evicted', () =>
      withOffload(
        async (offload, store) => {
          const offer = (tag: string) =>
            offload.offloadResult({ threadId: 't', callId: `call-${tag}`, toolName: 'fetch', content: bigText(tag) });
          const first = await offer('a');
          await offer('b');
          await offer('c');
          expect((await store.evictions('t')).map((e) => e.path)).toEqual([first.path]);
          const listed = await store.list('t');
          const again = await offer('a');
          expect(again).toEqual({ ...first, stored: false });
          expect(await store.list('t')).toEqual(listed);
          expect(await store.evictions('t')).toHaveLength(1);
          const read = offload.readTools('t').find((tool) => tool.name === 'read_file')!;
          const answer = await read.run({ path: first.path });
          expect(answer.isError).toBe(true);
          expect(answer.text).toContain('evicted');
          expect(answer.text).toContain(first.path!);
        },
        { maxTotalBytes: 14_000 },
      ));

    it('A3: the bound holds after every call, also for calls made at once', () =>
      withOffload(
        async (offload, store) => {
          const max = 20_000;
          const offers = Array.from({ length: 12 }, async (_, i) => {
            const shown = await offload.offloadResult({
              threadId: 't',
              callId: `c${i}`,
              toolName: 'fetch',
              content: bigText(`r${i}`, 80 + i),
            });
            expect(shown.stored).toBe(true);
            expect(await store.totalBytes('t')).toBeLessThanOrEqual(max);
            return shown;
          });
          const shown = await Promise.all(offers);
          const listed = await store.list('t');
          expect(listed.reduce((sum, entry) => sum + entry.bytes, 0)).toBe(await store.totalBytes('t'));
          const evicted = (await store.evictions('t')).map((e) => e.path);
          expect(new Set([...listed.map((e) => e.path), ...evicted])).toEqual(new Set(shown.map((s) => s.path)));
          expect(evicted.length).toBeGreaterThan(0);
          await expectSound(store);
        },
        { maxTotalBytes: 20_000 },
      ));

    it('S3: a commit refused by a full quota gives a cut with a note and no path, and keeps nothing of it', () =>
      withOffload(async (offload, store) => {
        const kept = await offload.offloadResult({
          threadId: 't',
          callId: 'k',
          toolName: 'fetch',
          content: bigText('k'),
        });
        const stop = stores.failCommits(Number.POSITIVE_INFINITY);
        let shown: Awaited<ReturnType<ToolOutputOffload['offloadResult']>>;
        try {
          shown = await offload.offloadResult({ threadId: 't', callId: 'c', toolName: 'fetch', content: bigText('q') });
        } finally {
          stop();
        }
        expect(shown.stored).toBe(false);
        expect(shown).not.toHaveProperty('path');
        expect(shown.text).toContain('could not be stored');
        expect(shown.text).toContain('QuotaExceededError');
        expect(shown.text).not.toContain('/large_tool_results/');
        expect(shown.text.length).toBeLessThanOrEqual(4000);
        const [failure] = await store.failures('t');
        expect(failure).toMatchObject({ toolName: 'fetch', error: expect.stringContaining('QuotaExceededError') });
        await expect(store.read('t', failure!.key)).rejects.toMatchObject({ code: 'not-found' });
        await expectSound(store);
        // The quota made room by evicting the oldest first: what was stored before is evicted, not lost silently.
        expect((await store.evictions('t')).map((e) => e.path)).toEqual([kept.path]);
        // Offered again once the disk has room, it is stored.
        const retried = await offload.offloadResult({
          threadId: 't',
          callId: 'c',
          toolName: 'fetch',
          content: bigText('q'),
        });
        expect(retried.stored).toBe(true);
      }));

    it('S3: any store error while staging or looking up gives a cut with a note, never a path', () =>
      withOffload(async (_offload, store) => {
        for (const method of ['stage', 'seen'] as const) {
          const broken = new ToolOutputOffload({ store: failing(store, method), thresholdTokens: 1000 });
          const shown = await broken.offloadResult({
            threadId: 't',
            callId: method,
            toolName: 'fetch',
            content: [{ type: 'text', text: bigText(method) }, image],
          });
          expect(shown.stored).toBe(false);
          expect(shown.path).toBeUndefined();
          expect(shown.text).toContain('could not be stored (the database is closed)');
          expect(shown.content).toEqual([{ type: 'text', text: shown.text }, image]);
        }
        expect(await store.list('t')).toEqual([]);
        expect((await store.failures('t')).map((f) => f.toolName)).toEqual(['fetch', 'fetch']);
      }));

    it('rejects malformed input with a TypeError naming what was wrong', () =>
      withOffload(async (offload) => {
        const good = { threadId: 't', callId: 'c', toolName: 'fetch', content: 'x' };
        await expect(offload.offloadResult(undefined as never)).rejects.toThrow(/offloadResult: expected/);
        await expect(offload.offloadResult({ ...good, threadId: '' })).rejects.toThrow(/threadId must be/);
        await expect(offload.offloadResult({ ...good, callId: 7 as never })).rejects.toThrow(/callId must be a string/);
        await expect(offload.offloadResult({ ...good, toolName: '' })).rejects.toThrow(/toolName must be/);
        await expect(offload.offloadResult({ ...good, content: 5 as never })).rejects.toThrow(
          /content of tool "fetch" must be a string or an array/,
        );
        await expect(offload.offloadResult({ ...good, content: [{ type: 'text', text: 1 }] as never })).rejects.toThrow(
          /\.text must be a string/,
        );
      }));
  });
}
