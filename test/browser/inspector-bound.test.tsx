import { afterEach, describe, expect, it, vi } from 'vitest';
import { exposeToInspector } from '../../inspector/index.js';
import { PROTOCOL } from '../../inspector/source/channel-protocol.js';
import { IndexedDbOffloadStore, MemoryOffloadStore, ToolOutputOffload } from '../../lib/index.js';
import type { WritableOffloadStore } from '../../lib/store/offload-store.js';
import { cleanupMounts, type Mounted, mount, until } from './inspector-fixtures.js';

/**
 * Issue 21: an app passes `maxTotalBytes` once, to its offloads; each thread's gauge shows the
 * bound the store holds that thread to (the smallest maxTotalBytes of the agents that wrote to
 * it), read from the store, also through a channel, with no `bound` given to the inspector.
 */

const stops: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  cleanupMounts();
  for (const stop of stops.splice(0)) await stop();
});

let channels = 0;
function channelName(): string {
  channels += 1;
  return `inspector-bound-${Date.now()}-${channels}`;
}

const KiB = 1024;

/** A tool's text of about 6 KiB, well over a threshold of 1,000 tokens. */
function bigText(tag: string): string {
  return Array.from({ length: 300 }, (_, i) => `${tag} line ${i} of the page`).join('\n');
}

/** Two agents on one store: one bounds its threads at 64 KiB, the other at 32 KiB. */
function twoOffloads(store: WritableOffloadStore) {
  const options = { store, thresholdTokens: 1000, maxResultBytes: 16 * KiB };
  return {
    wide: new ToolOutputOffload({ ...options, maxTotalBytes: 64 * KiB }),
    narrow: new ToolOutputOffload({ ...options, maxTotalBytes: 32 * KiB }),
  };
}

async function offload(agent: ToolOutputOffload, threadId: string, callId: string) {
  const done = await agent.offloadResult({ threadId, callId, toolName: 'fetch_page', content: bigText(callId) });
  expect(done.stored).toBe(true);
}

/** The gauge of a thread: its meter's max and what it reads out. */
function gauge(view: Mounted, threadId: string) {
  const meter = view.one<HTMLMeterElement>(`meter[aria-label="Thread ${threadId}: stored bytes"]`);
  return { max: meter.max, text: meter.getAttribute('aria-valuetext') };
}

const stores = [
  ['MemoryOffloadStore', () => new MemoryOffloadStore()],
  [
    'IndexedDbOffloadStore',
    () => {
      const store = new IndexedDbOffloadStore({ name: `inspector-bound-${crypto.randomUUID()}` });
      stops.push(() => store.deleteDatabase());
      return store;
    },
  ],
] as const;

describe.each(stores)('the gauge of each thread shows the bound its store reports (%s)', (_name, open) => {
  it('without the bound option: the smallest maxTotalBytes of the offloads that wrote to the thread', async () => {
    const store = open();
    const { wide, narrow } = twoOffloads(store);
    await offload(wide, 'shared', 'call-1');
    await offload(narrow, 'shared', 'call-2');
    await offload(wide, 'shared', 'call-3'); // the wider agent again: the narrower bound still holds
    await offload(wide, 'solo', 'call-4');
    const view = mount({ store });
    await until(() => expect(view.all('meter')).toHaveLength(2));
    await until(() => expect(gauge(view, 'shared').max).toBe(32 * KiB));
    expect(gauge(view, 'shared').text).toMatch(/^\d+(\.\d)? KiB of 32 KiB \(\d+%\)$/);
    expect(gauge(view, 'solo').max).toBe(64 * KiB);
    expect(gauge(view, 'solo').text).toMatch(/ of 64 KiB /);
    expect(view.one('.gauges').textContent).not.toContain('bound unknown');

    // The bound option is only a fallback: the store's own bound of each thread is shown.
    const given = mount({ store }, { bound: 8 << 20 });
    await until(() => expect(given.all('meter')).toHaveLength(2));
    await until(() => expect(gauge(given, 'shared').max).toBe(32 * KiB));
    expect(gauge(given, 'solo').max).toBe(64 * KiB);
  });

  it('follows a bound lowered by a narrower agent from the change events, reading no bound again', async () => {
    const store = open();
    const { wide, narrow } = twoOffloads(store);
    await offload(wide, 'chat', 'call-1');
    const bound = vi.spyOn(store, 'bound');
    const view = mount({ store });
    await until(() => expect(gauge(view, 'chat').max).toBe(64 * KiB));
    const reads = bound.mock.calls.length;
    expect(reads).toBe(1);

    await offload(narrow, 'chat', 'call-2');
    await until(() => expect(gauge(view, 'chat').max).toBe(32 * KiB));
    expect(gauge(view, 'chat').text).toMatch(/ of 32 KiB /);
    await offload(narrow, 'chat', 'call-3');
    await until(() => expect(view.paths()).toHaveLength(3));
    // The events told the bound with the total: nothing was read for the gauge after them.
    expect(bound.mock.calls.length).toBe(reads);
  });
});

describe('the bound crosses the channel as data', () => {
  it('exposed without a bound, each thread gauges its own, live', async () => {
    const store = new MemoryOffloadStore();
    const { wide, narrow } = twoOffloads(store);
    await offload(wide, 'shared', 'call-1');
    await offload(narrow, 'shared', 'call-2');
    await offload(wide, 'solo', 'call-3');
    const channel = channelName();
    stops.push(exposeToInspector(store, { channel }));
    const view = mount({ channel });
    await until(() => expect(view.all('meter')).toHaveLength(2));
    await until(() => expect(gauge(view, 'shared').max).toBe(32 * KiB));
    expect(gauge(view, 'solo').max).toBe(64 * KiB);
    expect(gauge(view, 'shared').text).toMatch(/ of 32 KiB /);

    // A narrower agent writes to 'solo': the notice carries its new bound.
    await offload(narrow, 'solo', 'call-4');
    await until(() => expect(gauge(view, 'solo').max).toBe(32 * KiB));
  });

  it('drops a forged or malformed bound, in an answer or in a change, and keeps what is valid', async () => {
    const channel = channelName();
    const side = new BroadcastChannel(channel);
    stops.push(() => side.close());
    const entry = {
      threadId: 't',
      key: 'k',
      path: '/large_tool_results/k',
      toolName: 'fetch_page',
      bytes: 1000,
      originalBytes: 1000,
      estimatedTokens: 250,
      truncated: false,
      seq: 1,
      createdAt: Date.now(),
      preview: 'preview',
    };
    const forged = ['100', -1, 0, 1.5, 2 ** 60, Number.POSITIVE_INFINITY, Number.NaN, { bound: 100 }, [100], true];
    const answer = (id: string, value: unknown) =>
      side.postMessage({ protocol: PROTOCOL, kind: 'response', id, ok: true, value });
    side.onmessage = (event) => {
      const { id, op } = event.data as { id: string; op: string };
      const values: Record<string, unknown> = { list: [entry], evictions: [], failures: [], unreadable: [], info: {} };
      if (op === 'totalBytes') answer(id, 1000);
      else if (op === 'bound') {
        // Every forged answer first (the panel ignores each and waits), then a valid one.
        for (const value of forged) answer(id, value);
        answer(id, 2048);
      } else if (op in values) answer(id, values[op]);
    };
    const notice = (changes: unknown[]) =>
      side.postMessage({ protocol: PROTOCOL, kind: 'changed', events: changes.length, changes });

    const view = mount({ channel });
    await until(() => expect(gauge(view, 't').text).toBe('1000 B of 2.0 KiB (49%)'));

    // Changes whose bound is forged still tell their total; their bound is dropped.
    for (const [index, bound] of forged.entries()) {
      const totalBytes = 900 + index;
      notice([{ type: 'stored', threadId: 't', key: 'k', totalBytes, bound }]);
      await until(() => expect(gauge(view, 't').text).toMatch(new RegExp(`^${totalBytes} B of 2\\.0 KiB`)));
    }
    // A valid bound in a change is taken.
    notice([{ type: 'stored', threadId: 't', key: 'k', totalBytes: 1500, bound: 4096 }]);
    await until(() => expect(gauge(view, 't').text).toBe('1.5 KiB of 4.0 KiB (37%)'));
  });
});
