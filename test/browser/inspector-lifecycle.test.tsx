import { afterEach, describe, expect, it, vi } from 'vitest';
import { exposeToInspector } from '../../inspector/index.js';
import { PROTOCOL } from '../../inspector/source/channel-protocol.js';
import { MemoryOffloadStore } from '../../lib/store/memory-store.js';
import { button, cleanupMounts, mount, put, sampleStore, until } from './inspector-fixtures.js';

const stops: Array<() => void> = [];
afterEach(() => {
  cleanupMounts();
  for (const stop of stops.splice(0)) stop();
  vi.restoreAllMocks();
});

const quiet = (ms = 200) => new Promise((resolve) => setTimeout(resolve, ms));

/** Counts the store's live subscriptions. */
function countSubscriptions(store: MemoryOffloadStore): () => number {
  let live = 0;
  const subscribe = store.subscribe.bind(store);
  vi.spyOn(store, 'subscribe').mockImplementation((listener) => {
    live += 1;
    const stop = subscribe(listener);
    let stopped = false;
    return () => {
      if (!stopped) live -= 1;
      stopped = true;
      stop();
    };
  });
  return () => live;
}

/** True when the caller is the inspector's own code (not the test runner's waits). */
const fromInspector = () => /\/inspector\/(?:[\w-]+\/)?[\w-]+\.tsx?/.test(new Error().stack ?? '');

/** Interval and timeout ids the inspector created from now on that were never cleared (nor ran, for timeouts). */
function trackTimers() {
  const intervals = new Set<number>();
  const timeouts = new Set<number>();
  const original = {
    setInterval: window.setInterval,
    setTimeout: window.setTimeout,
    clearInterval: window.clearInterval,
    clearTimeout: window.clearTimeout,
  };
  window.setInterval = ((handler: () => void, ms?: number) => {
    const id = original.setInterval.call(window, handler, ms) as unknown as number;
    if (fromInspector()) intervals.add(id);
    return id;
  }) as typeof window.setInterval;
  window.setTimeout = ((handler: () => void, ms?: number) => {
    const id = original.setTimeout.call(
      window,
      () => {
        timeouts.delete(id);
        handler();
      },
      ms,
    ) as unknown as number;
    if (fromInspector()) timeouts.add(id);
    return id;
  }) as typeof window.setTimeout;
  window.clearInterval = ((id?: number) => {
    if (id !== undefined) intervals.delete(id);
    original.clearInterval.call(window, id);
  }) as typeof window.clearInterval;
  window.clearTimeout = ((id?: number) => {
    if (id !== undefined) timeouts.delete(id);
    original.clearTimeout.call(window, id);
  }) as typeof window.clearTimeout;
  stops.push(() => Object.assign(window, original));
  return { intervals, timeouts };
}

/** ResizeObservers created from now on that still observe something. */
function trackResizeObservers(): () => number {
  const Original = window.ResizeObserver;
  let observing = 0;
  class Counted extends Original {
    #targets = 0;
    override observe(target: Element, options?: ResizeObserverOptions) {
      this.#targets += 1;
      observing += 1;
      super.observe(target, options);
    }
    override unobserve(target: Element) {
      if (this.#targets > 0) {
        this.#targets -= 1;
        observing -= 1;
      }
      super.unobserve(target);
    }
    override disconnect() {
      observing -= this.#targets;
      this.#targets = 0;
      super.disconnect();
    }
  }
  window.ResizeObserver = Counted;
  stops.push(() => {
    window.ResizeObserver = Original;
  });
  return () => observing;
}

describe("the inspector's unmount releases everything it opened", () => {
  it('a store source: no subscription, timer or observer is left, and later changes read nothing', async () => {
    const store = await sampleStore();
    const subscriptions = countSubscriptions(store);
    const timers = trackTimers();
    const observers = trackResizeObservers();
    const view = mount({ store }, { bound: 4096 });
    await until(() => expect(view.paths()).toHaveLength(3));
    view.all('tbody tr.row')[0]!.click(); // the detail pane and its reads too
    await until(() => expect(view.all('.lt').length).toBeGreaterThan(0));
    expect(subscriptions()).toBeGreaterThan(0);
    expect(observers()).toBeGreaterThan(0);
    expect(timers.intervals.size).toBeGreaterThan(0); // the clock for ages

    view.unmount();
    expect(subscriptions()).toBe(0);
    expect(observers()).toBe(0);
    await quiet(); // Preact runs the cleanups of effects (not layout effects) after the next frame
    expect(timers.intervals.size).toBe(0);
    expect(timers.timeouts.size).toBe(0);
    expect(view.container.childElementCount).toBe(0);

    const list = vi.spyOn(store, 'list');
    const totalBytes = vi.spyOn(store, 'totalBytes');
    await put(store, 'chat-1', 'after', 'stored after the unmount');
    await quiet();
    expect(list).not.toHaveBeenCalled();
    expect(totalBytes).not.toHaveBeenCalled();
  });

  it('a channel source: after unmount no request is sent, whatever is posted on the channel', async () => {
    const channel = `inspector-lifecycle-${crypto.randomUUID()}`;
    const store = await sampleStore();
    stops.push(exposeToInspector(store, { channel }));
    const wire: unknown[] = [];
    const listener = new BroadcastChannel(channel);
    listener.onmessage = (event) => wire.push(event.data);
    stops.push(() => listener.close());
    const timers = trackTimers();
    const view = mount({ channel });
    await until(() => expect(view.paths()).toHaveLength(3));
    await quiet();

    view.unmount();
    await quiet();
    expect(timers.intervals.size).toBe(0);
    expect([...timers.timeouts].length).toBe(0);
    wire.length = 0;
    // A change notice, a "store just exposed" notice, and a real change: a live panel would ask for lists.
    listener.postMessage({ protocol: PROTOCOL, kind: 'changed', events: 1 });
    listener.postMessage({ protocol: PROTOCOL, kind: 'changed', events: 0 });
    await put(store, 'chat-1', 'after', 'stored after the unmount');
    await quiet(300);
    expect(wire.filter((message) => (message as { kind?: string }).kind === 'request')).toEqual([]);
  });

  it('a channel nobody answers: unmount ends the waiting requests and their timeouts', async () => {
    const channel = `inspector-lifecycle-${crypto.randomUUID()}`;
    const timers = trackTimers();
    const view = mount({ channel });
    await quiet(100);
    expect(timers.timeouts.size).toBeGreaterThan(0); // the requests' timeouts, 5 s each
    view.unmount();
    await quiet(); // Preact's own frame timers (a fallback for requestAnimationFrame) run meanwhile
    expect(timers.timeouts.size).toBe(0);
  });

  it('a floating panel with Pop out: unmount stops exposing the store too', async () => {
    const channel = `inspector-lifecycle-${crypto.randomUUID()}`;
    const store = new MemoryOffloadStore();
    const subscriptions = countSubscriptions(store);
    vi.spyOn(window, 'open').mockReturnValue({} as Window);
    const view = mount({ store }, { mode: 'floating', popOutUrl: '/inspector.html', channel });
    button(view, 'Tool outputs').click();
    await until(() => button(view, 'Pop out')).then((popOut) => popOut.click());
    await until(() => expect(subscriptions()).toBe(2)); // the panel's, and the exposed store's
    view.unmount();
    expect(subscriptions()).toBe(0);
  });
});
