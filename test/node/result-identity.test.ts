// A1: the key of a result offered through offloadResult, hashed in slices of the text.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { resultKeyFor } from '../../lib/offload/result-identity.js';

const slice = 262_144;

describe('resultKeyFor', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('gives the same key for the same id and text, path-safe and at most 49 characters', async () => {
    const text = 'x'.repeat(3 * slice + 17);
    const key = await resultKeyFor('call/1:'.repeat(10), text);
    expect(key).toBe(await resultKeyFor('call/1:'.repeat(10), `${text}`));
    expect(key).toMatch(/^[A-Za-z0-9_-]{1,49}$/);
    expect(key.length).toBeLessThanOrEqual(49);
    expect(await resultKeyFor('', 'text')).toMatch(/^[A-Za-z0-9_-]{16}$/);
  });

  it('gives another key for another text, wherever in which slice it differs, and for the id/text boundary moved', async () => {
    const text = 'x'.repeat(3 * slice + 17);
    const keys = new Set([
      await resultKeyFor('id', text),
      await resultKeyFor('id', `y${text.slice(1)}`),
      await resultKeyFor('id', `${text.slice(0, slice)}y${text.slice(slice + 1)}`),
      await resultKeyFor('id', `${text.slice(0, -1)}y`),
      await resultKeyFor('id', `${text}x`),
      await resultKeyFor('id', text.slice(0, slice)),
      await resultKeyFor('id', text.slice(0, slice - 1)),
      await resultKeyFor('ab', 'c'),
      await resultKeyFor('a', 'bc'),
    ]);
    expect(keys.size).toBe(9);
  });

  it('never cuts a surrogate pair between slices, where it would read as two replacement characters', async () => {
    const before = 'a'.repeat(slice - 1);
    expect(await resultKeyFor('id', `${before}\u{1F600}z`)).not.toBe(
      await resultKeyFor('id', `${before}\uFFFD\uFFFDz`),
    );
  });

  it('hashes without crypto.subtle (plain http), the same way each time', async () => {
    vi.stubGlobal('crypto', {});
    const key = await resultKeyFor('call-1', 'some text');
    expect(key).toMatch(/^call-1-[A-Za-z0-9_-]{16}$/);
    expect(await resultKeyFor('call-1', 'some text')).toBe(key);
    expect(await resultKeyFor('call-1', 'some text!')).not.toBe(key);
    expect(await resultKeyFor('ab', 'c')).not.toBe(await resultKeyFor('a', 'bc'));
  });
});
