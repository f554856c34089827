import { describe, expect, it } from 'vitest';
import { ToolOutputOffload } from '../../lib/offload/tool-output-offload.js';
import { MemoryOffloadStore } from '../../lib/store/memory-store.js';
import { middlewareOf } from './offload-fixtures.js';

describe('ToolOutputOffload options (O10)', () => {
  it('has the documented defaults and static names', () => {
    const offload = new ToolOutputOffload();
    expect(offload.limits).toEqual({
      thresholdTokens: 20_000,
      maxResultBytes: 1_048_576,
      maxTotalBytes: 33_554_432,
      previewLines: 10,
      previewTailLines: 0,
    });
    expect(offload.tools).toEqual({});
    expect(ToolOutputOffload.key).toBe('toolOutputOffload');
    expect(ToolOutputOffload.mount).toBe('/large_tool_results/');
    expect(Object.keys(middlewareOf(offload).writes)).toEqual(['toolOutputOffload']);
  });

  it('uses the store it is given', () => {
    const store = new MemoryOffloadStore();
    expect(new ToolOutputOffload({ store }).store).toBe(store);
  });

  it.each([
    [{ thresholdTokens: 999 }, /ToolOutputOffload: thresholdTokens must be an integer of at least 1000, got 999/],
    [{ thresholdTokens: Number.NaN }, /thresholdTokens .*got NaN/],
    [{ thresholdTokens: 1500.5 }, /thresholdTokens .*got 1500.5/],
    [{ thresholdTokens: Number.POSITIVE_INFINITY }, /thresholdTokens .*got Infinity/],
    [{ thresholdTokens: '2000' }, /thresholdTokens .*got "2000"/],
    [{ maxResultBytes: 0 }, /maxResultBytes \(at most maxTotalBytes\) must be an integer from 1 to 33554432, got 0/],
    [
      { maxResultBytes: 2048, maxTotalBytes: 1024 },
      /maxResultBytes \(at most maxTotalBytes\) must be an integer from 1 to 1024, got 2048/,
    ],
    [{ maxResultBytes: 1.5 }, /maxResultBytes .*got 1.5/],
    [{ maxTotalBytes: 0 }, /maxTotalBytes must be an integer of at least 1, got 0/],
    [{ maxTotalBytes: -5 }, /maxTotalBytes .*got -5/],
    [{ previewLines: -1 }, /previewLines must be an integer of at least 0, got -1/],
    [{ previewLines: 2.5 }, /previewLines .*got 2.5/],
    [{ previewTailLines: -1 }, /previewTailLines must be an integer of at least 0, got -1/],
    [{ previewTailLines: 1.5 }, /previewTailLines .*got 1.5/],
    [{ maxAgeMs: 0 }, /ToolOutputOffload: maxAgeMs must be an integer from 1 to 315360000000, got 0/],
    [{ maxAgeMs: -1000 }, /maxAgeMs .*got -1000/],
    [{ maxAgeMs: 1.5 }, /maxAgeMs .*got 1.5/],
    [{ maxAgeMs: Number.NaN }, /maxAgeMs .*got NaN/],
    [{ maxAgeMs: Number.POSITIVE_INFINITY }, /maxAgeMs .*got Infinity/],
    [{ maxAgeMs: '86400000' }, /maxAgeMs .*got "86400000"/],
    [{ maxAgeMs: 315_360_000_001 }, /maxAgeMs .*from 1 to 315360000000, got 315360000001/],
    [
      { tools: { fetch_page: { thresholdTokens: 999 } } },
      /tools\["fetch_page"\].thresholdTokens must be an integer of at least 1000, got 999/,
    ],
    [{ tools: { grep_web: { thresholdTokens: Number.NaN } } }, /tools\["grep_web"\].thresholdTokens .*got NaN/],
    [{ tools: { a: {} } }, /tools\["a"\].thresholdTokens .*got undefined/],
  ])('rejects %j with a RangeError naming the option and range', (options, message) => {
    expect(() => new ToolOutputOffload(options as never)).toThrow(RangeError);
    expect(() => new ToolOutputOffload(options as never)).toThrow(message);
  });

  it('accepts the edges of every range', () => {
    const offload = new ToolOutputOffload({
      thresholdTokens: 1000,
      maxResultBytes: 1,
      maxTotalBytes: 1,
      previewLines: 0,
      previewTailLines: 0,
      tools: { fetch_page: { thresholdTokens: 1000 } },
    });
    expect(offload.limits).toEqual({
      thresholdTokens: 1000,
      maxResultBytes: 1,
      maxTotalBytes: 1,
      previewLines: 0,
      previewTailLines: 0,
    });
    expect(offload.tools).toEqual({ fetch_page: { thresholdTokens: 1000 } });
    // maxAgeMs: off unless given; from 1 ms to ten years.
    expect(new ToolOutputOffload({ maxAgeMs: 1 }).limits.maxAgeMs).toBe(1);
    expect(new ToolOutputOffload({ maxAgeMs: 315_360_000_000 }).limits.maxAgeMs).toBe(315_360_000_000);
    expect(new ToolOutputOffload({ maxAgeMs: undefined }).limits).not.toHaveProperty('maxAgeMs');
    expect(new ToolOutputOffload({ maxResultBytes: 4096, maxTotalBytes: 4096 }).limits.maxResultBytes).toBe(4096);
  });

  it('lowers the default maxResultBytes to a smaller maxTotalBytes instead of rejecting the defaults', () => {
    expect(new ToolOutputOffload({ maxTotalBytes: 10_000 }).limits.maxResultBytes).toBe(10_000);
  });

  it('rejects a store that is not an OffloadStore, and options that are not an object', () => {
    expect(() => new ToolOutputOffload({ store: {} as never })).toThrow(/store must be an OffloadStore/);
    expect(() => new ToolOutputOffload(null as never)).toThrow(/options must be an object/);
  });

  it('rejects tools and estimateTokens of the wrong shape with a TypeError naming the option', () => {
    expect(() => new ToolOutputOffload({ tools: [] as never })).toThrow(TypeError);
    expect(() => new ToolOutputOffload({ tools: 'x' as never })).toThrow(/tools must be an object of/);
    expect(() => new ToolOutputOffload({ tools: { fetch_page: 5000 as never } })).toThrow(
      /tools\["fetch_page"\] must be an object \{ thresholdTokens \}/,
    );
    expect(() => new ToolOutputOffload({ estimateTokens: 4 as never })).toThrow(
      /ToolOutputOffload: estimateTokens must be a function \(text\) => number, got number/,
    );
  });
});

describe('unknown options', () => {
  it('a misspelled option name is a TypeError naming it and the options there are', () => {
    expect(() => new ToolOutputOffload({ maxTotalByte: 1 } as never)).toThrow(
      /ToolOutputOffload: unknown option "maxTotalByte"; the options are thresholdTokens, maxResultBytes, maxTotalBytes/,
    );
  });
});

describe('the default store where indexedDB is missing (Node)', () => {
  it('is a memory store: results store and read back, and a listener hears them', async () => {
    const offload = new ToolOutputOffload({ thresholdTokens: 1000 });
    const events: string[] = [];
    offload.store.subscribe((event) => {
      if ('key' in event) events.push(`${event.type} ${event.key}`);
    });
    const content = 'x\n'.repeat(4000);
    const shown = await offload.offloadResult({ threadId: 't', callId: 'c', toolName: 'fetch', content });
    expect(shown.kind).toBe('stored');
    const key = shown.path!.slice(ToolOutputOffload.mount.length);
    expect(await offload.store.read('t', key)).toBe(content);
    expect(events).toEqual([`stored ${key}`]);
    await offload.close();
  });
});
