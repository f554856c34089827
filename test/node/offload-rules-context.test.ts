// Rules O7–O12 end to end: cleanup, Block, the request bound, options, no read loop, system prompt.
import { describe, expect, it } from 'vitest';
import type { Message } from '../../lib/runtime/messages.js';
import { block, type Middleware } from '../../lib/runtime/middleware.js';
import { ToolOutcome } from '../../lib/runtime/outcome.js';
import { isTextPart } from '../../lib/shared/content.js';
import { estimateTokens, utf8Bytes } from '../../lib/shared/text.js';
import { Summarization } from '../../lib/summarization/summarization.js';
import { scriptedModel } from '../../lib/testing.js';
import {
  calls,
  fakeSummarization,
  lastToolText,
  linesOf,
  offloadAgent,
  pathIn,
  reply,
  toolMessagesOf,
} from './offload-harness.js';

const toolIds = (messages: readonly Message[]) => toolMessagesOf(messages).map((m) => m.id);

describe('O7: with Summarization, results a summary covers are dropped at the next model step', () => {
  it('drops only covered results, with reason summarized', async () => {
    const model = scriptedModel([
      calls(['emit', { lines: 100, tag: 'covered' }]),
      reply('first turn'),
      calls(['emit', { lines: 100, tag: 'kept' }]),
      reply('second turn'),
    ]);
    // Covers the tool messages of the first turn only (those that exist when the first turn ends).
    let covered: string[] | undefined;
    const summarization = fakeSummarization((messages) => {
      covered ??= toolIds(messages);
      return covered;
    });
    const { agent, store } = offloadAgent(model, { outer: [summarization] });
    await agent.run('one', { threadId: 'a' });
    expect(await store.list('a')).toHaveLength(1);
    await agent.run('two', { threadId: 'a' });
    const entries = await store.list('a');
    expect(entries).toHaveLength(1);
    expect(await store.read('a', entries[0]!.key)).toContain('kept 0');
    expect((await store.evictions('a')).map((e) => e.reason)).toEqual(['summarized']);
  });

  it('works with the real Summarization middleware', async () => {
    const summarizer = async () => ({ content: 'Earlier: the first emit was read.' });
    const model = scriptedModel([
      calls(['emit', { lines: 100, tag: 'early' }]),
      calls(['emit', { lines: 100, tag: 'late' }]),
      calls(['ls', { path: '/' }]), // this step's request is summarized: the early result is covered
      reply(), // the next step drops it
    ]);
    const summarization = new Summarization({ model: summarizer, triggerTokens: 600, keepMessages: 2 });
    const { agent, store } = offloadAgent(model, { outer: [summarization] });
    expect((await agent.run('go', { threadId: 'a' })).status).toBe('completed');
    const entries = await store.list('a');
    expect(entries).toHaveLength(1);
    expect(await store.read('a', entries[0]!.key)).toContain('late 0');
    expect((await store.evictions('a')).map((e) => e.reason)).toEqual(['summarized']);
  });

  it('drops nothing without a summarization state', async () => {
    const model = scriptedModel([calls(['emit', { lines: 100 }]), reply(), reply()]);
    const { agent, store } = offloadAgent(model);
    await agent.run('one', { threadId: 'a' });
    await agent.run('two', { threadId: 'a' });
    expect(await store.list('a')).toHaveLength(1);
    expect(await store.evictions('a')).toEqual([]);
  });
});

describe('O8: an output Block restores the key', () => {
  it('removes what the blocked turn stored and brings back, byte for byte, what it evicted', async () => {
    const keeper = `${'é😀'.repeat(1200)}\n${linesOf(40)}`;
    const guard: Middleware = {
      name: 'OutputGuard',
      afterAgent: (output) => (JSON.stringify(output.content).includes('SECRET') ? block('leak') : undefined),
    };
    const model = scriptedModel([
      calls(['emit', { text: keeper }]),
      reply('fine'),
      calls(['emit', { lines: 100, tag: 'b1' }], ['emit', { lines: 100, tag: 'b2' }]),
      reply('SECRET'),
    ]);
    const bound = utf8Bytes(keeper) + utf8Bytes(linesOf(100)) + 10;
    const { agent, store } = offloadAgent(model, { outer: [guard], offload: { maxTotalBytes: bound } });
    await agent.run('one', { threadId: 'a' });
    const before = await store.list('a');
    const stateBefore = await agent.state('a');

    const events: string[] = [];
    store.subscribe((event) => {
      if ('key' in event) events.push(`${event.type} ${event.key === before[0]!.key ? 'keeper' : 'new'}`);
    });
    const blocked = await agent.run('two', { threadId: 'a' });
    expect(blocked.status).toBe('blocked');
    const after = await store.list('a');
    expect(after.map((e) => e.key)).toEqual(before.map((e) => e.key));
    expect(await store.read('a', before[0]!.key)).toBe(keeper);
    expect(await store.totalBytes('a')).toBe(utf8Bytes(keeper));
    expect(await agent.state('a')).toEqual(stateBefore);
    // The turn evicted the keeper to fit its own results; the Block undid both.
    expect(events).toEqual([
      'stored new',
      'evicted keeper',
      'stored new',
      'evicted new',
      'restored keeper',
      'evicted new',
    ]);
    expect((await store.evictions('a')).map((e) => e.reason)).toEqual(['blocked', 'blocked']);
  });
});

describe('O9: every tool result sent is within the threshold, whoever produced it', () => {
  it('cuts a denial from an outer middleware and an outer rewrite as they are sent, keeping media and ids', async () => {
    const denier: Middleware = {
      name: 'Denier',
      async wrapToolCall(request, next) {
        if (request.call.name === 'ls') return ToolOutcome.error(`Denied: ${'no '.repeat(3000)}`);
        const outcome = await next(request);
        if (outcome.type !== 'success') return outcome;
        return { ...outcome, content: [...outcome.content, { type: 'text', text: 'padding '.repeat(1000) }] };
      },
    };
    const model = scriptedModel([calls(['ls', { path: '/' }], ['emit', { lines: 100, image: true }]), reply()]);
    const { agent } = offloadAgent(model, { outer: [denier] });
    await agent.run('go', { threadId: 'a' });
    const [denied, padded] = toolMessagesOf(model.requests[1]!.messages);
    for (const message of [denied!, padded!]) {
      const text = message.content.filter(isTextPart).map((p) => p.text);
      expect(text).toHaveLength(1);
      expect(estimateTokens(text[0]!)).toBeLessThanOrEqual(1000);
      expect(text[0]).toMatch(/\[Cut: this tool result has \d+ characters .* The full text was not stored\.\]$/);
    }
    expect(denied!.toolName).toBe('ls');
    expect(denied!.isError).toBe(true);
    expect(padded!.content.at(-1)).toEqual({ type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' });
    const asked = model.requests[1]!.messages.find((m) => m.role === 'assistant');
    expect(asked?.role === 'assistant' && asked.toolCalls.map((c) => c.id)).toEqual([
      denied!.toolCallId,
      padded!.toolCallId,
    ]);
    // The thread keeps what it had: only the request was cut.
    const kept = toolMessagesOf(await agent.messages('a'));
    expect((kept[0]!.content[0] as { text: string }).text).toBe(`Denied: ${'no '.repeat(3000)}`);
  });
});

describe('O10: options are checked in the constructor', () => {
  it('throws a RangeError before any agent runs', () => {
    expect(() => offloadAgent(scriptedModel([]), { offload: { thresholdTokens: 999 } })).toThrow(RangeError);
  });
});

describe('O11: reading a stored result never stores another', () => {
  it('cuts an over-threshold read of the mount instead of offloading it', async () => {
    const model = scriptedModel([
      calls(['emit', { lines: 400 }]),
      (request) => calls(['read_file', { path: pathIn(lastToolText(request)), limit: 300 }]),
      (request) => calls(['grep', { pattern: 'line', path: pathIn(lastToolText(request, 2)) }]),
      reply(),
    ]);
    const { agent, store } = offloadAgent(model, { maxPageTokens: 5000 });
    await agent.run('go', { threadId: 'a' });
    expect(await store.list('a')).toHaveLength(1);
    for (const request of model.requests.slice(2)) {
      const page = lastToolText(request);
      expect(estimateTokens(page)).toBeLessThanOrEqual(1000);
      expect(page).toContain('[Cut: this page is over the 1000-token limit');
      // grep says to ask for a smaller page; read_file names the call that continues it (B5).
      expect(page).toMatch(/a smaller limit|The call below continues where it stops/);
    }
  });
});

describe('O12: a bounded system prompt section', () => {
  it('tells the model where large results are and how to read them', async () => {
    const model = scriptedModel([reply()]);
    const { agent, offload } = offloadAgent(model);
    await agent.run('go', { threadId: 'a' });
    const section = offload.systemPrompt();
    expect(model.requests[0]!.systemPrompt).toContain(section);
    expect(section).toContain('/large_tool_results/');
    expect(section).toMatch(/read_file.*offset.*limit/);
    expect(section).toContain('grep');
    expect(estimateTokens(section)).toBeLessThanOrEqual(120);
  });
});
