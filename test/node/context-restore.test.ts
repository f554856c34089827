// C3 and C4: every path a pointer names can be read (a result under the threshold is stored when it is
// first cleared, within the thread's bound; evicted later, a read says so; a file tool's page names
// the call to repeat), and a cleared result stays cleared with the same text, from any instance.

import { describe, expect, it } from 'vitest';
import { contextLedger } from '../../lib/context.js';
import { BackendError, ToolOutputOffload } from '../../lib/index.js';
import { utf8Bytes } from '../../lib/shared/text.js';
import {
  type ContextStore,
  contextStore,
  conversation,
  ledgerOf,
  longSystem,
  offloaded,
  request,
  textOf,
} from './context-fixtures.js';

function budgeted(store: ContextStore, over: Partial<ConstructorParameters<typeof ToolOutputOffload>[0]> = {}) {
  return new ToolOutputOffload({
    ledger: contextLedger,
    store,
    contextBudget: { maxRequestTokens: 2000, keepRecentResults: 0 },
    ...over,
  });
}

const pathIn = (pointer: string) => /\/large_tool_results\/[A-Za-z0-9_-]+/.exec(pointer)?.[0];

describe('a cleared result can be read back (C3)', () => {
  it('a result under the threshold is stored when first cleared, reads back whole, and counts toward the bound', async () => {
    const store = contextStore();
    const offload = budgeted(store);
    const text = textOf(1500, 'small');
    const messages = conversation([{ id: 'c1', toolName: 'fetch_orders', text }]);
    const fitted = await offload.fitContext(request('t1', messages, { system: longSystem }));

    const pointer = fitted.replacements.get(2)!.text;
    const path = pathIn(pointer)!;
    expect(path).toMatch(/^\/large_tool_results\/c1-[A-Za-z0-9_-]{16}$/);
    const key = path.slice('/large_tool_results/'.length);
    expect(await store.read('t1', key)).toBe(text);
    expect(await store.totalBytes('t1')).toBe(utf8Bytes(text));
    expect(await store.list('t1')).toMatchObject([
      { key, path, toolName: 'fetch_orders', preview: pointer, truncated: false },
    ]);
    // Through the read tools the model has, as the pointer says.
    const readFile = offload.readTools('t1').find((tool) => tool.name === 'read_file')!;
    const page = (await readFile.run({ path, offset: 0, limit: 2 })).text;
    expect(page).toContain(text.split('\n')[0]);

    expect(await store.cleared('t1')).toMatchObject([
      { threadId: 't1', toolCallId: 'c1', toolName: 'fetch_orders', path, pointer, tokens: 1500, step: 1 },
    ]);
    expect(fitted.events).toEqual([
      {
        type: 'context-cleared',
        threadId: 't1',
        paths: [path],
        tokensBefore: expect.any(Number),
        tokensAfter: fitted.tokens,
      },
    ]);
  });

  it('a stored result the bound evicts later reads as evicted, and its pointer stays the same', async () => {
    const store = contextStore();
    const first = textOf(1500, 'first');
    const offload = budgeted(store, { maxTotalBytes: utf8Bytes(first) + 100 });
    const steps = [{ id: 'c1', toolName: 'fetch_orders', text: first }];
    const one = await offload.fitContext(request('t1', conversation(steps), { system: longSystem }));
    const pointer = one.replacements.get(2)!.text;
    const key = pathIn(pointer)!.slice('/large_tool_results/'.length);

    // A result offloaded later takes the room (the budget's own copies never evict, C3).
    const second = await offloaded(offload, 't1', 'c2', textOf(25_000, 'second'));
    steps.push({ id: 'c2', toolName: 'fetch_orders', text: second.text });
    const two = await offload.fitContext(request('t1', conversation(steps), { system: longSystem }));
    expect(two.replacements.get(2)!.text).toBe(pointer);
    const error = await store.read('t1', key).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BackendError);
    expect((error as BackendError).code).toBe('evicted');
    expect(await store.evictions('t1')).toMatchObject([{ key, reason: 'bound' }]);
    const readFile = offload.readTools('t1').find((tool) => tool.name === 'read_file')!;
    expect(await readFile.run({ path: pathIn(pointer)! })).toMatchObject({
      isError: true,
      text: expect.stringMatching(/evicted/),
    });
  });

  it('an offloaded result keeps its path: the pointer names it and nothing is stored again', async () => {
    const store = contextStore();
    const offload = budgeted(store);
    const text = textOf(30_000, 'large');
    const { text: preview, path } = await offloaded(offload, 't1', 'c1', text);
    const messages = conversation([{ id: 'c1', toolName: 'fetch_orders', text: preview }]);
    const fitted = await offload.fitContext(request('t1', messages, { system: longSystem }));
    expect(pathIn(fitted.replacements.get(2)!.text)).toBe(path);
    expect(await store.list('t1')).toHaveLength(1);
    expect(await store.read('t1', path!.slice('/large_tool_results/'.length))).toBe(text);
  });

  it('a file tool’s page, or a call that read from the mount, is never stored: its pointer names the call to repeat (O11)', async () => {
    const store = contextStore();
    const offload = budgeted(store);
    const args = { path: '/large_tool_results/k1', offset: 200, limit: 100 };
    const messages = conversation([
      { id: 'c1', toolName: 'read_file', args, text: textOf(1500, 'page') },
      { id: 'c2', toolName: 'summarize_file', args: { file: '/large_tool_results/k1' }, text: textOf(1500, 'summary') },
      { id: 'c3', toolName: 'ls', args: {}, text: textOf(1500, 'listing') },
    ]);
    const fitted = await offload.fitContext(
      request('t1', messages, { system: longSystem, readTools: ['read_file', 'ls'] }),
    );
    expect(fitted.replacements.get(2)!.text).toMatch(
      /^\[Cleared from context\] Result of "read_file" \(about 1500 tokens\)\. To see it again, call read_file \{"path":"\/large_tool_results\/k1","offset":200,"limit":100\}\.$/,
    );
    expect(fitted.replacements.get(4)!.text).toContain(
      'To see it again, call summarize_file {"file":"/large_tool_results/k1"}.',
    );
    expect(fitted.replacements.get(6)!.text).toContain('To see it again, call ls {}.');
    expect(await store.list('t1')).toEqual([]);
    const cleared = await store.cleared('t1');
    expect(cleared.map((record) => record.path)).toEqual([undefined, undefined, undefined]);
  });
});

describe('a cleared result stays cleared (C4)', () => {
  it('a new ToolOutputOffload over the same store sends the same pointer text and stores nothing', async () => {
    const store = contextStore();
    const steps = [
      { id: 'c1', toolName: 'fetch_orders', text: textOf(1500, 'one') },
      { id: 'c2', toolName: 'fetch_orders', text: textOf(1500, 'two') },
    ];
    const first = await budgeted(store).fitContext(request('t1', conversation(steps), { system: longSystem }));
    const entries = await store.list('t1');
    expect(first.replacements.size).toBeGreaterThan(0);

    // Another tab, a reload: a new instance, the same thread, the results as history keeps them.
    const again = budgeted(store);
    const next = await again.fitContext(request('t1', conversation(steps), { system: longSystem }));
    expect([...next.replacements]).toEqual([...first.replacements]);
    expect(next.events).toEqual([]);
    expect(next.tokens).toBe(first.tokens);
    expect(await store.list('t1')).toEqual(entries);

    // A framework that sends the pointer it was given (messages carried forward): recognised, the same.
    const carried = conversation(steps).map((message, index) =>
      message.role === 'tool' && first.replacements.has(index)
        ? { ...message, text: first.replacements.get(index)!.text }
        : message,
    );
    const third = await again.fitContext(request('t1', carried, { system: longSystem }));
    expect([...third.replacements]).toEqual([...first.replacements]);
    const ledger = await ledgerOf(store, 't1', 3);
    expect(ledger.map((record) => record.tokens)).toEqual([first.tokens, first.tokens, first.tokens]);
    expect(ledger[2]!.results.filter((result) => result.shownAs === 'pointer')).toHaveLength(first.replacements.size);
  });

  it('a result of the latest step under a cleared result’s id (an id reused) is shown as it is', async () => {
    const store = contextStore();
    const offload = budgeted(store);
    const steps = [{ id: 'same', toolName: 'fetch_orders', text: textOf(1500, 'old') }];
    await offload.fitContext(request('t1', conversation(steps), { system: longSystem }));
    const fresh = { id: 'same', toolName: 'fetch_orders', text: 'the new result' };
    const messages = conversation([...steps, fresh], { answered: false });
    const fitted = await offload.fitContext(request('t1', messages, { system: longSystem }));
    expect(fitted.replacements.get(2)!.shownAs).toBe('pointer');
    expect(fitted.replacements.has(4)).toBe(false);
  });
});

describe('a clearing is shown only for the result it cleared (C4, a reused call id)', () => {
  const page = (offset: number) => ({ path: '/large_tool_results/some-file', offset });
  const pageStep = (offset: number) => ({
    id: 'call_1',
    toolName: 'read_file',
    args: page(offset),
    text: textOf(1500, `page-${offset}`),
  });

  /** A ledger record's body as a request of thread t1 wrote it, for writing others by hand. */
  async function ledgerBody(store: ContextStore, offload: ToolOutputOffload) {
    await offload.fitContext(request('t1', conversation([pageStep(5)]), { system: longSystem }));
    const [record] = await store.requests('t1');
    const { threadId, step, at, reported, ...body } = record!;
    return body;
  }

  it("a page's clearing keeps the key of its text, and another page under the same id is shown as it is", async () => {
    const store = contextStore();
    const offload = budgeted(store);
    const first = conversation([pageStep(5)]);
    const fitted = await offload.fitContext(request('t1', first, { system: longSystem }));
    expect(fitted.replacements.get(2)?.shownAs).toBe('pointer');
    const [record] = await store.cleared('t1');
    expect(record!.path).toBeUndefined();
    expect(record!.textKey).toMatch(/^call_1-[A-Za-z0-9_-]{16}$/);

    const both = conversation([pageStep(5), pageStep(50)]);
    const next = await offload.fitContext(request('t1', both, { system: longSystem }));
    expect(next.replacements.get(2)?.text).toBe(record!.pointer);
    expect(next.replacements.get(4)).toBeUndefined(); // its own text, never the first page's pointer
  });

  it('an older page record without the key is shown while its id names one result, and never for another', async () => {
    const store = contextStore();
    const offload = budgeted(store);
    const body = await ledgerBody(store, offload);
    // As a version that kept no textKey wrote it, in another thread.
    const pointer = 'This result was cleared from the context: call read_file again to see it.';
    await store.recordRequest({
      threadId: 't2',
      at: Date.now(),
      record: body,
      cleared: [{ toolCallId: 'call_1', toolName: 'read_file', pointer, tokens: 1500 }],
    });
    const one = await offload.fitContext(request('t2', conversation([pageStep(5)]), { system: longSystem }));
    expect(one.replacements.get(2)?.text).toBe(pointer);
    const two = await offload.fitContext(
      request('t2', conversation([pageStep(5), pageStep(50)]), { system: longSystem }),
    );
    expect(two.replacements.get(2)).toBeUndefined();
    expect(two.replacements.get(4)).toBeUndefined();
  });

  it('refuses a text key that is not a result key, naming it', async () => {
    const store = contextStore();
    const offload = budgeted(store);
    const body = await ledgerBody(store, offload);
    const cleared = [{ toolCallId: 'c9', toolName: 'read_file', pointer: 'cleared', tokens: 9, textKey: '../x' }];
    await expect(store.recordRequest({ threadId: 't3', at: Date.now(), record: body, cleared })).rejects.toThrow(
      /change\.cleared\[0\]\.textKey/,
    );
  });
});
