// O11: reading stored results back never stores another. The file tools' results (read_file, grep,
// glob from '/', which search the mount too) are capped to within the threshold, never stored,
// whatever their own page size; the note they end with, saying how to continue, is kept.
import { describe, expect, it } from 'vitest';
import { ToolOutputOffload } from '../../lib/offload/tool-output-offload.js';
import type { Middleware } from '../../lib/runtime/middleware.js';
import { tool } from '../../lib/runtime/tool.js';
import { joinText } from '../../lib/shared/content.js';
import { estimateTokens } from '../../lib/shared/text.js';
import { scriptedModel } from '../../lib/testing.js';
import { calls, linesOf, offloadAgent, pathIn, reply, toolMessagesOf } from './offload-harness.js';

/** The text of the thread's tool message(s) from tool `name`, in order. */
async function toolTexts(agent: ReturnType<typeof offloadAgent>['agent'], name: string): Promise<string[]> {
  const messages = toolMessagesOf(await agent.messages('a'));
  return messages.filter((m) => m.toolName === name).map((m) => joinText(m.content));
}

const noteAboutSmallerPage =
  /\[Cut: this page is over the (\d+)-token limit for a tool result; only (its first \d+ of \d+ lines are|part of it is) shown\./;

/** The arguments of the read_file call a page's closing line names (B5). */
function continuation(page: string): { path: string; offset: number; limit: number } {
  return JSON.parse(/continue with read_file (\{.*\})\]$/.exec(page)![1]!);
}

describe('O11: file tools reading the mount are capped, never stored', () => {
  it.each([1000, 2500, 4800])(
    'grep from / with thresholdTokens %i: within the threshold, nothing stored, the continuation kept',
    async (thresholdTokens) => {
      // Lines long enough that grep's own page (at most 5000 tokens) is over any of these thresholds.
      const emit = calls(['emit', { lines: 400, width: 250 }]);
      const model = scriptedModel([emit, calls(['grep', { pattern: 'line' }]), reply()]);
      const { agent, store } = offloadAgent(model, { offload: { thresholdTokens }, maxPageTokens: 5000 });
      await agent.run('go', { threadId: 'a' });

      // Only emit's result was stored: grep searched the mount, and its result was not stored again.
      expect((await store.list('a')).map((entry) => entry.toolName)).toEqual(['emit']);
      const [page] = await toolTexts(agent, 'grep');
      expect(estimateTokens(page!)).toBeLessThanOrEqual(thresholdTokens);
      const lines = page!.split('\n');
      expect(lines.at(-1)).toMatch(
        /^\[showing \d+ of more than 100 matches; narrow the search with path or glob, or a more specific pattern\]$/,
      );
      expect(lines.at(-2)).toMatch(noteAboutSmallerPage);
      expect(lines.at(-2)).toContain('a narrower grep/glob');
      expect(lines.at(-2)).toContain(`${thresholdTokens}-token`);
      // Whole match lines only, each naming the stored result it came from.
      const matches = lines.slice(0, -2);
      expect(matches.length).toBeGreaterThan(0);
      for (const match of matches) expect(match).toMatch(/^\/large_tool_results\/[A-Za-z0-9_-]+:\d+: line \d+ \.+$/);
    },
  );

  it('glob from / lists within the threshold, stores nothing and keeps its continuation line', async () => {
    const model = scriptedModel([calls(['emit', { lines: 400 }]), calls(['glob', { pattern: '**' }]), reply()]);
    const { agent, store, files } = offloadAgent(model, { maxPageTokens: 5000 });
    for (let i = 0; i < 400; i++) await files.write(`/reports/quarterly-report-number-${i}-final.txt`, `report ${i}\n`);
    await agent.run('go', { threadId: 'a' });

    expect((await store.list('a')).map((entry) => entry.toolName)).toEqual(['emit']);
    const [page] = await toolTexts(agent, 'glob');
    expect(estimateTokens(page!)).toBeLessThanOrEqual(1000);
    const lines = page!.split('\n');
    expect(lines.at(-1)).toMatch(/^\[showing \d+ of 402 files; narrow the pattern\]$/);
    expect(lines.at(-2)).toMatch(noteAboutSmallerPage);
    expect(lines.at(-2)).toContain('a narrower grep/glob');
  });

  it('read_file with a huge limit is capped, says which offset continues it, and following that misses no line', async () => {
    let path = '';
    const model = scriptedModel([
      calls(['emit', { lines: 400 }]),
      (request) => {
        path = pathIn(joinText(toolMessagesOf(request.messages).at(-1)!.content));
        return calls(['read_file', { path, limit: 100_000 }]);
      },
      (request) => {
        const page = joinText(toolMessagesOf(request.messages).at(-1)!.content);
        return calls(['read_file', { ...continuation(page), limit: 20 }]);
      },
      reply(),
    ]);
    const { agent, store } = offloadAgent(model, { maxPageTokens: 5000 });
    await agent.run('go', { threadId: 'a' });

    expect((await store.list('a')).map((entry) => entry.toolName)).toEqual(['emit']);
    const [capped, next] = await toolTexts(agent, 'read_file');
    expect(estimateTokens(capped!)).toBeLessThanOrEqual(1000);
    const lines = capped!.split('\n');
    expect(lines.at(-2)).toMatch(noteAboutSmallerPage);
    const shown = lines.slice(0, -2);
    // read_file's closing line still comes last, worded for the lines shown: the call that continues the cut page.
    expect(lines.at(-1)).toBe(
      `[lines 1-${shown.length} of 400; continue with read_file {"path":"${path}","offset":${shown.length},"limit":2450}]`,
    );
    expect(shown.map((line) => Number(line.split('\t')[0]))).toEqual(shown.map((_, i) => i + 1));
    expect(lines.at(-2)).toContain('The call below continues where it stops.');
    // The offset the note gave starts right after the last line shown.
    expect(next!.split('\n')[0]).toMatch(new RegExp(`^\\s*${shown.length + 1}\\tline ${shown.length} `));
    expect(next).not.toContain('[Cut');
  });

  it('a page with no continuation line (the end of the file) ends with the note and the call that continues it', async () => {
    let path = '';
    const model = scriptedModel([
      calls(['emit', { lines: 400 }]),
      (request) => {
        path = pathIn(joinText(toolMessagesOf(request.messages).at(-1)!.content));
        return calls(['read_file', { path, offset: 300, limit: 100 }]);
      },
      reply(),
    ]);
    const { agent, store } = offloadAgent(model, { maxPageTokens: 50_000 });
    await agent.run('go', { threadId: 'a' });

    expect(await store.list('a')).toHaveLength(1);
    const [page] = await toolTexts(agent, 'read_file');
    expect(estimateTokens(page!)).toBeLessThanOrEqual(1000);
    const lines = page!.split('\n');
    expect(lines[0]).toMatch(/^\s*301\tline 300 /);
    expect(lines.at(-2)).toMatch(noteAboutSmallerPage);
    expect(continuation(page!)).toEqual({ path, offset: 300 + lines.length - 2, limit: 24_950 });
  });

  it('a file tool result within the threshold is left as it is', async () => {
    const model = scriptedModel([calls(['read_file', { path: '/notes.txt' }]), reply()]);
    const { agent, store } = offloadAgent(model, { maxPageTokens: 5000 });
    await agent.run('go', { threadId: 'a' });
    expect(await toolTexts(agent, 'read_file')).toEqual(['     1\tmy notes']);
    expect(await store.list('a')).toEqual([]);
  });
});

describe("O11: a file tool's own threshold (tools option) cuts its pages", () => {
  it("read_file's page is cut by its lines to read_file's threshold, through the middleware and readTools", async () => {
    let path = '';
    const model = scriptedModel([
      calls(['emit', { lines: 400 }]),
      (request) => {
        path = pathIn(joinText(toolMessagesOf(request.messages).at(-1)!.content));
        return calls(['read_file', { path, limit: 300 }]);
      },
      reply(),
    ]);
    const { agent, offload } = offloadAgent(model, {
      maxPageTokens: 50_000,
      offload: { thresholdTokens: 1000, tools: { read_file: { thresholdTokens: 3000 } } },
    });
    await agent.run('go', { threadId: 'a' });
    const [page] = await toolTexts(agent, 'read_file');
    const viaReadTools = await offload
      .readTools('a')
      .find((t) => t.name === 'read_file')!
      .run({ path, limit: 300 });
    for (const text of [page!, viaReadTools.text]) {
      expect(estimateTokens(text)).toBeLessThanOrEqual(3000);
      expect(estimateTokens(text)).toBeGreaterThan(2500);
      expect(text).toContain('over the 3000-token limit for a tool result');
      const shown = text.split('\n').filter((line) => /^\s*\d+\t/.test(line)).length;
      expect(text.split('\n').at(-1)).toMatch(
        new RegExp(
          `^\\[lines 1-${shown} of 400; continue with read_file \\{"path":"[^"]+","offset":${shown},"limit":\\d+\\}\\]$`,
        ),
      );
    }
  });
});

describe('O11: a { ...tool } copy of a file tool is still a file tool', () => {
  // The offload knows a file tool's result by the page it carries, not by the tool object: copies
  // keep `execute`, so their pages are cut by their lines, never stored, as the originals' are.
  it.each([
    ['read_file', (path: string) => ({ path, limit: 100_000 })],
    ['grep', () => ({ pattern: 'line' })],
    ['glob', () => ({ pattern: '**' })],
    ['ls', () => ({ path: '/' })],
  ] as const)('%s: the page is cut below the threshold, its closing line kept, nothing stored', async (name, args) => {
    const model = scriptedModel([
      calls(['emit', { lines: 400, width: 250 }]),
      (request) => calls([name, args(pathIn(joinText(toolMessagesOf(request.messages).at(-1)!.content)))]),
      reply(),
    ]);
    const { agent, store, files } = offloadAgent(model, { maxPageTokens: 5000, fileToolsAs: (t) => ({ ...t }) });
    for (let i = 0; i < 400; i++) await files.write(`/reports/quarterly-report-number-${i}-final.txt`, `line ${i}\n`);
    // More than one page of ls '/' lists, so ls too ends with its own closing line.
    for (let i = 0; i < 500; i++) await files.write(`/quarterly-report-number-${i}-final.txt`, `line ${i}\n`);
    await agent.run('go', { threadId: 'a' });

    expect((await store.list('a')).map((entry) => entry.toolName)).toEqual(['emit']);
    const [page] = await toolTexts(agent, name);
    expect(estimateTokens(page!)).toBeLessThanOrEqual(1000);
    const lines = page!.split('\n');
    // The page's own cut (not the generic cut of a text read from the mount), then the tool's closing line.
    expect(lines.at(-2)).toMatch(noteAboutSmallerPage);
    expect(lines.at(-1)).toMatch(
      /^\[(lines 1-\d+ of 400|showing \d+ of (more than 100 matches|\d+ files|\d+ entries));/,
    );
  });

  it('a copy whose execute wraps the original keeps its pages; a page changed on its way is an ordinary result', async () => {
    const model = scriptedModel([
      calls(['emit', { lines: 400, width: 250 }]),
      calls(['grep', { pattern: 'line' }]),
      calls(['grep', { pattern: 'line', path: '/reports' }]),
      reply(),
    ]);
    const reworded: Middleware = {
      name: 'Reword',
      // Only the search under /reports: a text changed on its way no longer is the page it was.
      async wrapToolCall(request, next) {
        const outcome = await next(request);
        const { path } = request.call.args as { path?: string };
        if (outcome.type !== 'success' || path !== '/reports') return outcome;
        return { ...outcome, content: [{ type: 'text', text: `${joinText(outcome.content)}\n(reworded)` }] };
      },
    };
    const { agent, store, files } = offloadAgent(model, {
      maxPageTokens: 5000,
      fileToolsAs: (made) => ({ ...made, execute: (args, context) => made.execute(args, context) }),
      inner: [reworded],
    });
    for (let i = 0; i < 400; i++) await files.write(`/reports/r${i}.txt`, `line ${i} ${'x'.repeat(200)}\n`);
    await agent.run('go', { threadId: 'a' });

    const [fromRoot, fromReports] = await toolTexts(agent, 'grep');
    expect(fromRoot!.split('\n').at(-2)).toMatch(noteAboutSmallerPage);
    // Not a page any more: an ordinary result over the threshold, stored as any other.
    expect(fromReports).toContain('/large_tool_results/');
    expect((await store.list('a')).map((entry) => entry.toolName)).toEqual(['emit', 'grep']);
  });
});

describe('O11: another tool reading the mount by path', () => {
  it('is cut, not stored', async () => {
    let offload: ToolOutputOffload | undefined;
    const peek = tool<{ path: string }>({
      name: 'peek',
      description: 'Returns a stored result whole.',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      execute: async ({ path }, context) =>
        offload!.backend(context.threadId).read(path.slice(ToolOutputOffload.mount.length - 1)),
    });
    const model = scriptedModel([
      calls(['emit', { lines: 400 }]),
      (request) => calls(['peek', { path: pathIn(joinText(toolMessagesOf(request.messages).at(-1)!.content)) }]),
      reply(),
    ]);
    const harness = offloadAgent(model, { tools: [peek], maxPageTokens: 5000 });
    offload = harness.offload;
    await harness.agent.run('go', { threadId: 'a' });

    expect((await harness.store.list('a')).map((entry) => entry.toolName)).toEqual(['emit']);
    const [text] = await toolTexts(harness.agent, 'peek');
    expect(estimateTokens(text!)).toBeLessThanOrEqual(1000);
    expect(text!.startsWith(linesOf(1))).toBe(true);
    expect(text).toContain('It was read from a stored result and is not stored again');
  });
});
