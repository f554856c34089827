import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type ChangeNotice, PROTOCOL } from '../../inspector/source/channel-protocol.js';
import { ExposedSides, PendingRequests } from '../../inspector/source/pending-requests.js';

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

  it('lets a request be sent again once after each reconnect, twice at most, and not after it is answered', () => {
    const pending = new PendingRequests<string>(1000, () => {});
    pending.add('a', 'read');
    expect(pending.claimResend('a')).toBe(false); // no reconnect since it was sent
    pending.reconnected();
    pending.add('b', 'list'); // sent after that reconnect
    expect(pending.claimResend('a')).toBe(true);
    expect(pending.claimResend('a')).toBe(false);
    expect(pending.claimResend('b')).toBe(false);
    pending.add('a', 'read'); // asked again: its whole time again, its sends remembered
    expect(pending.claimResend('a')).toBe(false);
    pending.reconnected();
    expect(pending.claimResend('a')).toBe(true);
    pending.reconnected();
    expect(pending.claimResend('a')).toBe(false); // sent again twice already
    expect(pending.claimResend('b')).toBe(true);
    pending.take('b');
    pending.reconnected();
    expect(pending.claimResend('b')).toBe(false);
  });
});

describe('ExposedSides (when an "exposed" notice is a reconnect)', () => {
  const exposed = (instance?: string): ChangeNotice => ({
    protocol: PROTOCOL,
    kind: 'changed',
    events: 0,
    ...(instance === undefined ? {} : { instance }),
  });

  it('is new once per exposing side; a change notice, or a repeat, is none', () => {
    const sides = new ExposedSides();
    expect(sides.isNew({ protocol: PROTOCOL, kind: 'changed', events: 3, instance: 'a' })).toBe(false);
    expect(sides.isNew(exposed('a'))).toBe(true);
    expect(sides.isNew(exposed('a'))).toBe(false);
    expect(sides.isNew(exposed('b'))).toBe(true);
    expect(sides.isNew(exposed())).toBe(true); // an older version's, which names none: all count as one
    expect(sides.isNew(exposed())).toBe(false);
    expect(sides.isNew(exposed('__proto__'))).toBe(true);
    expect(sides.isNew(exposed('__proto__'))).toBe(false);
  });

  it('forgets the oldest sides past 64', () => {
    const sides = new ExposedSides();
    for (let i = 0; i < 65; i++) expect(sides.isNew(exposed(`side-${i}`))).toBe(true);
    expect(sides.isNew(exposed('side-64'))).toBe(false);
    expect(sides.isNew(exposed('side-0'))).toBe(true);
  });
});
