import { render } from 'preact';
import { afterEach, describe, expect, it } from 'vitest';
import { startContentRelay } from '../../extension/content-relay.js';
import { PanelPage } from '../../extension/panel-page.js';
import { startRouter } from '../../extension/router.js';
import { exposeToInspector } from '../../inspector/index.js';
import { PROTOCOL } from '../../inspector/source/channel-protocol.js';
import { LEDGER_PAGE_RECORDS } from '../../inspector/source/context-wire.js';
import { fakeChrome } from './extension-fake-chrome.js';
import { bars, ledgerRecord, ledgerStore } from './inspector-context-fixtures.js';
import { button, cleanupMounts, inspectorRoot, type Mounted, mount, put, until } from './inspector-fixtures.js';

const stops: Array<() => void> = [];
afterEach(() => {
  cleanupMounts();
  for (const stop of stops.splice(0)) stop();
});

const channelName = () => `inspector-context-test-${crypto.randomUUID()}`;
const steps = (threadId: string, count: number) =>
  Array.from({ length: count }, (_, i) => ledgerRecord(threadId, i + 1));

/** Everything posted on `name` from now on, as another window would receive it. */
function wire(name: string): Array<Record<string, unknown>> {
  const seen: Array<Record<string, unknown>> = [];
  const channel = new BroadcastChannel(name);
  channel.onmessage = (event) => seen.push(event.data);
  stops.push(() => channel.close());
  return seen;
}

async function openContext(view: Mounted, count: number): Promise<void> {
  await until(() => button(view, 'Context')).then((tab) => tab.click());
  await until(() => expect(bars(view).at(-1)?.getAttribute('aria-setsize')).toBe(String(count)));
}

describe('the Context tab through the channel', () => {
  it('reads the ledger in pages, then only the new steps, and follows them live', async () => {
    const count = LEDGER_PAGE_RECORDS * 2 + 10;
    const store = ledgerStore(steps('chat-1', count));
    await put(store, 'chat-1', 'a', 'a');
    const channel = channelName();
    const seen = wire(channel);
    stops.push(exposeToInspector(store, { channel }));
    const view = mount({ channel });
    await openContext(view, count);
    expect(bars(view).at(-1)!.getAttribute('aria-label')).toBe(
      `step ${count.toLocaleString('en-US')}: ${ledgerRecord('chat-1', count).tokens.toLocaleString('en-US')} tokens`,
    );
    const asked = () => seen.filter((message) => message.kind === 'request' && message.op === 'requests');
    // Three pages, each after the last step of the one before.
    expect(asked().map((request) => request.after)).toEqual([undefined, LEDGER_PAGE_RECORDS, LEDGER_PAGE_RECORDS * 2]);

    seen.length = 0;
    store.addRequest(ledgerRecord('chat-1', count + 1));
    await until(() => expect(bars(view).at(-1)?.getAttribute('aria-setsize')).toBe(String(count + 1)));
    expect(asked().map((request) => request.after)).toEqual([count]);
    const answer = seen.find((message) => message.kind === 'response' && message.id === asked()[0]!.id);
    expect((answer!.value as { records: unknown[] }).records).toHaveLength(1);
    // The ledger's change crossed in a notice of its own (an older panel drops a type it does not know).
    const notices = seen.filter((message) => message.kind === 'changed');
    expect(notices.map((notice) => notice.changes)).toEqual([
      [{ type: 'request', threadId: 'chat-1', key: '', step: count + 1 }],
    ]);
  });

  it('drops malformed records and ignores an answer over the page bound', async () => {
    const channel = channelName();
    const side = new BroadcastChannel(channel);
    stops.push(() => side.close());
    const entry = {
      threadId: 'chat-1',
      key: 'a',
      path: '/large_tool_results/a',
      toolName: 'fetch',
      bytes: 1,
      originalBytes: 1,
      estimatedTokens: 1,
      truncated: false,
      seq: 1,
      createdAt: Date.now(),
      preview: 'a',
    };
    const huge = {
      records: Array.from({ length: LEDGER_PAGE_RECORDS + 1 }, (_, i) => ledgerRecord('chat-1', i + 1)),
      more: false,
    };
    const valid = {
      records: [
        ledgerRecord('chat-1', 1),
        { ...ledgerRecord('chat-1', 2), step: 'two' },
        ledgerRecord('chat-1', 3),
        { step: 4 },
      ],
      more: false,
    };
    // A forged exposing side: the first answer to 'requests' is too large, the second carries damaged records.
    side.onmessage = (event) => {
      const { id, op } = event.data as { id: string; op: string };
      const reply = (value: unknown) => side.postMessage({ protocol: PROTOCOL, kind: 'response', id, ok: true, value });
      const answers: Record<string, () => void> = {
        list: () => reply([entry]),
        evictions: () => reply([]),
        failures: () => reply([]),
        unreadable: () => reply([]),
        totalBytes: () => reply(1),
        bound: () => reply(null),
        info: () => reply({}),
        requests: () => {
          reply(huge);
          reply(valid);
        },
      };
      answers[op]?.();
    };
    const view = mount({ channel });
    await until(() => button(view, 'Context')).then((tab) => tab.click());
    await until(() => expect(bars(view)).toHaveLength(2));
    expect(bars(view).map((bar) => bar.getAttribute('aria-label')?.split(':')[0])).toEqual(['step 1', 'step 3']);
    expect(view.one('.ctx .error').textContent).toBe('2 records of the ledger are malformed and not shown.');
  });

  it("stays on the real thread through 20 forged 'request' notices naming threads with no ledger", async () => {
    const store = ledgerStore(steps('chat-1', 5));
    await put(store, 'chat-1', 'a', 'a');
    const channel = channelName();
    const seen = wire(channel);
    stops.push(exposeToInspector(store, { channel }));
    const view = mount({ channel });
    await openContext(view, 5);
    // Everything the tab shows from now on: a blank ("Reading…") or another thread would be seen.
    const shown: string[] = [];
    const observer = new MutationObserver(() => shown.push(view.one('.tabpanel').textContent ?? ''));
    observer.observe(view.root, { childList: true, subtree: true, characterData: true });
    stops.push(() => observer.disconnect());
    // A neighbour on the same origin posts notices of model requests of threads that have none.
    const neighbour = new BroadcastChannel(channel);
    stops.push(() => neighbour.close());
    for (let i = 0; i < 20; i += 1) {
      neighbour.postMessage({
        protocol: PROTOCOL,
        kind: 'changed',
        events: 1,
        changes: [{ type: 'request', threadId: `ghost-${i}`, key: '', step: 1 }],
      });
    }
    const answered = (threadId: string) =>
      seen.some(
        (request) =>
          request.kind === 'request' &&
          request.threadId === threadId &&
          seen.some((answer) => answer.kind === 'response' && answer.id === request.id),
      );
    await until(() => expect(answered('ghost-19')).toBe(true));
    // Then a real request of the thread shown: it is drawn, and nothing else was shown meanwhile.
    store.addRequest(ledgerRecord('chat-1', 6));
    await until(() => expect(bars(view).at(-1)?.getAttribute('aria-setsize')).toBe('6'));
    expect(view.one('.ctx-head').textContent).toContain('chat-1');
    expect(shown.filter((text) => !text.includes('Thread chat-1'))).toEqual([]);
  });

  it('says so when the exposed store keeps no ledger', async () => {
    const store = ledgerStore(steps('chat-1', 3));
    await put(store, 'chat-1', 'a', 'a');
    // No 'requests' method on the store: the exposing side answers null.
    const plain = Object.assign(store, { requests: undefined });
    const channel = channelName();
    stops.push(exposeToInspector(plain, { channel }));
    const view = mount({ channel });
    await until(() => button(view, 'Context')).then((tab) => tab.click());
    await until(() => expect(view.one('.tabpanel').textContent).toContain('keeps no context ledger'));
  });
});

describe('the Context tab in the DevTools panel', () => {
  it("draws the inspected page's ledger through the extension and follows it", async () => {
    const fake = fakeChrome();
    stops.push(startRouter(fake.worker));
    const channel = channelName();
    const store = ledgerStore(steps('chat-1', 40));
    await put(store, 'chat-1', 'a', 'a');
    stops.push(exposeToInspector(store, { channel }));
    stops.push(startContentRelay(fake.contentScript(7), { origin: 'http://127.0.0.1:5173', channel }));
    const container = document.createElement('div');
    container.style.cssText = 'width: 1000px; height: 600px; display: flex; flex-direction: column;';
    document.body.append(container);
    render(<PanelPage runtime={fake.extensionPage()} tabId={7} timing={{ retryMs: 30 }} />, container);
    stops.push(() => {
      render(null, container);
      container.remove();
    });
    const root = await until(() => inspectorRoot(container.querySelector('.inspector')!));
    const all = (selector: string) => [...root.querySelectorAll<HTMLElement>(selector)];
    const tab = await until(() => {
      const found = all('[role="tab"]').find((each) => each.textContent === 'Context');
      if (!found) throw new Error('no Context tab');
      return found;
    });
    tab.click();
    const setsize = () => all('[role="option"].ctx-step').at(-1)?.getAttribute('aria-setsize');
    await until(() => expect(setsize()).toBe('40'));
    store.addRequest(ledgerRecord('chat-1', 41));
    await until(() => expect(setsize()).toBe('41'));
    expect(all('[role="option"][aria-selected="true"]')[0]?.getAttribute('aria-label')).toMatch(/^step 41: /);
  });
});
