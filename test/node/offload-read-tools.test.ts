import { describe, expect, it } from 'vitest';
import { fileTools } from '../../lib/agent/file-tools.js';
import { CompositeBackend } from '../../lib/backends/composite-backend.js';
import { MemoryBackend } from '../../lib/backends/memory-backend.js';
import { ToolOutputOffload } from '../../lib/offload/tool-output-offload.js';
import type { ToolOutcome } from '../../lib/runtime/outcome.js';
import type { Tool } from '../../lib/runtime/tool.js';
import { MemoryOffloadStore } from '../../lib/store/memory-store.js';
import { successText, toolContext } from '../browser/fixtures/tool-context.js';

/** 400 lines of about 100 characters: over 1000 tokens, and a 300-line page is over 5000 tokens. */
const big = Array.from({ length: 400 }, (_, i) => `row ${i} ${'y'.repeat(90)}`).join('\n');

async function setup(thresholdTokens = 1000) {
  const store = new MemoryOffloadStore();
  const offload = new ToolOutputOffload({ store, thresholdTokens, maxTotalBytes: 100_000 });
  const shown = await offload.offloadResult({ threadId: 't', callId: 'call_1', toolName: 'fetch', content: big });
  const tools = new Map(offload.readTools('t').map((tool) => [tool.name, tool]));
  const run = (name: string, args: unknown) => tools.get(name)!.run(args);
  // The same file tools, as this package's runtime runs them, over the same mount.
  const builtIn = new Map(
    fileTools(new CompositeBackend(new MemoryBackend(), { [ToolOutputOffload.mount]: offload.backend('t') })).map(
      (tool) => [tool.name, tool as Tool],
    ),
  );
  const runBuiltIn = async (name: string, args: unknown) => {
    const result = successText(await builtIn.get(name)!.execute(args, toolContext('t')));
    if (typeof result === 'string') return { text: result, isError: false };
    const outcome = result as ToolOutcome;
    return {
      text: outcome.type === 'error' ? outcome.message : JSON.stringify(outcome),
      isError: outcome.type === 'error',
    };
  };
  return { store, offload, shown, tools, run, runBuiltIn, path: shown.path! };
}

describe('ToolOutputOffload.readTools: the read-only tools for other frameworks', () => {
  it('declares read_file, grep, ls and glob with JSON Schemas of the arguments the issue names', async () => {
    const { tools } = await setup();
    expect([...tools.keys()]).toEqual(['read_file', 'grep', 'ls', 'glob']);
    const properties = (name: string) =>
      Object.keys((tools.get(name)!.parameters as { properties: object }).properties);
    expect(properties('read_file')).toEqual(['path', 'offset', 'limit', 'charOffset']);
    expect(properties('grep')).toEqual(['pattern', 'path']);
    expect(properties('ls')).toEqual(['path']);
    expect(properties('glob')).toEqual(['pattern', 'path']);
    for (const tool of tools.values()) expect(tool.description.length).toBeGreaterThan(20);
  });

  it('reads, greps, lists and globs a stored result with the same texts as fileTools', async () => {
    // A threshold over fileTools' page (5000 tokens), so no page needs the cut below.
    const { run, runBuiltIn, path } = await setup(5000);
    const calls: Array<[string, unknown]> = [
      ['read_file', { path, offset: 10, limit: 3 }],
      ['read_file', { path }],
      ['grep', { pattern: 'row 12[0-9] ', path }],
      ['grep', { pattern: 'nothing here' }],
      ['ls', { path: '/large_tool_results/' }],
      ['glob', { pattern: '**', path: '/large_tool_results' }],
      ['read_file', { path: '/large_tool_results/missing' }],
      ['read_file', { path, offset: 5000 }],
      ['grep', { pattern: '(' }],
      // Paths at and outside the mount, as an agent mounting the backend in a CompositeBackend sees them.
      ['ls', { path: '/' }],
      ['ls', { path: '/elsewhere' }],
      ['read_file', { path: '/notes.txt' }],
      ['grep', { pattern: 'row 3', path: '/' }],
      ['grep', { pattern: 'row', path: '/elsewhere' }],
      ['glob', { pattern: '*' }],
      ['glob', { pattern: '**' }],
      ['glob', { pattern: '/large_tool_results/*', path: '/large_tool_results' }],
      ['glob', { pattern: '*', path: '/elsewhere' }],
    ];
    for (const [name, args] of calls) expect(await run(name, args)).toEqual(await runBuiltIn(name, args));
    const page = await run('read_file', { path, offset: 10, limit: 3 });
    expect(page.text).toBe(
      `    11\trow 10 ${'y'.repeat(90)}\n    12\trow 11 ${'y'.repeat(90)}\n    13\trow 12 ${'y'.repeat(90)}\n[lines 11-13 of 400; continue with read_file {"path":"${path}","offset":13,"limit":2450}]`,
    );
  });

  it('answers bad arguments, missing and evicted paths with isError and a text saying what was wrong, never a throw', async () => {
    const { run, offload, path } = await setup();
    expect(await run('read_file', { path, offset: -1 })).toEqual({
      text: expect.stringMatching(/^Invalid arguments for tool "read_file": args\/offset/),
      isError: true,
    });
    expect(await run('read_file', { pth: path })).toMatchObject({
      isError: true,
      text: expect.stringContaining('path'),
    });
    expect(await run('grep', 'not json')).toMatchObject({ isError: true, text: expect.stringContaining('not JSON') });
    expect(await run('ls', { path: '/large_tool_results/../etc' })).toMatchObject({ isError: true });
    expect(await run('read_file', { path: '/large_tool_results/nope' })).toEqual({
      text: '/large_tool_results/nope not found: no tool result was stored under this path.',
      isError: true,
    });
    await offload.store.apply({
      type: 'drop',
      threadId: 't',
      keys: [path.split('/').pop()!],
      turnId: 'x',
      reason: 'summarized',
    });
    expect(await run('read_file', { path })).toEqual({ text: expect.stringContaining('was evicted'), isError: true });
  });

  it('never stores what it reads (A4): a page over the threshold is cut to whole lines with a note and the call that continues it', async () => {
    const { run, store, path } = await setup();
    const before = await store.list('t');
    const page = await run('read_file', { path, limit: 300 });
    expect(page.isError).toBe(false);
    expect(page.text.length).toBeLessThanOrEqual(4000);
    expect(page.text).toMatch(
      /\[Cut: this page is over the 1000-token limit[^\n]*The call below continues where it stops\.\]\n\[lines 1-\d+ of 400; continue with read_file \{"path":"[^"]+","offset":\d+,"limit":2450\}\]$/,
    );
    expect(await store.list('t')).toEqual(before);
  });

  it('sees only its own thread, and throws only for an aborted signal', async () => {
    const { offload, path } = await setup();
    const other = offload.readTools('u').find((tool) => tool.name === 'read_file')!;
    expect(await other.run({ path })).toMatchObject({ isError: true, text: expect.stringContaining('not found') });
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(other.run({ path }, { signal: controller.signal })).rejects.toThrow('stop');
    expect(() => offload.readTools('')).toThrow(/threadId must be a non-empty string/);
  });

  it('cutToThreshold leaves a text within the threshold alone and cuts a longer one with a note, storing nothing', async () => {
    const { offload, store } = await setup();
    const before = await store.list('t');
    expect(offload.cutToThreshold('short')).toBe('short');
    const cut = offload.cutToThreshold('z'.repeat(10_000));
    expect(cut.length).toBeLessThanOrEqual(4000);
    expect(cut).toMatch(/^z+\n\[Cut: this tool result has 10000 characters .* The full text was not stored\.\]$/);
    expect(() => offload.cutToThreshold(5 as never)).toThrow(/cutToThreshold: text must be a string/);
    expect(await store.list('t')).toEqual(before);
  });

  it('systemPrompt() gives the lines that tell the model where results are and how to read them', async () => {
    const { offload } = await setup();
    expect(offload.systemPrompt()).toContain('/large_tool_results/');
    expect(offload.systemPrompt()).toContain('read_file');
  });
});
