// The open core's rules A1–A4 as a LangChain agent meets them, on both stores: re-offered results
// (a provider reusing tool call ids), evicted results offered again, parallel tool calls, and the
// read tools' pages.
import { AIMessage } from 'langchain';
import { afterEach, describe, expect, it } from 'vitest';
import type { StoreEvent } from '../../lib/index.js';
import { estimateTokens, utf8Bytes } from '../../lib/shared/text.js';
import {
  ask,
  callsFrom,
  deleteOpenedStores,
  fakeModel,
  lastToolMessage,
  linesOf,
  offloadAgent,
  pathIn,
  storeKinds,
  textOf,
  thread,
  toolMessagesOf,
} from './langchain-fixtures.js';

afterEach(deleteOpenedStores);

/** A run of one `emit` call with this provider id, then a final answer. */
const emitOnce = (id: string, tag: string, lines = 100) =>
  fakeModel()
    .respondWithTools([{ name: 'emit', args: { lines, tag }, id }])
    .respond(new AIMessage('done'));

describe.each(storeKinds)('the core rules through offloadMiddleware on $name', (kind) => {
  it('A1: the same call id and text again gives the same text and path, and stores nothing more', async () => {
    const store = kind.open();
    const runs = [emitOnce('call_0', 'same'), emitOnce('call_0', 'same'), emitOnce('call_0', 'other')];
    const texts: string[] = [];
    for (const model of runs) {
      const { agent } = offloadAgent(model, { store });
      texts.push(textOf(lastToolMessage((await agent.invoke(ask(), thread('chat-1'))).messages)));
    }
    expect(texts[1]).toBe(texts[0]);
    // The provider reused the id for a different result: a path of its own, never the old one's.
    expect(pathIn(texts[2]!)).not.toBe(pathIn(texts[0]!));
    const entries = await store.list('chat-1');
    expect(entries.map((entry) => entry.path)).toEqual([pathIn(texts[0]!), pathIn(texts[2]!)]);
    expect(await store.read('chat-1', entries[1]!.key)).toBe(linesOf(100, 80, 'other'));
  });

  it('A1 at once: parallel calls under one id (as Ollama names them) store each distinct result once', async () => {
    const store = kind.open();
    const model = fakeModel()
      .respondWithTools([
        { name: 'emit', args: { lines: 100, tag: 'twin' }, id: 'emit' },
        { name: 'emit', args: { lines: 100, tag: 'twin' }, id: 'emit' },
        { name: 'emit', args: { lines: 100, tag: 'other' }, id: 'emit' },
      ])
      .respond(new AIMessage('done'));
    const { agent } = offloadAgent(model, { store });
    const result = await agent.invoke(ask(), thread('chat-1'));
    const [first, second, third] = toolMessagesOf(result.messages).map(textOf);
    expect(second).toBe(first);
    expect(pathIn(third!)).not.toBe(pathIn(first!));
    expect((await store.list('chat-1')).map((entry) => entry.path).sort()).toEqual(
      [pathIn(first!), pathIn(third!)].sort(),
    );
  });

  it('A2: an evicted result offered again keeps its text and is not stored again', async () => {
    const store = kind.open();
    const maxTotalBytes = 9000; // one 8.1 KB result at a time
    const texts: string[] = [];
    for (const model of [emitOnce('call_x', 'x'), emitOnce('call_y', 'y'), emitOnce('call_x', 'x')]) {
      const { agent } = offloadAgent(model, { store, maxTotalBytes });
      texts.push(textOf(lastToolMessage((await agent.invoke(ask(), thread('chat-1'))).messages)));
    }
    expect(texts[2]).toBe(texts[0]);
    expect((await store.list('chat-1')).map((entry) => entry.path)).toEqual([pathIn(texts[1]!)]);
    expect((await store.evictions('chat-1')).map((record) => record.path)).toEqual([pathIn(texts[0]!)]);

    const reader = fakeModel()
      .respondWithTools([{ name: 'read_file', args: { path: pathIn(texts[0]!) } }])
      .respond(new AIMessage('done'));
    const { agent } = offloadAgent(reader, { store, maxTotalBytes });
    const read = lastToolMessage((await agent.invoke(ask(), thread('chat-1'))).messages);
    expect(read.status).toBe('error');
    expect(textOf(read)).toContain('evicted');
  });

  it('A3: parallel tool calls keep the thread within its bound after every store change', async () => {
    const store = kind.open();
    const maxTotalBytes = 20_000; // two of the six 8.1 KB results
    const totals: number[] = [];
    const stop = store.subscribe((event: StoreEvent) => {
      if ('totalBytes' in event && event.threadId === 'chat-1') totals.push(event.totalBytes);
    });
    const model = fakeModel()
      .respondWithTools([0, 1, 2, 3, 4, 5].map((i) => ({ name: 'emit', args: { lines: 100, tag: `p${i}` } })))
      .respond(new AIMessage('done'));
    const { agent } = offloadAgent(model, { store, maxTotalBytes });
    const result = await agent.invoke(ask(), thread('chat-1'));
    stop();

    const shown = toolMessagesOf(result.messages);
    expect(shown).toHaveLength(6);
    expect(new Set(shown.map((message) => pathIn(textOf(message)))).size).toBe(6);
    expect(totals.length).toBeGreaterThanOrEqual(6);
    for (const total of totals) expect(total).toBeLessThanOrEqual(maxTotalBytes);
    const entries = await store.list('chat-1');
    expect(entries.length).toBe(2);
    expect(await store.totalBytes('chat-1')).toBe(entries.reduce((sum, entry) => sum + entry.bytes, 0));
    expect((await store.evictions('chat-1')).length).toBe(4);
  });

  it('A4: the read tools’ pages are never stored, however large the page asked for', async () => {
    const store = kind.open();
    const model = fakeModel()
      .respondWithTools([{ name: 'emit', args: { lines: 2000, tag: 'big' } }])
      .respond((messages) =>
        callsFrom(messages, (m) => {
          const path = pathIn(textOf(lastToolMessage(m)));
          return [
            { name: 'read_file', args: { path, limit: 2000 } },
            { name: 'grep', args: { pattern: 'big', path } },
          ];
        }),
      )
      .respond(new AIMessage('done'));
    const { agent } = offloadAgent(model, { store });
    const result = await agent.invoke(ask(), thread('chat-1'));
    const [, page, matches] = toolMessagesOf(result.messages);
    for (const message of [page!, matches!]) {
      expect(message.status).not.toBe('error');
      expect(estimateTokens(textOf(message))).toBeLessThanOrEqual(1000);
    }
    expect(textOf(page!)).toContain('big 0 ');
    const entries = await store.list('chat-1');
    expect(entries).toHaveLength(1);
    expect(entries[0]!.bytes).toBe(utf8Bytes(linesOf(2000, 80, 'big')));
  });
});
