// OffloadBackend on its own: a read-only file system over one thread's stored results (O4, O6).

import { beforeEach, describe, expect, it } from 'vitest';
import { OffloadBackend } from '../../lib/offload/offload-backend.js';
import { ToolOutputOffload } from '../../lib/offload/tool-output-offload.js';
import { BackendError } from '../../lib/shared/errors.js';
import { utf8Bytes } from '../../lib/shared/text.js';
import { MemoryOffloadStore } from '../../lib/store/memory-store.js';
import type { WritableOffloadStore } from '../../lib/store/offload-store.js';
import { StoreReadError } from '../../lib/store/store-read-error.js';
import { failure } from './backend-failure.js';
import { bigText, storeResult } from './offload-fixtures.js';

const alpha = `${bigText(60)}\nneedle in alpha\n${bigText(10)}`;
const beta = `${bigText(70)}\nanother needle é\n`;

/** A store (a custom one, as a user may write) whose every read throws `error`; whole-text reads only. */
function failingReads(error: Error): WritableOffloadStore {
  return { read: () => Promise.reject(error) } as Partial<WritableOffloadStore> as WritableOffloadStore;
}

describe('OffloadBackend', () => {
  let store: MemoryOffloadStore;
  let offload: ToolOutputOffload;
  let backend: OffloadBackend;

  beforeEach(async () => {
    store = new MemoryOffloadStore();
    offload = new ToolOutputOffload({ thresholdTokens: 1000, store });
    await storeResult(offload, alpha, { key: 'alpha' });
    await storeResult(offload, beta, { key: 'beta' });
    await storeResult(offload, bigText(80), { key: 'other', threadId: 't2' });
    backend = offload.backend('t1');
  });

  it('lists this thread’s results as files, sized in stored bytes', async () => {
    expect(await backend.ls('/')).toEqual([
      { path: '/alpha', size: utf8Bytes(alpha) },
      { path: '/beta', size: utf8Bytes(beta) },
    ]);
    expect(await backend.ls('/beta')).toEqual([{ path: '/beta', size: utf8Bytes(beta) }]);
  });

  it('reads whole texts and 0-based line pages that concatenate back to the text', async () => {
    expect(await backend.read('/alpha')).toBe(alpha);
    expect(await backend.read('/alpha', { offset: 60, limit: 1 })).toBe('needle in alpha\n');
    const pages: string[] = [];
    for (let offset = 0; offset < 71; offset += 25) pages.push(await backend.read('/alpha', { offset, limit: 25 }));
    expect(pages.join('')).toBe(alpha);
    expect(await backend.readLines('/alpha', { offset: 60, limit: 1 })).toEqual({
      text: 'needle in alpha\n',
      totalLines: 71,
    });
    expect(await backend.readLines('/alpha', { offset: 80 })).toEqual({ text: '', totalLines: 71 });
  });

  it('says how many lines there are when the offset is past the end', async () => {
    const error = await failure(backend.read('/beta', { offset: 500 }));
    expect(error.code).toBe('invalid-argument');
    expect(error.message).toContain('the file has 71 lines (/large_tool_results/beta)');
  });

  it('greps this thread’s results with line numbers from 1, and one file by path', async () => {
    expect(await backend.grep('needle')).toEqual([
      { path: '/alpha', line: 61, text: 'needle in alpha', column: 1 },
      { path: '/beta', line: 71, text: 'another needle é', column: 9 },
    ]);
    expect(await backend.grep('needle', { path: '/beta' })).toEqual([
      { path: '/beta', line: 71, text: 'another needle é', column: 9 },
    ]);
    expect(await backend.grep('needle', { glob: 'al*' })).toEqual([
      { path: '/alpha', line: 61, text: 'needle in alpha', column: 1 },
    ]);
    expect(await backend.grep('no such thing')).toEqual([]);
  });

  it('globs over this thread’s results', async () => {
    expect((await backend.glob('*')).map((f) => f.path)).toEqual(['/alpha', '/beta']);
    expect((await backend.glob('b*')).map((f) => f.path)).toEqual(['/beta']);
    expect(await backend.glob('other')).toEqual([]);
  });

  it('sees only its own thread’s results', async () => {
    expect((await failure(backend.read('/other'))).code).toBe('not-found');
    expect((await offload.backend('t2').ls('/')).map((f) => f.path)).toEqual(['/other']);
    expect(await offload.backend('t3').ls('/')).toEqual([]);
  });

  it('fails write and edit with read-only, changing nothing', async () => {
    const write = await failure(backend.write('/alpha', 'changed'));
    expect(write.code).toBe('read-only');
    expect(write.message).toBe(
      '"/large_tool_results/alpha" is read-only: /large_tool_results/ holds stored tool results, which cannot be written',
    );
    expect((await failure(backend.edit('/new', 'a', 'b'))).code).toBe('read-only');
    expect(await backend.read('/alpha')).toBe(alpha);
    expect(await backend.ls('/')).toHaveLength(2);
  });

  it('says "evicted", the full path and why when a result was evicted (O4)', async () => {
    await store.apply({ type: 'drop', threadId: 't1', keys: ['alpha'], turnId: 'turn-2', reason: 'summarized' });
    for (const attempt of [backend.read('/alpha'), backend.ls('/alpha'), backend.grep('x', { path: '/alpha' })]) {
      const error = await failure(attempt);
      expect(error.code).toBe('evicted');
      expect(error.message).toContain('/large_tool_results/alpha');
      expect(error.message).toContain('evicted because a summary now covers');
    }
    expect((await backend.ls('/')).map((f) => f.path)).toEqual(['/beta']);
  });

  it.each([
    ['bound', "was evicted to keep the thread's stored results within maxTotalBytes (the oldest results go first)."],
    ['summarized', 'was evicted because a summary now covers the conversation that produced it.'],
    ['blocked', 'was evicted because the turn that stored it was blocked by an output check.'],
    ['replaced', 'was evicted because a rerun of the same call replaced it.'],
    [
      'expired',
      'was evicted because it expired: it was older than the age limit (maxAgeMs). It was evicted at 2026-01-02T03:04:05.000Z.',
    ],
    ['cleared', "was evicted because the thread's stored results were cleared (clearThread)."],
  ] as const)('words the store\'s reason "%s" for the model, with the full path (O4)', async (reason, words) => {
    const eviction = { threadId: 't1', key: 'alpha', path: '/large_tool_results/alpha', bytes: 5, reason };
    const evicted = new StoreReadError('t1', 'alpha', { eviction: { ...eviction, at: Date.UTC(2026, 0, 2, 3, 4, 5) } });
    const error = await failure(new OffloadBackend(failingReads(evicted), 't1').read('/alpha'));
    expect(error.code).toBe('evicted');
    expect(error.message).toBe(`/large_tool_results/alpha ${words}`);
  });

  it("keeps a custom store's own words for 'evicted'; names the full path for its 'not-found'", async () => {
    const evicted = new BackendError('evicted', 'alpha went away: the archive rotated');
    expect(await failure(new OffloadBackend(failingReads(evicted), 't1').read('/alpha'))).toBe(evicted);
    const missing = new BackendError('not-found', 'no such key');
    const error = await failure(new OffloadBackend(failingReads(missing), 't1').read('/alpha'));
    expect(error.message).toBe('/large_tool_results/alpha not found: no tool result was stored under this path.');
  });

  it('greps a custom store without readChunks by reading its texts whole', async () => {
    const custom = { read: async () => 'one\nneedle here\n' } as Partial<WritableOffloadStore> as WritableOffloadStore;
    expect(await new OffloadBackend(custom, 't1').grep('needle', { path: '/alpha' })).toEqual([
      { path: '/alpha', line: 2, text: 'needle here', column: 1 },
    ]);
  });

  it('says "not found" with the full path for a result that never existed', async () => {
    const error = await failure(backend.read('/never'));
    expect(error.code).toBe('not-found');
    expect(error.message).toBe('/large_tool_results/never not found: no tool result was stored under this path.');
  });

  it.each([
    ['', /path "" is empty/],
    ['/../alpha', /contains a '\.\.' segment/],
    ['alpha', /is relative/],
    ['/alpha/more', /"\/large_tool_results\/alpha\/more" is not a stored result/],
    [`/${'k'.repeat(65)}`, /is not a stored result: they are named \/large_tool_results\/<key>, where key is 1 to 64/],
    ['/a.txt', /is not a stored result/],
    [42, /path 42 must be a string, got number/],
  ])('rejects the bad path %j with invalid-path', async (path, message) => {
    const error = await failure(backend.read(path as string));
    expect(error.code).toBe('invalid-path');
    expect(error.message).toMatch(message);
    expect(await backend.read('/alpha')).toBe(alpha); // nothing lost
  });

  it('rejects an invalid regex, and bad read options, naming them', async () => {
    const regex = await failure(backend.grep('(unclosed'));
    expect(regex.code).toBe('invalid-argument');
    expect(regex.message).toContain('"(unclosed"');
    expect((await failure(backend.read('/alpha', { offset: -1 }))).message).toMatch(
      /offset must be an integer of at least 0/,
    );
    expect((await failure(backend.read('/', {}))).message).toMatch(/is a directory/);
  });

  it('needs a thread id', () => {
    expect(() => offload.backend('')).toThrow(/threadId must be a non-empty string/);
  });
});

describe('OffloadBackend over a store that keeps texts in chunks', () => {
  it('pages through only the lines asked for, and counts lines without reading the text', async () => {
    const store = new MemoryOffloadStore({ chunkChars: 100 });
    const offload = new ToolOutputOffload({ thresholdTokens: 1000, store });
    const text = bigText(300);
    await storeResult(offload, text, { key: 'big' });
    const asked: string[] = [];
    const read = store.read.bind(store);
    const readLines = store.readLines.bind(store);
    store.read = (threadId, key) => {
      asked.push(`read ${key}`);
      return read(threadId, key);
    };
    store.readLines = (threadId, key, offset, limit) => {
      asked.push(`readLines ${key} ${offset} ${limit}`);
      return readLines(threadId, key, offset, limit);
    };
    const backend = offload.backend('t1');
    const pages: string[] = [];
    for (let offset = 0; offset < 300; offset += 70) pages.push(await backend.read('/big', { offset, limit: 70 }));
    expect(pages.join('')).toBe(text);
    expect(await backend.readLines('/big', { offset: 10, limit: 5 })).toEqual({
      text: text
        .split('\n')
        .slice(10, 15)
        .map((line) => `${line}\n`)
        .join(''),
      totalLines: 300,
    });
    expect((await failure(backend.read('/big', { offset: 300 }))).message).toContain('the file has 300 lines');
    expect(asked).toEqual([
      ...[0, 70, 140, 210, 280].map((offset) => `readLines big ${offset} 70`),
      'readLines big 10 5',
      'readLines big 300 undefined',
    ]);
  });
});
