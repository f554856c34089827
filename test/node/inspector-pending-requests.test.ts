import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PendingRequests } from '../../inspector/pending-requests.js';

describe('PendingRequests (the inspector channel, the DevTools port and the content script relay wait on it)', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('gives up on a request nobody answers, once, and forgets it', () => {
    const timedOut: Array<[string, string]> = [];
    const pending = new PendingRequests<string>(1000, (id, request) => timedOut.push([id, request]));
    pending.add('a', 'list');
    pending.add('b', 'read');
    expect(pending.take('b')).toBe('read');
    vi.advanceTimersByTime(999);
    expect(timedOut).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(timedOut).toEqual([['a', 'list']]);
    expect(pending.get('a')).toBeUndefined();
    expect(pending.take('a')).toBeUndefined(); // a late answer finds nothing to settle
    vi.advanceTimersByTime(10_000);
    expect(timedOut).toHaveLength(1);
  });

  it('gives a request added again its whole time again', () => {
    const timedOut: string[] = [];
    const pending = new PendingRequests<string>(1000, (id) => timedOut.push(id));
    pending.add('a', 'list');
    vi.advanceTimersByTime(800);
    pending.add('a', 'list');
    vi.advanceTimersByTime(800);
    expect(timedOut).toEqual([]);
    vi.advanceTimersByTime(200);
    expect(timedOut).toEqual(['a']);
  });

  it('takes every request at once (the other side went away), and none of them times out after', () => {
    const timedOut: string[] = [];
    const pending = new PendingRequests<number>(1000, (id) => timedOut.push(id));
    pending.add('a', 1);
    pending.add('b', 2);
    expect(pending.entries()).toEqual([
      ['a', 1],
      ['b', 2],
    ]);
    expect(pending.takeAll()).toEqual([
      ['a', 1],
      ['b', 2],
    ]);
    expect(pending.size).toBe(0);
    vi.advanceTimersByTime(5000);
    expect(timedOut).toEqual([]);
  });
});
