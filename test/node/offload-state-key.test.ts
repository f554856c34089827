// The offload's state key on its own: update validation, quota at commit, restore (O3, O8, S3).
import { describe, expect, it, vi } from 'vitest';
import { ToolOutputOffload } from '../../lib/offload/tool-output-offload.js';
import type { StateKey } from '../../lib/runtime/middleware.js';
import { utf8Bytes } from '../../lib/shared/text.js';
import { MemoryOffloadStore } from '../../lib/store/memory-store.js';
import { failMemoryCommits } from './fixtures/fail-memory-commits.js';
import { bigText, callTool, hookContext, middlewareOf, storeResult } from './offload-fixtures.js';

function setup() {
  const store = new MemoryOffloadStore();
  const offload = new ToolOutputOffload({ thresholdTokens: 1000, store });
  return { store, offload, key: middlewareOf(offload).writes[ToolOutputOffload.key] as StateKey };
}

describe('the offload state key', () => {
  it('starts empty and restores through the store', async () => {
    const { offload, key, store } = setup();
    expect(key.initial).toEqual({ entries: 0, totalBytes: 0, turns: [] });
    expect(key.onBlock).toBe('restore');
    const { value } = await storeResult(offload, bigText(100), { turnId: 'turn-1' });
    expect(value).toEqual({ entries: 1, totalBytes: utf8Bytes(bigText(100)), turns: ['turn-1'] });
    const settle = await middlewareOf(offload).beforeAgent(
      [],
      hookContext({ turnId: 'turn-2', state: { toolOutputOffload: value } }),
    );
    expect(settle).toEqual({ update: { toolOutputOffload: { type: 'settle', turns: ['turn-1'] } } });
    const settled = await key.apply!(value, settle!.update.toolOutputOffload, hookContext({ turnId: 'turn-2' }));
    expect(settled).toEqual({ entries: 1, totalBytes: utf8Bytes(bigText(100)), turns: [] });
    await storeResult(offload, bigText(120), { key: 'key-2', turnId: 'turn-2' });
    const restored = await key.restore!(key.initial, value, hookContext({ turnId: 'turn-2' }));
    // Back to the turns unsettled before the blocked turn: settling turn-1 again changes nothing.
    expect(restored).toEqual({ entries: 1, totalBytes: utf8Bytes(bigText(100)), turns: ['turn-1'] });
    expect((await store.list('t1')).map((e) => e.key)).toEqual(['key-1']);
  });

  it.each([
    [null, /expected a store change object, got null/],
    ['commit', /expected a store change object, got "commit"/],
    [
      { type: 'commit', threadId: 'other', key: 'k', turnId: 't', maxTotalBytes: 5 },
      /the change is for thread "other", but it was applied in thread "t1"/,
    ],
    [
      { type: 'commit', threadId: 't1', key: '', turnId: 't', maxTotalBytes: 5 },
      /a commit needs a non-empty string key/,
    ],
    [
      { type: 'commit', threadId: 't1', key: 'k', turnId: 't', maxTotalBytes: 0 },
      /maxTotalBytes as a positive integer, got 0/,
    ],
    [{ type: 'commit', threadId: 't1', key: 'k', maxTotalBytes: 5 }, /turnId must be a non-empty string/],
    [
      { type: 'drop', threadId: 't1', keys: 'k', turnId: 't', reason: 'summarized' },
      /a drop needs keys as an array of strings/,
    ],
    [
      { type: 'drop', threadId: 't1', keys: ['k'], turnId: 't', reason: 'bound' },
      /a drop's reason must be "summarized", got "bound"/,
    ],
    [
      { type: 'wipe', threadId: 't1', turnId: 't' },
      /type must be "commit", "drop", "context-cleared" or "settle", got "wipe"/,
    ],
    [{ type: 'settle', turns: 'turn-1' }, /a settle needs turns as an array of non-empty strings, got "turn-1"/],
    [{ type: 'settle', turns: [''] }, /a settle needs turns as an array of non-empty strings, got \[""\]/],
  ])('rejects the malformed update %j with a clear error, changing nothing', async (update, message) => {
    const { offload, key, store } = setup();
    await storeResult(offload, bigText(100));
    await expect(key.apply!(key.initial, update, hookContext())).rejects.toThrow(message);
    expect(await store.read('t1', 'key-1')).toBe(bigText(100));
  });

  it('does not fail on a full quota while committing: the thread keeps what it had and the failure is recorded', async () => {
    const { offload, key, store } = setup();
    await storeResult(offload, bigText(100));
    const outcome = await callTool(offload, bigText(120), { key: 'key-2' });
    vi.spyOn(store, 'apply').mockRejectedValueOnce(new DOMException('full', 'QuotaExceededError'));
    const update = outcome.type === 'success' ? outcome.update?.[ToolOutputOffload.key] : undefined;
    expect(await key.apply!(key.initial, update, hookContext())).toEqual({
      entries: 1,
      totalBytes: utf8Bytes(bigText(100)),
      turns: ['turn-1'],
    });
    expect(await store.failures('t1')).toEqual([
      expect.objectContaining({
        key: 'key-2',
        error: expect.stringMatching(/^QuotaExceededError: full \(while making \/large_tool_results\/key-2 live/),
      }),
    ]);
  });

  it('a commit the quota refuses even with nothing left to evict: the path the model was shown still reads (S3)', async () => {
    const { offload, key, store } = setup();
    await storeResult(offload, bigText(100));
    const outcome = await callTool(offload, bigText(120), { key: 'key-2' });
    const update = outcome.type === 'success' ? outcome.update?.[ToolOutputOffload.key] : undefined;
    const stop = failMemoryCommits(Number.POSITIVE_INFINITY);
    let value: unknown;
    try {
      value = await key.apply!(key.initial, update, hookContext());
    } finally {
      stop();
    }
    // key-1 was evicted to make room, and the commit still failed.
    expect(value).toEqual({ entries: 0, totalBytes: 0, turns: ['turn-1'] });
    expect((await store.evictions('t1')).map((e) => [e.key, e.reason])).toEqual([['key-1', 'quota']]);
    expect(await store.failures('t1')).toEqual([expect.objectContaining({ key: 'key-2', toolName: 'fetch_page' })]);
    expect(await offload.backend('t1').read('/key-2')).toBe(bigText(120));
    // Settling its turn keeps it readable.
    await key.apply!(value, { type: 'settle', turns: ['turn-1'] }, hookContext({ turnId: 'turn-2' }));
    expect(await offload.backend('t1').read('/key-2')).toBe(bigText(120));
  });

  it('lets any other store error through: a bug fails the run loudly', async () => {
    const { offload, key, store } = setup();
    const outcome = await callTool(offload, bigText(120));
    vi.spyOn(store, 'apply').mockRejectedValueOnce(new TypeError('broken'));
    const update = outcome.type === 'success' ? outcome.update?.[ToolOutputOffload.key] : undefined;
    await expect(key.apply!(key.initial, update, hookContext())).rejects.toThrow('broken');
  });
});
