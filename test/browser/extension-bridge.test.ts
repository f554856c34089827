import { afterEach, describe, expect, it } from 'vitest';
import { startContentRelay } from '../../extension/content-relay.js';
import { startRouter } from '../../extension/router.js';
import { CONTROL, LIMITS, PAGE_PORT, PANEL_PORT } from '../../extension/transport.js';
import { PROTOCOL } from '../../inspector/source/channel-protocol.js';
import { exposeToInspector } from '../../inspector/source/expose.js';
import { MemoryOffloadStore } from '../../lib/store/memory-store.js';
import { type FakePort, fakeChrome } from './extension-fake-chrome.js';
import { put, until } from './inspector-fixtures.js';

/**
 * The content script's relay and the service worker's router, in Chromium, over a fake `chrome`:
 * what they let through, what they refuse, and what they say when something is missing.
 */

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** A channel name of this test only: test files share the origin, and so BroadcastChannels. */
const uniqueChannel = () => `extension-test-${crypto.randomUUID()}`;

function later<T extends () => void>(stop: T): T {
  cleanups.push(stop);
  return stop;
}

/** Everything posted on `name` by others (exposers, relays), as it arrives. */
function listen(name: string): unknown[] {
  const seen: unknown[] = [];
  const channel = new BroadcastChannel(name);
  channel.onmessage = (event) => seen.push(event.data);
  later(() => channel.close());
  return seen;
}

function received(port: FakePort): unknown[] {
  const seen: unknown[] = [];
  port.onMessage.addListener((message) => seen.push(message));
  return seen;
}

let requests = 0;
function request(op: string, fields: Record<string, unknown> = {}) {
  requests += 1;
  return { protocol: PROTOCOL, kind: 'request', id: `req-${requests}`, op, ...fields };
}

const ofKind = (messages: unknown[], kind: string) =>
  messages.filter((message) => (message as { kind?: string }).kind === kind) as Array<Record<string, unknown>>;

async function sampleStore(): Promise<MemoryOffloadStore> {
  const store = new MemoryOffloadStore();
  await put(store, 'chat-1', 'alpha', 'alpha text '.repeat(200));
  await put(store, 'chat-1', 'bravo', 'bravo text');
  return store;
}

/** A tab whose content script relays `channel`, connected to by the worker as the router would. */
function tabWithRelay(channel: string, options: { timeoutMs?: number } = {}) {
  const fake = fakeChrome();
  later(startContentRelay(fake.contentScript(7), { origin: 'http://127.0.0.1:5173', channel, ...options }));
  const port = fake.worker.tabs.connect(7, { name: PAGE_PORT }) as FakePort;
  return { fake, port, messages: received(port) };
}

describe('the content script relay', () => {
  it("joins the page's channel only when the worker connects, then relays requests and their answers", async () => {
    const channel = uniqueChannel();
    const seen = listen(channel);
    const fake = fakeChrome();
    later(startContentRelay(fake.contentScript(7), { origin: 'http://127.0.0.1:5173', channel }));
    later(exposeToInspector(await sampleStore(), { channel }));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(ofKind(seen, 'request')).toEqual([]); // a page without the panel open is never asked anything

    const port = fake.worker.tabs.connect(7, { name: PAGE_PORT }) as FakePort;
    const messages = received(port);
    await until(() =>
      expect(ofKind(messages, 'ready')).toEqual([expect.objectContaining({ origin: 'http://127.0.0.1:5173' })]),
    );
    const list = request('list');
    const read = request('read', { threadId: 'chat-1', key: 'bravo' });
    port.postMessage(list);
    port.postMessage(read);
    const responses = await until(() => {
      const found = ofKind(messages, 'response');
      expect(found).toHaveLength(2);
      return found;
    });
    const byId = new Map(responses.map((response) => [response.id, response]));
    expect((byId.get(list.id)!.value as Array<{ key: string }>).map((entry) => entry.key).sort()).toEqual([
      'alpha',
      'bravo',
    ]);
    expect(byId.get(read.id)).toMatchObject({ ok: true, value: 'bravo text' });
  });

  it('tells the panel, naming the channel and exposeToInspector, when no store answers', async () => {
    const channel = uniqueChannel();
    const { port, messages } = tabWithRelay(channel, { timeoutMs: 100 });
    port.postMessage(request('list'));
    const [response] = await until(() => {
      const found = ofKind(messages, 'response');
      expect(found).toHaveLength(1);
      return found;
    });
    expect(response).toMatchObject({ ok: false, error: { name: 'Error' } });
    expect((response!.error as { message: string }).message).toBe(
      `No store answered on channel "${channel}" in this page within 100 ms: call exposeToInspector(store) in the page or in a Worker of it`,
    );
  });

  it('passes no answer it did not ask for: a page cannot push texts to the panel', async () => {
    const channel = uniqueChannel();
    const { port, messages } = tabWithRelay(channel);
    await until(() => expect(ofKind(messages, 'ready')).toHaveLength(1));
    const page = new BroadcastChannel(channel);
    later(() => page.close());
    page.postMessage({ protocol: PROTOCOL, kind: 'response', id: 'never-asked', ok: true, value: 'a pushed text' });
    page.postMessage({ protocol: PROTOCOL, kind: 'changed', events: 3 });
    await until(() =>
      expect(ofKind(messages, 'changed')).toEqual([{ protocol: PROTOCOL, kind: 'changed', events: 3 }]),
    );
    expect(ofKind(messages, 'response')).toEqual([]);
    expect(port.connected).toBe(true);
  });

  it("forwards only well-formed, small requests to the page's channel", async () => {
    const channel = uniqueChannel();
    const seen = listen(channel);
    const { port, messages } = tabWithRelay(channel);
    await until(() => expect(ofKind(messages, 'ready')).toHaveLength(1));
    port.postMessage({ ...request('list'), protocol: 'something-else' });
    port.postMessage(request('delete'));
    port.postMessage(request('read', { threadId: 'chat-1' })); // no key
    port.postMessage(request('read', { threadId: 'x'.repeat(LIMITS.requestChars), key: 'k' }));
    port.postMessage('list');
    const good = request('evictions');
    port.postMessage(good);
    await until(() => expect(ofKind(seen, 'request')).toEqual([good]));
  });

  it('turns an answer too large to carry, or of the wrong shape, into an error the panel can show', async () => {
    const channel = uniqueChannel();
    const { port, messages } = tabWithRelay(channel);
    const page = new BroadcastChannel(channel);
    later(() => page.close());
    const huge = 'x'.repeat(LIMITS.messageChars + 1);
    page.onmessage = (event) => {
      const { id, op } = event.data as { id: string; op: string };
      // Lists are checked to be lists of records here; their fields are checked by the panel.
      const value = op === 'read' ? huge : ['not an entry'];
      page.postMessage({ protocol: PROTOCOL, kind: 'response', id, ok: true, value });
    };
    const read = request('read', { threadId: 'chat-1', key: 'big' });
    const list = request('list');
    port.postMessage(read);
    port.postMessage(list);
    const responses = await until(() => {
      const found = ofKind(messages, 'response');
      expect(found).toHaveLength(2);
      return new Map(found.map((response) => [response.id, response]));
    });
    expect(responses.get(read.id)).toMatchObject({ ok: false, error: { name: 'RangeError' } });
    expect(JSON.stringify(responses.get(read.id))).toMatch(
      /The answer to read is 16 MiB of JSON, over the 16 MiB the devtools extension carries/,
    );
    expect(responses.get(list.id)).toMatchObject({
      ok: false,
      error: { name: 'TypeError', message: 'content script: the answer to list has the wrong shape' },
    });
  });

  it('merges a burst of change notices, keeping the meaning of a 0 (a store was just exposed)', async () => {
    const channel = uniqueChannel();
    const fake = fakeChrome();
    const origin = 'http://127.0.0.1:5173';
    later(startContentRelay(fake.contentScript(7), { origin, channel, noticeIntervalMs: 200 }));
    const port = fake.worker.tabs.connect(7, { name: PAGE_PORT }) as FakePort;
    const messages = received(port);
    await until(() => expect(ofKind(messages, 'ready')).toHaveLength(1));
    const page = new BroadcastChannel(channel);
    later(() => page.close());
    for (let i = 0; i < 40; i++) page.postMessage({ protocol: PROTOCOL, kind: 'changed', events: 1 });
    await until(() => expect(ofKind(messages, 'changed').map((notice) => notice.events)).toEqual([1, 39]));
    await new Promise((resolve) => setTimeout(resolve, 250)); // the interval after the 39 ends
    page.postMessage({ protocol: PROTOCOL, kind: 'changed', events: 2 });
    page.postMessage({ protocol: PROTOCOL, kind: 'changed', events: 0 });
    page.postMessage({ protocol: PROTOCOL, kind: 'changed', events: 5 });
    await until(() => expect(ofKind(messages, 'changed').map((notice) => notice.events)).toEqual([1, 39, 2, 0]));
  });

  it('drops forged notices: an unknown change type, and an "exposed" of a side already heard; asks the page again once per new side', async () => {
    const channel = uniqueChannel();
    const seen = listen(channel);
    const { port, messages } = tabWithRelay(channel, { timeoutMs: 30_000 });
    await until(() => expect(ofKind(messages, 'ready')).toHaveLength(1));
    const page = new BroadcastChannel(channel);
    later(() => page.close());
    const asked = (id: unknown) => ofKind(seen, 'request').filter((message) => message.id === id).length;
    /** Posts `messages` from the panel's side, then a request of its own, and waits until the page has that one. */
    const fromPanel = async (...sent: unknown[]) => {
      for (const message of sent) port.postMessage(message);
      const last = request('info');
      port.postMessage(last);
      await until(() => expect(asked(last.id)).toBe(1));
    };

    for (const type of ['__proto__', 'constructor', 'toString']) {
      const change = { type, threadId: 'chat-1', key: 'alpha', totalBytes: 1 };
      page.postMessage({ protocol: PROTOCOL, kind: 'changed', events: 1, changes: [change] });
    }
    const open = request('read', { threadId: 'chat-1', key: 'alpha' }); // nobody exposes: it stays open
    await fromPanel(open, open, open, open);
    expect(asked(open.id)).toBe(1); // asked again with nothing new on the page: not forwarded

    for (let i = 0; i < 50; i++)
      page.postMessage({ protocol: PROTOCOL, kind: 'changed', events: 0, instance: 'side-a' });
    for (let i = 0; i < 50; i++) page.postMessage({ protocol: PROTOCOL, kind: 'changed', events: 0 });
    // Side a and one side of an older version (no instance): one notice at once, the other merged.
    await until(() => expect(ofKind(messages, 'changed')).toHaveLength(2));
    const change = { type: 'stored', threadId: 'chat-1', key: 'real', totalBytes: 5 };
    page.postMessage({ protocol: PROTOCOL, kind: 'changed', events: 1, changes: [change] });
    await until(() => expect(JSON.stringify(ofKind(messages, 'changed'))).toContain('"real"'));
    expect(ofKind(messages, 'changed').map((notice) => notice.events)).toEqual([0, 0, 1]);
    expect(JSON.stringify(messages)).not.toMatch(/__proto__|constructor|toString/);

    await fromPanel(open, open, open);
    expect(asked(open.id)).toBe(2); // once after the reconnect, however often the panel asks
  });

  it('warns when two stores answer on the channel (another tab of the origin exposes one too)', async () => {
    const channel = uniqueChannel();
    const { port, messages } = tabWithRelay(channel);
    later(exposeToInspector(await sampleStore(), { channel }));
    later(exposeToInspector(new MemoryOffloadStore(), { channel }));
    port.postMessage(request('list'));
    await until(() => expect(ofKind(messages, 'warning')).toHaveLength(1));
    expect(ofKind(messages, 'response')).toHaveLength(1);
    expect(ofKind(messages, 'warning')[0]!.message).toMatch(/^More than one store answers on channel/);
  });

  it('refuses a port opened by anyone but this extension', async () => {
    const channel = uniqueChannel();
    const seen = listen(channel);
    const fake = fakeChrome();
    const stranger = fakeChrome('ponmlkjihgfedcbaponmlkjihgfedcba');
    const content = fake.contentScript(7);
    later(startContentRelay(content, { origin: 'http://127.0.0.1:5173', channel }));
    const port = stranger.worker.tabs.connect(99, { name: PAGE_PORT }) as FakePort;
    const messages = received(port);
    // Hand the stranger's port to this tab's content script, as if another extension reached it.
    content.onConnect.dispatch(port.other);
    expect(port.other.connected).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(messages).toEqual([]); // no "ready": it never joined the page's channel
    expect(seen).toEqual([]);
  });
});

describe('the service worker router', () => {
  /** A panel page's port to the worker, with what it receives. */
  function panel(fake: ReturnType<typeof fakeChrome>, path = '/panel.html') {
    const port = fake.extensionPage(path).connect({ name: PANEL_PORT }) as FakePort;
    return { port, messages: received(port) };
  }

  it('routes a panel to the content script of its tab, both ways', async () => {
    const channel = uniqueChannel();
    const fake = fakeChrome();
    later(startRouter(fake.worker));
    later(startContentRelay(fake.contentScript(7), { origin: 'http://127.0.0.1:5173', channel }));
    later(exposeToInspector(await sampleStore(), { channel }));
    const { port, messages } = panel(fake);
    port.postMessage({ protocol: CONTROL, kind: 'attach', tabId: 7 });
    await until(() => expect(ofKind(messages, 'ready')).toHaveLength(1));
    const read = request('read', { threadId: 'chat-1', key: 'alpha' });
    port.postMessage(read);
    const answer = { protocol: PROTOCOL, kind: 'response', id: read.id, ok: true, value: 'alpha text '.repeat(200) };
    await until(() => expect(ofKind(messages, 'response')).toEqual([answer]));
  });

  it('passes one "exposed" notice per side to the panel, and forwards a repeated request once per reconnect', async () => {
    const channel = uniqueChannel();
    const fake = fakeChrome();
    later(startRouter(fake.worker));
    later(startContentRelay(fake.contentScript(7), { origin: 'http://127.0.0.1:5173', channel, timeoutMs: 30_000 }));
    const { port, messages } = panel(fake);
    port.postMessage({ protocol: CONTROL, kind: 'attach', tabId: 7 });
    await until(() => expect(ofKind(messages, 'ready')).toHaveLength(1));
    const pageSide = fake.workerPorts.find((p) => p.name === PAGE_PORT)!.other;
    const toPage = received(pageSide);
    const forwarded = (id: unknown) => ofKind(toPage, 'request').filter((message) => message.id === id).length;
    const fromPanel = async (...sent: unknown[]) => {
      for (const message of sent) port.postMessage(message);
      const last = request('info');
      port.postMessage(last);
      await until(() => expect(forwarded(last.id)).toBe(1));
    };

    const open = request('read', { threadId: 'chat-1', key: 'alpha' });
    await fromPanel(open, open, open);
    expect(forwarded(open.id)).toBe(1);

    for (let i = 0; i < 20; i++)
      pageSide.postMessage({ protocol: PROTOCOL, kind: 'changed', events: 0, instance: 'side-b' });
    const forged = { type: '__proto__', threadId: 'chat-1', key: 'alpha', totalBytes: 1 };
    pageSide.postMessage({ protocol: PROTOCOL, kind: 'changed', events: 1, changes: [forged] });
    pageSide.postMessage({ protocol: PROTOCOL, kind: 'changed', events: 2 });
    await until(() => expect(ofKind(messages, 'changed').map((notice) => notice.events)).toContain(2));
    expect(ofKind(messages, 'changed').map((notice) => notice.events)).toEqual([0, 2]);

    await fromPanel(open, open, open);
    expect(forwarded(open.id)).toBe(2);
  });

  it('accepts only the panel page: a content script or another extension page is disconnected', async () => {
    const fake = fakeChrome();
    later(startRouter(fake.worker));
    const fromContent = fake.contentScript(3).connect({ name: PANEL_PORT }) as FakePort;
    const fromOtherPage = panel(fake, '/devtools.html').port;
    const wrongName = fake.extensionPage().connect({ name: 'something' }) as FakePort;
    const good = panel(fake).port;
    await until(() => {
      expect(fromContent.connected).toBe(false);
      expect(fromOtherPage.connected).toBe(false);
      expect(wrongName.connected).toBe(false);
    });
    expect(good.connected).toBe(true);
    expect(fake.workerPorts.filter((port) => port.name === PAGE_PORT)).toEqual([]);
  });

  it('says so when the tab has no content script, and fails requests until attached', async () => {
    const fake = fakeChrome();
    later(startRouter(fake.worker));
    const { port, messages } = panel(fake);
    const early = request('list');
    port.postMessage(early);
    port.postMessage({ protocol: CONTROL, kind: 'attach', tabId: 42 });
    const [detached] = await until(() => {
      const found = ofKind(messages, 'detached');
      expect(found).toHaveLength(1);
      return found;
    });
    expect(detached!.reason).toMatch(/^No content script answers in tab 42 \(Could not establish connection/);
    expect(ofKind(messages, 'response')).toEqual([
      expect.objectContaining({
        id: early.id,
        ok: false,
        error: { name: 'Error', message: 'The inspected page is not connected' },
      }),
    ]);
  });

  it('fails open requests when the page goes away, and drops answers the panel never asked for', async () => {
    const channel = uniqueChannel();
    const fake = fakeChrome();
    later(startRouter(fake.worker));
    const stopRelay = startContentRelay(fake.contentScript(7), { origin: 'http://127.0.0.1:5173', channel });
    const { port, messages } = panel(fake);
    port.postMessage({ protocol: CONTROL, kind: 'attach', tabId: 7 });
    await until(() => expect(ofKind(messages, 'ready')).toHaveLength(1));
    const pageSide = fake.workerPorts.find((p) => p.name === PAGE_PORT)!.other;
    pageSide.postMessage({ protocol: PROTOCOL, kind: 'response', id: 'pushed', ok: true, value: 'a pushed text' });
    const open = request('read', { threadId: 'chat-1', key: 'alpha' }); // nobody exposes: stays open
    port.postMessage(open);
    await new Promise((resolve) => setTimeout(resolve, 30));
    stopRelay();
    fake.unload(7);
    await until(() => expect(ofKind(messages, 'detached')).toHaveLength(1));
    expect(ofKind(messages, 'detached')[0]!.reason).toBe('The page in tab 7 went away (reloaded, navigated or closed)');
    expect(ofKind(messages, 'response')).toEqual([
      expect.objectContaining({
        id: open.id,
        ok: false,
        error: { name: 'Error', message: 'The page in tab 7 went away (reloaded, navigated or closed)' },
      }),
    ]);
    expect(messages.some((message) => JSON.stringify(message).includes('a pushed text'))).toBe(false);
  });
});
