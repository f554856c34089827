import { describe, expect, it } from 'vitest';
import { createAgentLoop } from '../../lib/runtime/agent.js';
import { MemoryCheckpointer } from '../../lib/runtime/checkpoint.js';
import type { Message, ToolCall } from '../../lib/runtime/messages.js';
import type { Middleware } from '../../lib/runtime/middleware.js';
import { ToolOutcome } from '../../lib/runtime/outcome.js';
import { type Tool, type ToolContext, tool } from '../../lib/runtime/tool.js';
import { joinText } from '../../lib/shared/content.js';
import { scriptedModel } from '../../lib/testing.js';

// The runtime in a real browser (Chromium): no Node APIs, crypto.getRandomValues for ids,
// structuredClone for checkpoints, @cfworker/json-schema without eval.

const lookup = (run: (args: { q: string }, context: ToolContext) => Promise<string> | string): Tool =>
  tool<{ q: string }>({
    name: 'lookup',
    description: 'Looks something up',
    parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
    execute: run,
  });
const ask = (...calls: Array<[string, unknown]>) => ({
  content: '',
  toolCalls: calls.map(([name, args], i): ToolCall => ({ id: `c${i}`, name, args })),
});
const lines = (messages: readonly Message[]) =>
  messages.map((m) => `${m.role}${m.role === 'tool' && m.isError ? '!' : ''}: ${joinText(m.content)}`);
const tick = (ms = 0) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the agent runtime in Chromium', () => {
  it('runs tools in parallel, validates arguments, and applies updates one at a time', async () => {
    let active = 0;
    let maxActive = 0;
    const log: Middleware = {
      name: 'log',
      writes: {
        seen: {
          initial: [] as string[],
          async apply(current, update) {
            maxActive = Math.max(maxActive, ++active);
            await tick(3);
            active--;
            return [...(current as string[]), update as string];
          },
        },
      },
      async wrapToolCall(request, next) {
        const outcome = await next(request);
        return outcome.type === 'success'
          ? { ...outcome, update: { seen: (request.call.args as { q: string }).q } }
          : outcome;
      },
    };
    const model = scriptedModel([
      ask(['lookup', { q: 'a' }], ['lookup', { q: 'b' }], ['lookup', { q: 1 }]),
      { content: 'done' },
    ]);
    const agent = createAgentLoop({ model, tools: [lookup(async ({ q }) => `found ${q}`)], middleware: [log] });
    const result = await agent.run('go', { threadId: 't' });
    expect(result.status).toBe('completed');
    expect(lines(result.messages).slice(2, 5)).toEqual([
      'tool: found a',
      'tool: found b',
      'tool!: Invalid arguments for tool "lookup": args/q (type): Instance type "number" is invalid. Expected "string".',
    ]);
    expect(maxActive).toBe(1);
    expect(((await agent.state('t')).seen as string[]).sort()).toEqual(['a', 'b']);
  });

  it('pauses for approval and resumes with context.approved and the same idempotency key', async () => {
    const keys: Array<[string, boolean]> = [];
    const gate: Middleware = {
      name: 'gate',
      wrapToolCall: async (request, next, context) => {
        keys.push([context.idempotencyKey, context.approved]);
        return context.approved ? next(request) : ToolOutcome.needsApproval('may I?');
      },
    };
    const model = scriptedModel([ask(['lookup', { q: 'x' }]), { content: 'ok' }]);
    const agent = createAgentLoop({ model, tools: [lookup(({ q }) => `found ${q}`)], middleware: [gate] });
    expect(await agent.run('go', { threadId: 't' })).toMatchObject({ status: 'awaiting-approval', reason: 'may I?' });
    const result = await agent.resume('t', { approved: true });
    expect(result.status).toBe('completed');
    expect(keys).toHaveLength(2);
    expect(keys[0]![0]).toMatch(/^[A-Za-z0-9_-]{12}$/);
    expect(keys[1]).toEqual([keys[0]![0], true]);
  });

  it('a new agent recovers a crashed turn, rerunning the unfinished call with the same key', async () => {
    const saved = new MemoryCheckpointer();
    const keys: string[] = [];
    const keyed = (result: () => Promise<string> | string) =>
      lookup((_args, context) => {
        keys.push(context.idempotencyKey);
        return result();
      });
    const first = createAgentLoop({
      model: scriptedModel([ask(['lookup', { q: 'x' }])]),
      tools: [keyed(() => new Promise<string>(() => {}))],
      checkpointer: saved,
    });
    void first.run('go', { threadId: 't' });
    await tick(10);
    // The tab closes: only what was saved survives, and a new agent picks the thread up.
    const snapshot = new MemoryCheckpointer();
    await snapshot.save('t', await saved.load('t'));
    const model = scriptedModel([{ content: 'recovered' }]);
    const second = createAgentLoop({ model, tools: [keyed(() => 'found')], checkpointer: snapshot });
    const result = await second.recover('t');
    expect(result.status).toBe('completed');
    expect(lines(result.messages)).toEqual(['user: go', 'assistant: ', 'tool: found', 'assistant: recovered']);
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
  });

  it('an abort resolves failed/aborted, and a timeout becomes a tool error', async () => {
    const controller = new AbortController();
    const slow = createAgentLoop({ model: () => new Promise(() => {}) });
    const run = slow.run('go', { threadId: 't', signal: controller.signal });
    await tick(5);
    controller.abort();
    expect(await run).toMatchObject({ status: 'failed', reason: 'aborted' });

    const model = scriptedModel([ask(['lookup', { q: 'x' }]), { content: 'gave up' }]);
    const timed = createAgentLoop({ model, tools: [lookup(() => new Promise<string>(() => {}))], toolTimeoutMs: 20 });
    const result = await timed.run('go', { threadId: 't' });
    expect(lines(result.messages)[2]).toBe('tool!: Tool "lookup" timed out after 20 ms');
  });
});
