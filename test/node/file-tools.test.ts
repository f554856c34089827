import { describe, expect, it } from 'vitest';
import { fileTools } from '../../lib/agent/file-tools.js';
import type { Backend } from '../../lib/backends/backend.js';
import { CompositeBackend } from '../../lib/backends/composite-backend.js';
import { MemoryBackend } from '../../lib/backends/memory-backend.js';
import { createAgentLoop } from '../../lib/runtime/agent.js';
import type { Middleware } from '../../lib/runtime/middleware.js';
import type { ToolOutcome, ToolResult } from '../../lib/runtime/outcome.js';
import type { Tool, ToolContext } from '../../lib/runtime/tool.js';
import { BackendError } from '../../lib/shared/errors.js';
import { estimateTokens } from '../../lib/shared/text.js';
import { scriptedModel } from '../../lib/testing.js';
import { successText, toolContext } from '../browser/fixtures/tool-context.js';

const context = toolContext;

function toolsOver(backend: Backend | ((c: ToolContext) => Backend), maxPageTokens?: number) {
  const tools = fileTools(backend, maxPageTokens === undefined ? {} : { maxPageTokens });
  const byName = new Map(tools.map((t) => [t.name, t]));
  return async (name: string, args: unknown, ctx = context()): Promise<ToolResult> =>
    successText(await (byName.get(name) as Tool).execute(args, ctx));
}

/** The text of a successful result. */
function text(result: ToolResult): string {
  if (typeof result !== 'string') throw new Error(`expected success text, got ${JSON.stringify(result)}`);
  return result;
}

function errorOf(result: ToolResult): string {
  const outcome = result as ToolOutcome;
  if (typeof result === 'string' || Array.isArray(result) || outcome.type !== 'error') {
    throw new Error(`expected an error outcome, got ${JSON.stringify(result).slice(0, 300)}`);
  }
  return outcome.message;
}

const numbered = (count: number) => Array.from({ length: count }, (_, i) => `line ${i + 1}`).join('\n');

describe('read_file (B3)', () => {
  it('numbers lines from offset + 1 and says how to continue', async () => {
    const run = toolsOver(new MemoryBackend({ '/log.txt': numbered(250) }));
    const first = text(await run('read_file', { path: '/log.txt' }));
    const lines = first.split('\n');
    expect(lines[0]).toBe('     1\tline 1');
    expect(lines[99]).toBe('   100\tline 100');
    // The closing line is the exact call that shows what comes next, asking for as much as a page holds (B5).
    expect(lines[100]).toBe(
      '[lines 1-100 of 250; continue with read_file {"path":"/log.txt","offset":100,"limit":2450}]',
    );
    const middle = text(await run('read_file', { path: '/log.txt', offset: 100, limit: 2 }));
    expect(middle).toBe(
      '   101\tline 101\n   102\tline 102\n[lines 101-102 of 250; continue with read_file {"path":"/log.txt","offset":102,"limit":2450}]',
    );
    const last = text(await run('read_file', { path: '/log.txt', offset: 240 }));
    expect(last.split('\n')).toHaveLength(10);
    expect(last.endsWith('   250\tline 250')).toBe(true); // the end: no continuation note
  });

  it('an offset past the end is an error that says how many lines the file has', async () => {
    const run = toolsOver(new MemoryBackend({ '/a.txt': 'one\ntwo\nthree\n' }));
    expect(errorOf(await run('read_file', { path: '/a.txt', offset: 3 }))).toBe(
      'offset 3 is past the end: the file has 3 lines (/a.txt)',
    );
  });

  it('a missing file says not found; bad arguments say what is wrong', async () => {
    const run = toolsOver(new MemoryBackend({ '/a.txt': 'x' }));
    expect(errorOf(await run('read_file', { path: '/missing.txt' }))).toBe('not found: /missing.txt');
    expect(errorOf(await run('read_file', { path: 'a.txt' }))).toContain('is relative');
    expect(errorOf(await run('read_file', { path: '/../a.txt' }))).toContain("'..' segment");
    expect(errorOf(await run('read_file', { path: '/a.txt', offset: -1 }))).toBe(
      'offset must be an integer of at least 0, got -1',
    );
    expect(errorOf(await run('read_file', { path: '/a.txt', limit: 2.5 }))).toBe(
      'limit must be an integer of at least 1, got 2.5',
    );
    expect(errorOf(await run('read_file', { path: '/a.txt', offset: '3' }))).toContain('got "3"');
  });

  it('an empty file reads as such', async () => {
    const run = toolsOver(new MemoryBackend({ '/e.txt': '' }));
    expect(text(await run('read_file', { path: '/e.txt' }))).toBe('/e.txt is empty (0 lines)');
  });

  it('caps a page of 100 lines × 10,000 characters under maxPageTokens, whole lines that fit, no line cut', async () => {
    const wide = Array.from({ length: 100 }, (_, i) => `${i}:${'w'.repeat(10_000)}`).join('\n');
    const run = toolsOver(new MemoryBackend({ '/wide.txt': wide }));
    const page = text(await run('read_file', { path: '/wide.txt' }));
    expect(estimateTokens(page)).toBeLessThanOrEqual(5000);
    expect(page).not.toContain('line cut');
    expect(page.split('\n')[0]).toBe(`     1\t0:${'w'.repeat(10_000)}`);
    const note = page.split('\n').at(-1)!;
    const match =
      /^\[lines 1-(\d+) of 100; page capped at 5000 tokens; continue with read_file \{"path":"\/wide.txt","offset":(\d+),"limit":2450\}\]$/.exec(
        note,
      );
    expect(match).not.toBeNull();
    expect(match![1]).toBe(match![2]);
    const next = text(await run('read_file', { path: '/wide.txt', offset: Number(match![2]) }));
    expect(next.startsWith(`${String(Number(match![2]) + 1).padStart(6)}\t${match![2]}:`)).toBe(true);
    expect(estimateTokens(next)).toBeLessThanOrEqual(5000);
  });

  it('pages a single 3 MB line in parts to its end, within maxPageTokens, following each closing call (B5)', async () => {
    const line = `[${'"x",'.repeat(750_000)}"end"]`;
    const backend = new MemoryBackend({ '/one-line.json': line });
    for (const maxPageTokens of [undefined, 1000]) {
      const run = toolsOver(backend, maxPageTokens);
      let args: Record<string, unknown> = { path: '/one-line.json' };
      let read = '';
      let calls = 0;
      for (;;) {
        const page = text(await run('read_file', args));
        calls++;
        expect(estimateTokens(page)).toBeLessThanOrEqual(maxPageTokens ?? 5000);
        const rows = page.split('\n');
        expect(rows[0]).toMatch(/^ {5}1\t\[part of line 1: characters (\d+)-(\d+) of 3000007\]$/);
        const [, from, to] = /characters (\d+)-(\d+)/.exec(rows[0]!)!;
        expect(Number(from)).toBe(read.length + 1);
        read += rows[1]!;
        expect(read.length).toBe(Number(to));
        const next = /continue with read_file (\{.*\})\]$/.exec(rows.at(-1)!);
        if (next === null) break;
        args = JSON.parse(next[1]!);
      }
      expect(read).toBe(line);
      // As much as a page holds each time.
      expect(calls).toBeLessThanOrEqual(Math.ceil(line.length / ((maxPageTokens ?? 5000) * 4 - 400 - 100)));
    }
  });

  it('refuses hostile numbers: offset, limit and charOffset must be safe integers', async () => {
    const run = toolsOver(new MemoryBackend({ '/a.txt': 'abc\n' }));
    expect(errorOf(await run('read_file', { path: '/a.txt', limit: 2 ** 53 + 2 }))).toBe(
      'limit must be an integer of at least 1, got 9007199254740994',
    );
    expect(errorOf(await run('read_file', { path: '/a.txt', offset: 2 ** 53 + 2 }))).toContain('offset must be');
    expect(errorOf(await run('read_file', { path: '/a.txt', charOffset: 2 ** 60 }))).toContain('charOffset must be');
    expect(errorOf(await run('read_file', { path: '/a.txt', charOffset: 3 }))).toBe(
      'charOffset 3 is past the end of line 1, which has 3 characters (/a.txt)',
    );
  });

  it('reads a page and the line count in one call of the backend, options checked once', async () => {
    const inner = new MemoryBackend({ '/f': numbered(30) });
    const calls: string[] = [];
    const spy: Backend = {
      ...bind(inner),
      readLines: (p, o) => {
        calls.push(`readLines ${o?.offset} ${o?.limit}`);
        return inner.readLines(p, o);
      },
    };
    const run = toolsOver(spy);
    expect(text(await run('read_file', { path: '/f', limit: 10 }))).toContain('[lines 1-10 of 30;');
    expect(calls).toEqual(['readLines 0 10']);
    calls.length = 0;
    await run('read_file', { path: '/f', offset: 20 });
    expect(calls).toEqual(['readLines 20 100']);
    calls.length = 0;
    const past = await run('read_file', { path: '/f', offset: 40 });
    expect(past).toMatchObject({ type: 'error', message: 'offset 40 is past the end: the file has 30 lines (/f)' });
    expect(calls).toEqual(['readLines 40 100']);
    calls.length = 0;
    const bad = await run('read_file', { path: '/f', limit: 0 });
    expect(bad).toMatchObject({ type: 'error', message: 'limit must be an integer of at least 1, got 0' });
  });

  it('counts lines by reading the file again when the backend has no readLines and the page does not reach the end', async () => {
    const inner = new MemoryBackend({ '/f': numbered(30) });
    const calls: string[] = [];
    const spy: Backend = {
      ...bind(inner),
      read: (p, o) => {
        calls.push(`read ${o?.offset ?? 'whole'}`);
        return inner.read(p, o);
      },
    };
    const run = toolsOver(spy);
    expect(text(await run('read_file', { path: '/f', limit: 5 }))).toContain('[lines 1-5 of 30;');
    expect(calls).toEqual(['read 0', 'read whole']);
    calls.length = 0;
    await run('read_file', { path: '/f', offset: 20 });
    expect(calls).toEqual(['read 20']);
  });
});

/** A Backend with only the required methods (no readLines). */
function bind(backend: MemoryBackend): Backend {
  return {
    ls: (p) => backend.ls(p),
    read: (p, o) => backend.read(p, o),
    grep: (p, o) => backend.grep(p, o),
    glob: (p, o) => backend.glob(p, o),
    write: (p, c) => backend.write(p, c),
    edit: (p, a, b) => backend.edit(p, a, b),
  };
}

describe('grep, ls and glob tools', () => {
  const files = () =>
    new MemoryBackend({ '/src/a.ts': 'const a = 1;\nexport { a };\n', '/src/b.md': 'A note\n', '/top.txt': 'top\n' });

  it('grep reports path:line: text; no match is a plain success that says so', async () => {
    const run = toolsOver(files());
    expect(text(await run('grep', { pattern: 'export' }))).toBe('/src/a.ts:2: export { a };');
    expect(text(await run('grep', { pattern: 'zebra', path: '/src', glob: '*.ts' }))).toBe(
      'No matches for "zebra" in "/src" (files matching "*.ts")',
    );
  });

  it('grep: an invalid regex is an error naming the pattern', async () => {
    const run = toolsOver(files());
    expect(errorOf(await run('grep', { pattern: '[a-' }))).toMatch(/^invalid regular expression "\[a-": /);
  });

  it('grep caps the matches it returns and says so', async () => {
    const run = toolsOver(new MemoryBackend({ '/many.txt': numbered(5230) }));
    const out = text(await run('grep', { pattern: 'line' }));
    const lines = out.split('\n');
    expect(lines).toHaveLength(101);
    expect(lines[100]).toBe(
      '[showing 100 of more than 100 matches; narrow the search with path or glob, or a more specific pattern]',
    );
  });

  it('grep shows a long line around the match, within the page bound', async () => {
    // 80 matches of ~300 characters each exceed 5000 tokens: the budget, not the count, cuts the list.
    const long = `${'a'.repeat(200_000)}NEEDLE${'b'.repeat(200_000)}`;
    const run = toolsOver(
      new MemoryBackend(Object.fromEntries(Array.from({ length: 80 }, (_, i) => [`/f${i}`, long]))),
    );
    const out = text(await run('grep', { pattern: 'NEEDLE' }));
    // The line is longer than a page: the match says which read_file call shows its part (B5).
    const first = out.split('\n')[0]!;
    const call = /^\/f0:1: …a+NEEDLEb+… \[line 1 has 400006 characters; this part: read_file (\{.*\})\]$/.exec(first);
    expect(call).not.toBeNull();
    expect(text(await run('read_file', JSON.parse(call![1]!)))).toContain('NEEDLE');
    expect(out.split('\n').at(-1)).toMatch(
      /^\[showing \d+ of 80 matches; narrow the search with path or glob, or a more specific pattern\]$/,
    );
    expect(estimateTokens(out)).toBeLessThanOrEqual(5000);
  });

  it('ls marks directories; glob lists matching files; both cap long listings', async () => {
    const run = toolsOver(files());
    expect(text(await run('ls', { path: '/' }))).toBe('/src/\n/top.txt (4 bytes)');
    expect(text(await run('glob', { pattern: '**/*.ts' }))).toBe('/src/a.ts (27 bytes)');
    expect(text(await run('glob', { pattern: '*.png' }))).toBe('No files match "*.png" in "/"');
    expect(errorOf(await run('ls', { path: '/nowhere' }))).toBe('not found: /nowhere');

    const many = Object.fromEntries(
      Array.from({ length: 5000 }, (_, i) => [`/d/${String(i).padStart(5, '0')}.txt`, 'x']),
    );
    const big = toolsOver(new MemoryBackend(many));
    for (const out of [text(await big('ls', { path: '/d' })), text(await big('glob', { pattern: '**' }))]) {
      expect(estimateTokens(out)).toBeLessThanOrEqual(5000);
      expect(out.split('\n').at(-1)).toMatch(/^\[showing \d+ of 5000 (entries|files); /);
    }
  });
});

describe('write_file and edit_file', () => {
  it('write then edit, with a summary of what changed', async () => {
    const backend = new MemoryBackend();
    const run = toolsOver(backend);
    expect(text(await run('write_file', { path: '/n.txt', content: 'a\nb\n' }))).toBe(
      'Wrote /n.txt (2 lines, 4 bytes)',
    );
    expect(text(await run('edit_file', { path: '/n.txt', old_text: 'b', new_text: 'c' }))).toBe(
      'Edited /n.txt: replaced 1 occurrence of old_text',
    );
    expect(await backend.read('/n.txt')).toBe('a\nc\n');
  });

  it('edit with 0 or 2 matches, or empty old_text, is an error and changes nothing', async () => {
    const backend = new MemoryBackend({ '/n.txt': 'x\nx\n' });
    const run = toolsOver(backend);
    expect(errorOf(await run('edit_file', { path: '/n.txt', old_text: 'y', new_text: 'z' }))).toBe(
      'old text not found in /n.txt',
    );
    expect(errorOf(await run('edit_file', { path: '/n.txt', old_text: 'x', new_text: 'z' }))).toContain(
      'found 2 times',
    );
    expect(errorOf(await run('edit_file', { path: '/n.txt', old_text: '', new_text: 'z' }))).toContain(
      'old_text is empty',
    );
    expect(errorOf(await run('write_file', { path: '/n.txt', content: 5 }))).toBe('content must be a string, got 5');
    expect(await backend.read('/n.txt')).toBe('x\nx\n');
  });
});

describe('fileTools', () => {
  it('gives every tool a strict JSON Schema and a description', () => {
    const tools = fileTools(new MemoryBackend());
    expect(tools.map((t) => t.name)).toEqual(['read_file', 'ls', 'grep', 'glob', 'write_file', 'edit_file']);
    for (const t of tools) {
      expect(t.parameters).toMatchObject({ type: 'object', additionalProperties: false });
      expect(t.description.length).toBeGreaterThan(20);
    }
  });

  it('passes BackendError messages (evicted, read-only) to the model as errors; other exceptions propagate', async () => {
    const failing = (error: Error): Backend => ({
      ...bind(new MemoryBackend()),
      read: async () => {
        throw error;
      },
    });
    const evicted = new BackendError('evicted', '/large_tool_results/k was evicted to keep the store within its bound');
    expect(errorOf(await toolsOver(failing(evicted))('read_file', { path: '/x' }))).toBe(evicted.message);
    await expect(toolsOver(failing(new TypeError('bug')))('read_file', { path: '/x' })).rejects.toThrow('bug');
  });

  it('chooses the backend per call from the context', async () => {
    const byThread: Record<string, MemoryBackend> = {
      a: new MemoryBackend({ '/f': 'thread a' }),
      b: new MemoryBackend({ '/f': 'thread b' }),
    };
    const run = toolsOver((ctx) => byThread[ctx.threadId]!);
    expect(text(await run('read_file', { path: '/f' }, context('b')))).toBe('     1\tthread b');
    const broken = toolsOver(() => undefined as unknown as Backend);
    await expect(broken('ls', { path: '/' })).rejects.toThrow(/did not return a Backend/);
  });

  it('rejects bad options and a non-backend with clear errors', () => {
    expect(() => fileTools({} as Backend)).toThrow(/needs a Backend/);
    expect(() => fileTools(new MemoryBackend(), { maxPageTokens: 999 })).toThrow(
      /maxPageTokens must be an integer of at least 1000, got 999/,
    );
    expect(() => fileTools(new MemoryBackend(), { maxPageTokens: 1.5 })).toThrow(RangeError);
  });
});

describe('tool results in a run (B3, B4)', () => {
  it('keep their toolCallId and toolName whatever a middleware did to their content', async () => {
    const files = new CompositeBackend(new MemoryBackend(), { '/mem/': new MemoryBackend({ '/a.txt': 'hello\n' }) });
    const rewrite: Middleware = {
      name: 'rewrite',
      async wrapToolCall(request, next) {
        const outcome = await next(request);
        return outcome.type === 'success'
          ? { type: 'success', content: [{ type: 'text', text: 'replaced' }] }
          : outcome;
      },
    };
    const model = scriptedModel([
      {
        content: '',
        toolCalls: [
          { id: 'c1', name: 'read_file', args: { path: '/mem/a.txt' } },
          { id: 'c2', name: 'grep', args: { pattern: '(' } },
          { id: 'c3', name: 'grep', args: { pattern: 'nothing-here' } },
        ],
      },
      { content: 'done' },
    ]);
    const agent = createAgentLoop({ model, tools: fileTools(files), middleware: [rewrite] });
    const result = await agent.run('go', { threadId: 't' });
    expect(result.status).toBe('completed');
    const toolMessages = result.messages.filter((m) => m.role === 'tool');
    expect(toolMessages.map((m) => [m.toolCallId, m.toolName, m.isError])).toEqual([
      ['c1', 'read_file', false],
      ['c2', 'grep', true],
      ['c3', 'grep', false],
    ]);
    expect(toolMessages[0]!.content).toEqual([{ type: 'text', text: 'replaced' }]);
    expect(JSON.stringify(toolMessages[1]!.content)).toContain('invalid regular expression \\"(\\"');
  });
});
