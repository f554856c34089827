import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ALL_BUT_REQUESTS, ChangeRegistry, type ChangeView } from '../../inspector/source/changes.js';
import type { ChangeListener, PanelSource, SourceChange } from '../../inspector/source/source.js';

/** A source whose changes the test tells; it counts who listens. */
function fakeSource() {
  const listeners = new Set<ChangeListener>();
  const source = {
    onChange(listener: ChangeListener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  } as unknown as PanelSource;
  const tell = (changes: SourceChange[] | undefined) => {
    for (const listener of [...listeners]) listener(changes);
  };
  return { source, listeners, tell };
}

/** A view that notes what it heard and whose reads end when the test says. */
function view(types: ChangeView['types'], batchMs: number) {
  const heard: Array<string[] | 'all'> = [];
  const reads: Array<() => void> = [];
  let reading = 0;
  let overlapped = false;
  const spec: ChangeView = {
    types,
    batchMs,
    hear(changes) {
      heard.push(changes ? changes.map((change) => `${change.type} ${change.threadId}`) : 'all');
      return true;
    },
    read: () => {
      reading += 1;
      if (reading > 1) overlapped = true;
      return new Promise<void>((resolve) =>
        reads.push(() => {
          reading -= 1;
          resolve();
        }),
      );
    },
  };
  return { spec, heard, reads, overlapped: () => overlapped };
}

const change = (type: string, threadId: string): SourceChange => ({ type, threadId, key: '' });

describe('ChangeRegistry (the panel’s one subscription and batching)', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('listens to its source once for every view, and stops with the last', () => {
    const { source, listeners } = fakeSource();
    const registry = new ChangeRegistry(source);
    const a = registry.register(view(ALL_BUT_REQUESTS, 0).spec);
    const b = registry.register(view(new Set(['request']), 150).spec);
    expect(listeners.size).toBe(1);
    a.stop();
    expect(listeners.size).toBe(1);
    b.stop();
    expect(listeners.size).toBe(0);
  });

  it('hands each view only the types it listens to (and types it does not know), batched in its window', async () => {
    const { source, tell } = fakeSource();
    const registry = new ChangeRegistry(source);
    const lists = view(ALL_BUT_REQUESTS, 0);
    const ledger = view(new Set(['request', 'thread-cleared']), 150);
    registry.register(lists.spec);
    registry.register(ledger.spec);
    tell([change('request', 't1')]);
    tell([change('stored', 't1'), change('thread-cleared', 't1'), change('custom', 't2')]);
    tell(undefined);
    expect(lists.heard).toEqual([['stored t1', 'thread-cleared t1', 'custom t2'], 'all']);
    expect(ledger.heard).toEqual([['request t1'], ['thread-cleared t1', 'custom t2'], 'all']);
    // Three notices, one read each: the lists' once the task ends, the ledger's after its 150 ms.
    await Promise.resolve();
    expect(lists.reads).toHaveLength(1);
    expect(ledger.reads).toHaveLength(0);
    vi.advanceTimersByTime(149);
    expect(ledger.reads).toHaveLength(0);
    vi.advanceTimersByTime(1);
    expect(ledger.reads).toHaveLength(1);
  });

  it('never reads a view twice at once: changes during a read cause one more read after it', async () => {
    const { source, tell } = fakeSource();
    const registry = new ChangeRegistry(source);
    const lists = view(ALL_BUT_REQUESTS, 0);
    const registration = registry.register(lists.spec);
    registration.schedule(true);
    expect(lists.reads).toHaveLength(1);
    for (let i = 0; i < 20; i += 1) tell([change('stored', `t${i}`)]);
    await Promise.resolve();
    expect(lists.reads).toHaveLength(1);
    lists.reads[0]!();
    await vi.waitFor(() => expect(lists.reads).toHaveLength(2));
    lists.reads[1]!();
    await Promise.resolve();
    await Promise.resolve();
    expect(lists.reads).toHaveLength(2);
    expect(lists.overlapped()).toBe(false);
    // Stopped, it hears and reads nothing more.
    registration.stop();
    tell([change('stored', 't1')]);
    await Promise.resolve();
    expect(lists.reads).toHaveLength(2);
  });
});
