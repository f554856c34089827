import { describe, expect, it } from 'vitest';
import { fileTools } from '../../lib/agent/file-tools.js';
import { CompositeBackend } from '../../lib/backends/composite-backend.js';
import { MemoryBackend } from '../../lib/backends/memory-backend.js';
import type { ToolOutcome, ToolResult } from '../../lib/runtime/outcome.js';
import { cutToBytes, estimateTokens, utf8Bytes } from '../../lib/shared/text.js';
import { successText, toolContext } from './fixtures/tool-context.js';

const context = toolContext('browser');

describe('file tools in a real browser', () => {
  const mounted = new MemoryBackend({ '/big.txt': Array.from({ length: 500 }, (_, i) => `row ${i}`).join('\n') });
  const tools = fileTools(
    new CompositeBackend(new MemoryBackend({ '/readme.md': 'hello 😀\n' }), { '/mnt/': mounted }),
  );
  const run = (name: string, args: unknown): Promise<ToolResult> =>
    Promise.resolve(tools.find((t) => t.name === name)!.execute(args, context)).then(successText);

  it('reads a mounted file page by page and lists the mount at the root', async () => {
    const page = (await run('read_file', { path: '/mnt/big.txt', offset: 10, limit: 5 })) as string;
    expect(page.split('\n')[0]).toBe('    11\trow 10');
    expect(
      page.endsWith('[lines 11-15 of 500; continue with read_file {"path":"/mnt/big.txt","offset":15,"limit":2450}]'),
    ).toBe(true);
    expect(await run('ls', { path: '/' })).toBe('/mnt/\n/readme.md (11 bytes)');
    expect(await run('grep', { pattern: 'row 49[0-9]$', path: '/mnt' })).toContain('/mnt/big.txt:500: row 499');
  });

  it('reports errors as tool errors naming the whole path', async () => {
    expect((await run('read_file', { path: '/mnt/missing' })) as ToolOutcome).toEqual({
      type: 'error',
      message: 'not found: /mnt/missing',
    });
  });

  it('caps a 3 MB single-line file and cuts UTF-8 on character boundaries', async () => {
    await run('write_file', { path: '/mnt/line.txt', content: '中😀'.repeat(600_000) });
    const page = (await run('read_file', { path: '/mnt/line.txt' })) as string;
    expect(estimateTokens(page)).toBeLessThanOrEqual(5000);
    // 中 is 3 bytes, 😀 4: 13 bytes hold 中😀中 (10) but not the next 😀, which is never split.
    expect(cutToBytes('中😀'.repeat(10), 13)).toBe('中😀中');
    expect(cutToBytes('中😀'.repeat(10), 14)).toBe('中😀中😀');
    expect(utf8Bytes(cutToBytes('中😀'.repeat(10), 9))).toBe(7);
  });
});
