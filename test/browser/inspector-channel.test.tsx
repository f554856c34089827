import { afterEach, describe, expect, it, vi } from 'vitest';
import { exposeToInspector } from '../../inspector/index.js';
import { REQUEST_TIMEOUT_MS } from '../../inspector/source/channel.js';
import { PROTOCOL } from '../../inspector/source/channel-protocol.js';
import { MemoryOffloadStore } from '../../lib/store/memory-store.js';
import {
  boundless,
  button,
  cleanupMounts,
  inspectorRoot,
  mount,
  put,
  sampleStore,
  threadChoices,
  threadPicker,
  until,
} from './inspector-fixtures.js';

const stops: Array<() => void> = [];
afterEach(() => {
  cleanupMounts();
  for (const stop of stops.splice(0)) stop();
});

let channels = 0;
/** A fresh channel name per test, so tests never hear each other. */
function channelName(): string {
  channels += 1;
  return `inspector-test-${Date.now()}-${channels}`;
}

function expose(store: MemoryOffloadStore, channel: string, bound?: number): void {
  stops.push(exposeToInspector(store, { channel, bound }));
}

/** Everything posted on `name` from now on, as another window would receive it. */
function record(name: string): unknown[] {
  const seen: unknown[] = [];
  const channel = new BroadcastChannel(name);
  channel.onmessage = (event) => seen.push(event.data);
  stops.push(() => channel.close());
  return seen;
}

describe('the inspector over a BroadcastChannel (I2)', () => {
  it('shows the exposed store, live, and fetches a text only when it is selected', async () => {
    const store = await sampleStore();
    const read = vi.spyOn(store, 'read');
    const channel = channelName();
    const wire = record(channel);
    expose(store, channel);
    const view = mount({ channel }, { bound: 4096 });

    await until(() => expect(view.paths()).toHaveLength(3));
    expect(view.one('.title').textContent).toContain(`channel "${channel}"`);
    await until(() => expect(view.all('meter')).toHaveLength(2));
    const bravoText = 'line one\nline two\nline three';
    expect(JSON.stringify(wire)).not.toContain('line two');
    expect(read).not.toHaveBeenCalled();

    view.all('tbody tr.row')[1]!.click();
    await until(() => expect(view.all('.lt').map((line) => line.textContent)).toEqual(bravoText.split('\n')));
    expect(read).toHaveBeenCalledTimes(1);
    const carrying = wire.filter((message) => JSON.stringify(message).includes('line two'));
    expect(carrying).toEqual([expect.objectContaining({ kind: 'response', ok: true, value: bravoText })]);

    await put(store, 'chat-3', 'echo', 'new result');
    await until(() => expect(view.paths()).toContain('/large_tool_results/echo'));
    threadPicker(view).click();
    await until(() => expect(threadChoices(view)).toContain('chat-3'));
  });

  it('gauges the bound the exposing window gave a store that reports none; a bound given to the panel wins', async () => {
    const channel = channelName();
    expose(boundless(await sampleStore()), channel, 4096);
    const view = mount({ channel });
    await until(() => expect(view.all('meter')).toHaveLength(2));
    const chat1 = view.one<HTMLMeterElement>('meter[aria-label="Thread chat-1: stored bytes"]');
    expect(chat1.max).toBe(4096);
    expect(chat1.getAttribute('aria-valuetext')).toBe('3.0 KiB of 4.0 KiB (74%)');
    expect(view.one('.gauges').textContent).not.toContain('bound unknown');

    const own = mount({ channel }, { bound: 8192 });
    await until(() => expect(own.all('meter')).toHaveLength(2));
    expect(own.one<HTMLMeterElement>('meter').max).toBe(8192);

    const other = channelName();
    expose(boundless(await sampleStore()), other); // no bound given
    const unknown = mount({ channel: other });
    await until(() => expect(unknown.paths()).toHaveLength(3));
    await until(() => expect(unknown.one('.gauges').textContent).toContain('bound unknown'));
  });

  it('names the source with options.label instead of the channel', async () => {
    const channel = channelName();
    expose(await sampleStore(), channel);
    const view = mount({ channel }, { label: 'Support agent · tab 3' });
    await until(() => expect(view.paths()).toHaveLength(3));
    expect(view.one('.title').textContent).toContain('Support agent · tab 3');
    expect(view.one('.title').textContent).not.toContain(channel);
    expect(mount({ store: await sampleStore() }, { label: 'Demo store' }).one('.title').textContent).toContain(
      'Demo store',
    );
  });

  it('loads a store exposed by an older version, which never answers "info", without an error', async () => {
    const channel = channelName();
    const store = await sampleStore();
    const older = new BroadcastChannel(channel);
    stops.push(() => older.close());
    const asked: string[] = [];
    older.onmessage = async (event) => {
      const { id, op, threadId } = event.data as { id: string; op: string; threadId: string };
      asked.push(op);
      const answers: Record<string, () => Promise<unknown>> = {
        list: () => store.list(),
        evictions: () => store.evictions(),
        failures: () => store.failures(),
        totalBytes: () => store.totalBytes(threadId),
      };
      const answer = answers[op];
      if (answer) older.postMessage({ protocol: PROTOCOL, kind: 'response', id, ok: true, value: await answer() });
    };
    const view = mount({ channel });
    await until(() => expect(view.paths()).toHaveLength(3));
    expect(asked).toContain('info');
    // Past the request timeout: the unanswered "info" is no error to show, and the list stays.
    await new Promise((resolve) => setTimeout(resolve, REQUEST_TIMEOUT_MS + 300));
    expect(view.all('[role="alert"]')).toHaveLength(0);
    expect(view.paths()).toHaveLength(3);
    expect(view.one('.gauges').textContent).toContain('bound unknown');
  }, 15_000);

  it("carries the store's errors: an evicted entry says so", async () => {
    const channel = channelName();
    expose(await sampleStore(), channel);
    const view = mount({ channel });
    await until(() => expect(view.paths()).toHaveLength(3));
    button(view, 'Evictions (1)').click();
    await until(() => view.one('.timeline button')).then((open) => open.click());
    await until(() => expect(view.one('[role="alert"]').textContent).toMatch(/charlie was evicted/));
  });

  it('loads as soon as a store is exposed after the panel opened', async () => {
    const channel = channelName();
    const view = mount({ channel });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(view.all('tbody tr.row')).toHaveLength(0);
    expose(await sampleStore(), channel);
    // Before the panel's own request would time out and be sent again: the exposed store announced itself.
    await until(() => expect(view.paths()).toHaveLength(3), REQUEST_TIMEOUT_MS - 1000);
  });

  it('ignores malformed messages on both sides', async () => {
    const channel = channelName();
    const wire = record(channel);
    const fake = new BroadcastChannel(channel);
    stops.push(() => fake.close());
    const view = mount({ channel });
    const field = (message: unknown, name: 'op' | 'id' | 'kind') =>
      typeof message === 'object' && message !== null ? (message as Record<string, unknown>)[name] : undefined;
    const asked = (op: string) => wire.some((message) => field(message, 'op') === op);
    await until(() => expect(asked('list')).toBe(true));
    const id = (op: string) =>
      field(
        wire.find((message) => field(message, 'op') === op),
        'id',
      );
    const answer = (op: string, value: unknown) =>
      fake.postMessage({ protocol: PROTOCOL, kind: 'response', id: id(op), ok: true, value });

    for (const junk of [null, 'list', 42, { protocol: 'other' }, { protocol: PROTOCOL, kind: 'changed', events: -1 }]) {
      fake.postMessage(junk);
    }
    const entry = { threadId: 't', key: 'k', path: '/large_tool_results/k', toolName: 'fetch', bytes: 5 };
    answer('list', 'not a list'); // not a list: ignored
    answer('list', [entry, 42]); // an item that is no record: ignored
    // A list of records is taken; a damaged record in it is shown, marked with what is wrong.
    answer('list', [
      { ...entry, bytes: 'five', originalBytes: 5, truncated: false, seq: 1, createdAt: 1, preview: 'p' },
    ]);
    answer('evictions', []);
    answer('failures', []);
    await until(() => expect(asked('totalBytes')).toBe(true));
    answer('totalBytes', 5);
    await until(() => expect(view.paths()).toEqual(['/large_tool_results/k']));
    expect(view.one('tbody .problem').getAttribute('aria-label')).toBe(
      'Damaged record: bytes is not a count (got "five"); estimatedTokens is missing',
    );

    // The exposing side answers only well-formed requests.
    expose(new MemoryOffloadStore(), channel);
    const before = wire.length;
    fake.postMessage({ protocol: PROTOCOL, kind: 'request', id: 'r1', op: 'read', threadId: 't' }); // no key
    fake.postMessage({ protocol: PROTOCOL, kind: 'request', id: 'r2', op: 'drop' });
    fake.postMessage({ protocol: PROTOCOL, kind: 'request', id: '', op: 'list' });
    fake.postMessage({ protocol: PROTOCOL, kind: 'request', id: 'r3', op: 'list' });
    const answered = () =>
      wire
        .slice(before)
        .filter((message) => field(message, 'kind') === 'response')
        .map((message) => field(message, 'id'));
    await until(() => expect(answered()).toContain('r3'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(answered().filter((id) => id === '' || /^r\d$/.test(String(id)))).toEqual(['r3']);
  });

  it('works from a second page of the same origin', async () => {
    const store = await sampleStore();
    const channel = channelName();
    expose(store, channel);
    const frame = document.createElement('iframe');
    frame.style.cssText = 'width: 1000px; height: 600px;';
    frame.srcdoc = `<!doctype html><body style="margin:0;height:600px"><script type="module">
      import { mountInspector } from '/inspector/index.ts';
      mountInspector(document.body, { channel: ${JSON.stringify(channel)} });
    </script></body>`;
    document.body.append(frame);
    stops.push(() => frame.remove());
    const rows = () => {
      const body = frame.contentDocument?.body;
      if (!body?.querySelector('[data-tool-output-offload-inspector]')) throw new Error('not mounted yet');
      return [...inspectorRoot(body).querySelectorAll('tbody tr.row')];
    };
    await until(() => expect(rows()).toHaveLength(3));
    await put(store, 'chat-1', 'foxtrot', 'from the first page');
    await until(() => expect(rows()).toHaveLength(4));
    (rows().find((row) => row.textContent?.includes('foxtrot')) as HTMLElement).click();
    const root = inspectorRoot(frame.contentDocument!.body);
    await until(() => expect(root.querySelector('.lt')?.textContent).toBe('from the first page'));
  });

  it('"Pop out" exposes the store on its channel and opens the given URL', async () => {
    const store = boundless(await sampleStore());
    const channel = channelName();
    const open = vi.spyOn(window, 'open').mockReturnValue({} as Window);
    const view = mount({ store }, { popOutUrl: '/inspector.html', channel, bound: 4096 });
    await until(() => expect(view.paths()).toHaveLength(3));
    expect(
      mount({ store })
        .all('button')
        .some((b) => b.textContent === 'Pop out'),
    ).toBe(false);

    button(view, 'Pop out').click();
    expect(open).toHaveBeenCalledWith('/inspector.html', '_blank', expect.stringContaining('popup'));
    const popped = mount({ channel });
    await until(() => expect(popped.paths()).toHaveLength(3));
    // The popped-out panel gauges the bound the docked one was given.
    await until(() => expect(popped.one<HTMLMeterElement>('meter').max).toBe(4096));

    open.mockReturnValue(null);
    button(view, 'Pop out').click();
    await until(() => expect(view.one('[role="status"]').textContent).toMatch(/blocked the pop-up/));
    open.mockRestore();

    // Unmounting the panel stops exposing the store.
    view.unmount();
    const late = mount({ channel });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(late.all('tbody tr.row')).toHaveLength(0);
  });
});

describe('forged messages on the channel (any script of the origin can post on it)', () => {
  /** Errors nobody caught, and rejections nobody handled, from now until the test ends. */
  function uncaught(): unknown[] {
    const seen: unknown[] = [];
    const onError = (event: ErrorEvent) => seen.push(event.error ?? event.message);
    const onRejection = (event: PromiseRejectionEvent) => seen.push(event.reason);
    window.addEventListener('error', onError);
    window.addEventListener('unhandledrejection', onRejection);
    stops.push(() => {
      window.removeEventListener('error', onError);
      window.removeEventListener('unhandledrejection', onRejection);
    });
    return seen;
  }

  function forger(channel: string): BroadcastChannel {
    const fake = new BroadcastChannel(channel);
    stops.push(() => fake.close());
    return fake;
  }

  const kindOf = (message: unknown) => (message as { kind?: unknown }).kind;
  const idOf = (message: unknown) => (message as { id?: unknown }).id;

  it('drops a change of type __proto__, constructor or toString without an error; a real change after them arrives', async () => {
    const errors = uncaught();
    const store = await sampleStore();
    const channel = channelName();
    expose(store, channel);
    const view = mount({ channel });
    await until(() => expect(view.paths()).toHaveLength(3));

    const fake = forger(channel);
    for (const type of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      const change = { type, threadId: 'chat-1', key: 'alpha', totalBytes: 1 };
      fake.postMessage({ protocol: PROTOCOL, kind: 'changed', events: 1, changes: [change] });
    }
    await put(store, 'chat-1', 'after-forgery', 'a real change');
    await until(() => expect(view.paths()).toContain('/large_tool_results/after-forgery'));
    expect(errors).toEqual([]);

    // A custom source may report such a type too: the panel reads everything again, no error.
    const listeners = new Set<(changes: unknown) => void>();
    const custom = mount({
      source: {
        list: () => store.list(),
        evictions: () => store.evictions(),
        totalBytes: (threadId) => store.totalBytes(threadId),
        read: (threadId, key) => store.read(threadId, key),
        onChange(listener) {
          listeners.add(listener as (changes: unknown) => void);
          return () => listeners.delete(listener as (changes: unknown) => void);
        },
      },
    });
    await until(() => expect(custom.paths()).toHaveLength(4));
    await put(store, 'chat-2', 'seen-by-custom', 'text');
    for (const type of ['__proto__', 'constructor', 'toString']) {
      const changes = [{ type, threadId: 'chat-2', key: 'seen-by-custom', totalBytes: 4 }];
      for (const listener of listeners) expect(() => listener(changes)).not.toThrow();
    }
    await until(() => expect(custom.paths()).toContain('/large_tool_results/seen-by-custom'));
    expect(errors).toEqual([]);
  });

  it('100 forged "store exposed" notices while a 2 MB text is read cost at most one more read and post of it', async () => {
    const store = await sampleStore();
    const big = 'x'.repeat(2 * 1024 * 1024 - 1);
    await put(store, 'chat-1', 'big', big);
    const channel = channelName();
    const wire = record(channel);
    // The store's reads of the big text, held until released: the panel's request stays pending.
    const read = store.read.bind(store);
    let bigReads = 0;
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    store.read = async (threadId, key) => {
      if (key === 'big') {
        bigReads += 1;
        await held;
      }
      return read(threadId, key);
    };
    expose(store, channel);
    const view = mount({ channel });
    await until(() => expect(view.paths()).toHaveLength(4));
    const instance = (wire.find((message) => kindOf(message) === 'changed') as { instance?: unknown }).instance;

    view
      .all('tbody tr.row')
      .find((row) => row.querySelector('td')?.textContent === '/large_tool_results/big')!
      .click();
    await until(() => expect(bigReads).toBe(1));

    const fake = forger(channel);
    for (let i = 0; i < 100; i++) {
      // Without an instance (as an older version), with the exposing side's own, and with new ones.
      const forged = [{}, { instance }, { instance: `forged-${i}` }][i % 3];
      fake.postMessage({ protocol: PROTOCOL, kind: 'changed', events: 0, ...forged });
    }
    // A real change after them: once the panel shows it, it has heard every forged notice, and
    // the exposing window every request the panel sent before asking for the change.
    await put(store, 'chat-1', 'after-flood', 'a real change');
    await until(() => expect(view.paths()).toContain('/large_tool_results/after-flood'));
    release();
    await until(() => expect(view.all('.lt')).toHaveLength(1));
    await put(store, 'chat-1', 'settled', 'one more round trip');
    await until(() => expect(view.paths()).toContain('/large_tool_results/settled'));

    expect(bigReads).toBeLessThanOrEqual(2);
    const carrying = wire.filter(
      (message) => kindOf(message) === 'response' && JSON.stringify(message).length > big.length,
    );
    expect(carrying.length).toBeGreaterThanOrEqual(1);
    expect(carrying.length).toBeLessThanOrEqual(2);
    const posted = wire.reduce((bytes: number, message) => bytes + JSON.stringify(message).length, 0);
    expect(posted).toBeLessThan(2 * big.length + 1024 * 1024);
  }, 30_000);

  it('answers a request id once: a repeated request is dropped', async () => {
    const store = await sampleStore();
    const read = vi.spyOn(store, 'read');
    const channel = channelName();
    const wire = record(channel);
    expose(store, channel);
    const fake = forger(channel);
    const ask = (id: string) =>
      fake.postMessage({ protocol: PROTOCOL, kind: 'request', id, op: 'read', threadId: 'chat-1', key: 'bravo' });
    for (let i = 0; i < 5; i++) ask('same-id');
    ask('other-id');
    ask('same-id');
    const answers = (id: string) => wire.filter((message) => kindOf(message) === 'response' && idOf(message) === id);
    await until(() => expect(answers('other-id')).toHaveLength(1));
    ask('last-id');
    await until(() => expect(answers('last-id')).toHaveLength(1));
    expect(answers('same-id')).toEqual([
      expect.objectContaining({ ok: true, value: 'line one\nline two\nline three' }),
    ]);
    expect(read).toHaveBeenCalledTimes(3);
  });
});
