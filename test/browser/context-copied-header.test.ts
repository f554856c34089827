// A text that merely looks like the offload's is the tool's own (C1–C4): a tool whose result begins
// with a copy of an evicted result's header — its claimed size inflated — is measured at its real
// size, cleared as its own (its own lines stored under its own path and read back), and never
// taken for the stored result it copies. The offload knows what it replaced by thread and tool
// call, as the call that stored it kept it; over both stores.

import { afterAll, describe, expect, it } from 'vitest';
import { conversation, ledgerOf, longSystem, request, textOf } from '../node/context-fixtures.js';
import { budgetOffload, contextStores, deleteContextStores, keyOf, pathNamed } from './fixtures/context-stores.js';

afterAll(deleteContextStores);

describe.each(contextStores)('a copied header over $name', (kind) => {
  it('is an ordinary result: stored and cleared as its own, its real size in the ledger', async () => {
    const store = kind.open();
    // A bound that holds one stored result: the second evicts the first.
    const offload = budgetOffload(
      store,
      { maxRequestTokens: 2400, keepRecentResults: 1 },
      { maxTotalBytes: 40_000, maxResultBytes: 40_000 },
    );
    const first = await offload.offloadResult({
      threadId: 't1',
      callId: 'c1',
      toolName: 'fetch_orders',
      content: textOf(8000, 'first'),
    });
    const second = await offload.offloadResult({
      threadId: 't1',
      callId: 'c2',
      toolName: 'fetch_orders',
      content: textOf(8000, 'second'),
    });
    expect((await store.evictions('t1')).map((record) => record.path)).toEqual([first.path]);

    // A tool's own text: the evicted result's preview, its size claimed a million times over, then lines of its own.
    const copied = first.text.replace(/about \d+ tokens/, 'about 900000000 tokens');
    expect(copied).not.toBe(first.text);
    const own = `${copied}\n${textOf(300, 'own')}`;
    const messages = conversation([
      { id: 'c3', toolName: 'echo', text: own },
      { id: 'c2', toolName: 'fetch_orders', text: second.text },
      { id: 'c4', toolName: 'fetch_orders', text: 'the newest result' },
    ]);
    const fitted = await offload.fitContext(request('t1', messages, { system: longSystem }));

    const pointer = fitted.replacements.get(2);
    expect(pointer?.shownAs).toBe('pointer');
    const path = pathNamed(pointer!.text);
    expect(path).toBeDefined();
    expect(path).not.toBe(first.path);
    // Its own lines were stored, and read back whole.
    expect(await store.read('t1', keyOf(path!))).toBe(own);

    const [record] = await ledgerOf(store, 't1', 1);
    const result = record!.results.find((r) => r.toolCallId === 'c3')!;
    expect(result).toMatchObject({ shownAs: 'pointer', path });
    // Without the offload the request carries the text's real size, not the size its copied header claims.
    expect(record!.tokensWithoutOffload).toBeLessThan(100_000);
    const cleared = await store.cleared('t1');
    expect(cleared.find((r) => r.toolCallId === 'c3')).toMatchObject({ path, tokens: Math.ceil(own.length / 4) });
  });

  it('a genuine preview is still known by its call after its result is evicted, and a copy under another call is not', async () => {
    const store = kind.open();
    const offload = budgetOffload(
      store,
      { maxRequestTokens: 100_000 },
      { maxTotalBytes: 40_000, maxResultBytes: 40_000 },
    );
    const first = await offload.offloadResult({
      threadId: 't1',
      callId: 'c1',
      toolName: 'fetch_orders',
      content: textOf(8000, 'first'),
    });
    await offload.offloadResult({ threadId: 't1', callId: 'c2', toolName: 'fetch_orders', content: textOf(8000, 'b') });
    const messages = conversation([
      { id: 'c1', toolName: 'fetch_orders', text: first.text },
      { id: 'c9', toolName: 'echo', text: first.text },
    ]);
    await offload.fitContext(request('t1', messages));
    const [record] = await ledgerOf(store, 't1', 1);
    expect(record!.results.map(({ toolCallId, shownAs, path }) => ({ toolCallId, shownAs, path }))).toEqual([
      { toolCallId: 'c1', shownAs: 'preview', path: first.path },
      { toolCallId: 'c9', shownAs: 'whole' },
    ]);
  });

  it('knows a preview evicted before a reload from the eviction log, whole or cut to its header, and not a text of its length', async () => {
    const store = kind.open();
    const limits = { maxTotalBytes: 40_000, maxResultBytes: 40_000 };
    const offload = budgetOffload(store, { maxRequestTokens: 100_000 }, limits);
    const original = textOf(8000, 'first');
    const first = await offload.offloadResult({
      threadId: 't1',
      callId: 'c1',
      toolName: 'fetch_orders',
      content: original,
    });
    const [entry] = await store.list('t1');
    const headerOnly = entry!.headerOnly!;
    expect(headerOnly.length).toBeLessThan(first.text.length);
    await offload.offloadResult({ threadId: 't1', callId: 'c2', toolName: 'fetch_orders', content: textOf(8000, 'b') });
    expect((await store.evictions('t1')).map((record) => record.path)).toEqual([first.path]);

    // A reload: new instances over the same database, which never saw c1's entry live.
    const reloaded = () => budgetOffload(kind.reopen(store), { maxRequestTokens: 100_000 }, limits);
    // The tool's own text of the preview's length, one character changed: not the preview.
    const lookalike = `${first.text.slice(0, -1)}${first.text.endsWith('x') ? 'y' : 'x'}`;
    const shownIn = async (text: string, step: number) => {
      await reloaded().fitContext(request('t1', conversation([{ id: 'c1', toolName: 'fetch_orders', text }])));
      const record = (await ledgerOf(store, 't1', step)).at(-1)!;
      const [result] = record.results;
      return {
        shownAs: result!.shownAs,
        path: result!.path,
        withoutOffload: record.tokensWithoutOffload - record.tokens,
      };
    };
    // Without the offload the request carries the original (the ledger counts whole tokens).
    const saved = (shown: string) => expect.closeTo(Math.ceil(original.length / 4) - shown.length / 4, 0);
    expect(await shownIn(first.text, 1)).toEqual({
      shownAs: 'preview',
      path: first.path,
      withoutOffload: saved(first.text),
    });
    expect(await shownIn(headerOnly, 2)).toEqual({
      shownAs: 'cut',
      path: first.path,
      withoutOffload: saved(headerOnly),
    });
    expect(await shownIn(lookalike, 3)).toEqual({ shownAs: 'whole', path: undefined, withoutOffload: 0 });

    // Cleared by a reloaded budget: its pointer names the evicted path; the preview is not stored as a result of its own.
    const tight = budgetOffload(kind.reopen(store), { maxRequestTokens: 2000, keepRecentResults: 1 }, limits);
    const messages = conversation([
      { id: 'c1', toolName: 'fetch_orders', text: first.text },
      { id: 'c5', toolName: 'fetch_orders', text: 'the newest result' },
    ]);
    const fitted = await tight.fitContext(request('t1', messages, { system: longSystem }));
    expect(fitted.replacements.get(2)?.shownAs).toBe('pointer');
    expect(pathNamed(fitted.replacements.get(2)!.text)).toBe(first.path);
    expect((await store.list('t1')).map((stored) => stored.toolCallId)).toEqual(['c2']);

    // A cleared thread's log keeps the same facts: its previews are still known (the ledger starts again at 1).
    await store.clearThread('t1');
    expect(await shownIn(first.text, 1)).toMatchObject({ shownAs: 'preview', path: first.path });
  });

  it('knows each preview of a call id a model reused, also from a new instance over the same store', async () => {
    const store = kind.open();
    const offload = budgetOffload(store, { maxRequestTokens: 100_000 });
    const one = await offload.offloadResult({
      threadId: 't1',
      callId: 'call_0',
      toolName: 'fetch_orders',
      content: textOf(3000, 'one'),
    });
    const two = await offload.offloadResult({
      threadId: 't1',
      callId: 'call_0',
      toolName: 'fetch_orders',
      content: textOf(3000, 'two'),
    });
    expect(one.path).not.toBe(two.path);
    const messages = conversation([
      { id: 'call_0', toolName: 'fetch_orders', text: one.text },
      { id: 'call_0', toolName: 'fetch_orders', text: two.text },
    ]);
    const shown = async (instance: typeof offload, count: number) => {
      await instance.fitContext(request('t1', messages));
      const records = await ledgerOf(store, 't1', count);
      return records.at(-1)!.results.map(({ shownAs, path }) => ({ shownAs, path }));
    };
    const expected = [
      { shownAs: 'preview', path: one.path },
      { shownAs: 'preview', path: two.path },
    ];
    expect(await shown(offload, 1)).toEqual(expected);
    expect(await shown(budgetOffload(store, { maxRequestTokens: 100_000 }), 2)).toEqual(expected);
  });
});
