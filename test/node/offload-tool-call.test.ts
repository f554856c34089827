// wrapToolCall called directly with hand-made contexts: what the model is shown and what is stored.
import { describe, expect, it, vi } from 'vitest';
import { ToolOutputOffload } from '../../lib/offload/tool-output-offload.js';
import { estimateTokens, utf8Bytes } from '../../lib/shared/text.js';
import { MemoryOffloadStore } from '../../lib/store/memory-store.js';
import { bigText, callTool, storeResult, textOf } from './offload-fixtures.js';

const threshold = 1000; // 4000 characters

function offloadWith(options: ConstructorParameters<typeof ToolOutputOffload>[0] = {}) {
  const store = new MemoryOffloadStore();
  return { store, offload: new ToolOutputOffload({ thresholdTokens: threshold, store, ...options }) };
}

describe('wrapToolCall: deciding and storing (O1)', () => {
  it('passes a result within the threshold through unchanged, storing nothing', async () => {
    const { store, offload } = offloadWith();
    const text = 'x'.repeat(4000); // exactly 1000 tokens: not over
    const outcome = await callTool(offload, text);
    expect(outcome).toEqual({ type: 'success', content: [{ type: 'text', text }] });
    expect(await store.list('t1')).toEqual([]);
  });

  it('stores a result one character over, shows a header naming the path and the first lines', async () => {
    const { store, offload } = offloadWith();
    const text = bigText(100); // 100 lines of 80 characters, ~8100 characters
    const { outcome, value } = await storeResult(offload, text, { key: 'abc_123', toolName: 'fetch_page' });
    const shown = textOf(outcome);
    expect(shown).toContain('Path: /large_tool_results/abc_123');
    expect(shown).toContain('"fetch_page"');
    expect(shown).toContain(
      `Original size: ${utf8Bytes(text)} bytes, about ${estimateTokens(text)} tokens, 100 lines.`,
    );
    expect(shown).toContain(`Stored: all ${utf8Bytes(text)} bytes (100 lines).`);
    expect(shown).toContain('read_file {"path":"/large_tool_results/abc_123","offset":10,"limit":2450}');
    expect(shown).toContain('grep {"pattern":"<regex>","path":"/large_tool_results/abc_123"}');
    expect(shown).toContain('First 10 of 100 lines:');
    expect(shown.endsWith(text.split('\n').slice(0, 10).join('\n'))).toBe(true);
    expect(shown).not.toContain('line 10 ');
    expect(estimateTokens(shown)).toBeLessThanOrEqual(threshold);
    expect(value).toEqual({ entries: 1, totalBytes: utf8Bytes(text), turns: ['turn-1'] });
    expect(await store.read('t1', 'abc_123')).toBe(text);
    const [entry] = await store.list('t1');
    expect(entry).toMatchObject({
      key: 'abc_123',
      path: '/large_tool_results/abc_123',
      toolName: 'fetch_page',
      bytes: utf8Bytes(text),
      originalBytes: utf8Bytes(text),
      truncated: false,
      preview: shown,
    });
  });

  it('joins all text parts to measure and store them', async () => {
    const { store, offload } = offloadWith();
    const parts = [
      { type: 'text' as const, text: 'a'.repeat(2500) },
      { type: 'text' as const, text: 'b'.repeat(2500) },
    ];
    await storeResult(offload, parts);
    expect(await store.read('t1', 'key-1')).toBe(`${'a'.repeat(2500)}\n${'b'.repeat(2500)}`);
  });

  it('cuts the stored copy to maxResultBytes on a character boundary and says so', async () => {
    const { store, offload } = offloadWith({ maxResultBytes: 10_001, maxTotalBytes: 50_000 });
    const text = '€'.repeat(6000); // 3 bytes each: 18000 bytes; 10001 is not a character boundary
    const { outcome } = await storeResult(offload, text);
    const stored = await store.read('t1', 'key-1');
    expect(stored).toBe('€'.repeat(3333));
    expect(utf8Bytes(stored)).toBe(9999);
    expect(textOf(outcome)).toContain(
      'Stored: the first 9999 bytes (1 line) only; the text was cut to the maxResultBytes limit',
    );
    expect((await store.list('t1'))[0]).toMatchObject({ bytes: 9999, originalBytes: 18000, truncated: true });
  });

  it('stores a text of exactly maxResultBytes whole, and one byte more cut', async () => {
    const { store, offload } = offloadWith({ maxResultBytes: 6000, maxTotalBytes: 50_000 });
    const exact = `${'é'.repeat(1000)}${'a'.repeat(4000)}`; // 5000 characters (over the threshold), 6000 bytes
    await storeResult(offload, exact);
    expect(await store.read('t1', 'key-1')).toBe(exact);
    expect((await store.list('t1'))[0]).toMatchObject({ bytes: 6000, originalBytes: 6000, truncated: false });
    await storeResult(offload, `${exact}b`, { key: 'key-2' });
    expect(await store.read('t1', 'key-2')).toBe(exact);
    expect((await store.list('t1'))[1]).toMatchObject({ bytes: 6000, originalBytes: 6001, truncated: true });
  });

  it('keeps a surrogate pair whole when cutting', async () => {
    const { store, offload } = offloadWith({ maxResultBytes: 4099 });
    await storeResult(offload, '😀'.repeat(3000)); // 4 bytes each
    expect(await store.read('t1', 'key-1')).toBe('😀'.repeat(1024));
  });

  it('keeps the preview of a huge single line (3 MB) within the threshold', async () => {
    const { offload } = offloadWith();
    const { outcome } = await storeResult(offload, 'y'.repeat(3_000_000));
    const shown = textOf(outcome);
    expect(estimateTokens(shown)).toBeLessThanOrEqual(threshold);
    expect(shown).toContain('First 1 of 1 line:');
    expect(shown).toContain('"offset":0,');
    expect(shown).toMatch(/y… \[line cut: \d+ of 1048576 characters shown\]$/);
  });

  it('shows only what fits when many long lines would overflow the threshold', async () => {
    const { offload } = offloadWith({ previewLines: 1000 });
    const shown = textOf((await storeResult(offload, bigText(200, 700))).outcome);
    expect(estimateTokens(shown)).toBeLessThanOrEqual(threshold);
    const count = Number(/First (\d+) of 200 lines:/.exec(shown)?.[1]);
    expect(count).toBeGreaterThan(3);
    expect(count).toBeLessThan(10);
    expect(shown).toContain('"offset":0,'); // the first line was cut: reading on starts there
    expect(shown.match(/\[line cut: \d+ of 700 characters shown\]/g)).toHaveLength(count);
  });

  it('shows only the header with previewLines 0', async () => {
    const { offload } = offloadWith({ previewLines: 0 });
    const shown = textOf((await storeResult(offload, bigText(100))).outcome);
    expect(shown).not.toContain('line 0');
    expect(shown).not.toContain('First');
    expect(shown).toContain('"offset":0');
  });

  it('stages an error over the threshold and keeps it an error (O16); other outcomes, and small errors, pass alone', async () => {
    const { store, offload } = offloadWith();
    const error = { type: 'error' as const, message: 'x'.repeat(10_000) };
    const shown = await callTool(offload, error);
    expect(shown).toMatchObject({
      type: 'error',
      message: expect.stringContaining('[Stored tool result]'),
      update: { toolOutputOffload: { type: 'commit', key: 'key-1', toolName: 'fetch_page' } },
    });
    expect(await store.list()).toEqual([]); // staged: made live when the runtime applies the update
    const small = { type: 'error' as const, message: 'no such page' };
    expect(await callTool(offload, small)).toBe(small);
    const approval = { type: 'needs-approval' as const, reason: 'x'.repeat(10_000) };
    expect(await callTool(offload, approval)).toBe(approval);
  });

  it('keeps the inner update and adds its own', async () => {
    const { offload } = offloadWith();
    const outcome = await callTool(offload, {
      type: 'success',
      content: [{ type: 'text', text: bigText(100) }],
      update: { other: 1 },
    });
    expect(outcome.type === 'success' && outcome.update).toEqual({
      other: 1,
      toolOutputOffload: {
        type: 'commit',
        threadId: 't1',
        key: 'key-1',
        turnId: 'turn-1',
        maxTotalBytes: 33_554_432,
        toolName: 'fetch_page',
        bytes: new TextEncoder().encode(bigText(100)).length,
        truncated: false,
      },
    });
  });
});

describe('identity (O2)', () => {
  it('names the path after the idempotency key, never the provider call id', async () => {
    const { offload } = offloadWith();
    const first = textOf((await storeResult(offload, bigText(100), { key: 'k1', callId: 'same-id' })).outcome);
    const second = textOf((await storeResult(offload, bigText(120), { key: 'k2', callId: 'same-id' })).outcome);
    expect(first).toContain('/large_tool_results/k1');
    expect(second).toContain('/large_tool_results/k2');
    expect(first + second).not.toContain('same-id');
    const backend = offload.backend('t1');
    expect(await backend.read('/k1')).toBe(bigText(100));
    expect(await backend.read('/k2')).toBe(bigText(120));
  });

  it('a rerun of the same call replaces its own entry', async () => {
    const { store, offload } = offloadWith();
    await storeResult(offload, bigText(100), { key: 'k1' });
    const { value } = await storeResult(offload, bigText(150), { key: 'k1' });
    expect(await store.read('t1', 'k1')).toBe(bigText(150));
    expect(value).toEqual({ entries: 1, totalBytes: utf8Bytes(bigText(150)), turns: ['turn-1'] });
    expect((await store.evictions('t1')).map((e) => e.reason)).toEqual(['replaced']);
  });
});

describe('content parts (O5)', () => {
  it('passes every non-text part on, unchanged and in order, after the preview', async () => {
    const { store, offload } = offloadWith();
    const image = { type: 'image' as const, mimeType: 'image/png', data: 'iVBORw0KGgo=' };
    const file = { type: 'file' as const, mimeType: 'application/pdf', data: 'JVBERi0=', name: 'a.pdf' };
    const { outcome } = await storeResult(offload, [image, { type: 'text', text: bigText(100) }, file]);
    expect(outcome.type === 'success' && outcome.content.slice(1)).toEqual([image, file]);
    expect(outcome.type === 'success' && outcome.content[0]?.type).toBe('text');
    expect(await store.read('t1', 'key-1')).toBe(bigText(100));
  });

  it('never offloads media, however large', async () => {
    const { store, offload } = offloadWith();
    const image = { type: 'image' as const, mimeType: 'image/png', data: 'A'.repeat(100_000) };
    const outcome = await callTool(offload, [{ type: 'text', text: 'small' }, image]);
    expect(outcome).toEqual({ type: 'success', content: [{ type: 'text', text: 'small' }, image] });
    expect(await store.list()).toEqual([]);
  });

  it('turns a non-string text part into a clear tool error, storing nothing', async () => {
    const { store, offload } = offloadWith();
    const outcome = await callTool(offload, [{ type: 'text', text: 42 as never }]);
    expect(outcome).toEqual({
      type: 'error',
      message: 'result of tool "fetch_page"[0].text must be a string, got number',
    });
    expect(await store.list()).toEqual([]);
  });
});

describe('storage failures (S3)', () => {
  it('cuts the result with a note when stage fails, names no path, and reports the failure', async () => {
    const { store, offload } = offloadWith();
    await storeResult(offload, bigText(60), { key: 'earlier' });
    vi.spyOn(store, 'stage').mockRejectedValue(new DOMException('The quota has been exceeded.', 'QuotaExceededError'));
    const outcome = await callTool(offload, bigText(100), { key: 'k-full' });
    const shown = textOf(outcome);
    expect(outcome.type === 'success' && outcome.update).toBeUndefined();
    expect(estimateTokens(shown)).toBeLessThanOrEqual(threshold);
    expect(shown.startsWith('line 0 ')).toBe(true);
    expect(shown).toContain('It could not be stored (QuotaExceededError: The quota has been exceeded.)');
    expect(shown).not.toContain('/large_tool_results/');
    expect(await store.failures('t1')).toEqual([
      expect.objectContaining({
        key: 'k-full',
        toolName: 'fetch_page',
        error: 'QuotaExceededError: The quota has been exceeded.',
      }),
    ]);
    expect(await store.read('t1', 'earlier')).toBe(bigText(60)); // nothing stored is lost
  });

  it('still answers when reporting the failure fails too', async () => {
    const { store, offload } = offloadWith();
    vi.spyOn(store, 'stage').mockRejectedValue(new Error('disk gone'));
    vi.spyOn(store, 'reportFailure').mockRejectedValue(new Error('still gone'));
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    expect(textOf(await callTool(offload, bigText(100)))).toContain('It could not be stored (disk gone)');
    expect(warn).toHaveBeenCalled();
    warn.mockRestore();
  });

  it.each([
    ['x'.repeat(65), /the idempotency key is 65 characters long \(at most 64\)/],
    ['../etc', /the idempotency key "..\/etc" has characters other than/],
    ['', /the idempotency key is empty/],
  ])('does not store under an odd idempotency key %j from a custom runtime', async (key, why) => {
    const { store, offload } = offloadWith();
    const shown = textOf(await callTool(offload, bigText(100), { key }));
    expect(shown).toMatch(why);
    expect(shown).not.toContain('/large_tool_results/');
    expect(estimateTokens(shown)).toBeLessThanOrEqual(threshold);
    expect(await store.list()).toEqual([]);
  });
});
