import { describe, expect, it } from 'vitest';
import { createAgent } from '../../lib/agent/create-agent.js';
import { block, type Middleware, type StateKey } from '../../lib/runtime/middleware.js';
import { ToolOutcome } from '../../lib/runtime/outcome.js';
import { scriptedModel } from '../../lib/testing.js';
import { call, calls, echo, makeTool, say, tick, transcript } from './runtime-fixtures.js';

const plain = (initial: unknown): StateKey => ({ initial });

describe('R7 writes', () => {
  it('createAgent throws when two middleware declare the same key, naming both', () => {
    const a: Middleware = { name: 'alpha', writes: { shared: plain(0) } };
    const b: Middleware = { name: 'beta', writes: { shared: plain(0) } };
    expect(() => createAgent({ model: scriptedModel([]), middleware: [a, b] })).toThrow(
      'state key "shared" is declared in the writes of both "alpha" and "beta"',
    );
  });

  const owner: Middleware = { name: 'owner', writes: { owned: plain('start') } };

  it.each([
    ['beforeAgent', { beforeAgent: () => ({ update: { owned: 'stolen' } }) }],
    ['wrapModelCall', { wrapModelCall: async (r, next) => ({ ...(await next(r)), update: { owned: 'stolen' } }) }],
    ['afterAgent', { afterAgent: () => ({ update: { owned: 'stolen' } }) }],
  ] satisfies Array<[string, Partial<Middleware>]>)(
    'a foreign write from %s fails the run naming the middleware and the key',
    async (hook, hooks) => {
      const thief: Middleware = { name: 'thief', ...hooks };
      const agent = createAgent({ model: scriptedModel([say('hi')]), middleware: [owner, thief] });
      const result = await agent.run('go', { threadId: 't' });
      expect(result.status).toBe('failed');
      expect(result.reason).toBe(
        `middleware "thief" wrote state key "owned" in ${hook}, but "owned" is not in its writes`,
      );
      expect(await agent.state('t')).toEqual({ owned: 'start' });
    },
  );

  it('wrapToolCall may pass an inner update through, but not add to or change a key outside its writes', async () => {
    const inner: Middleware = {
      name: 'inner',
      writes: { note: plain('') },
      async wrapToolCall(request, next) {
        const outcome = await next(request);
        return outcome.type === 'success' ? { ...outcome, update: { note: 'from inner' } } : outcome;
      },
    };
    const passThrough: Middleware = { name: 'outer', wrapToolCall: (request, next) => next(request) };
    const model = () => scriptedModel([calls(call('echo', { text: 'x' })), say('done')]);
    const ok = createAgent({ model: model(), tools: [echo], middleware: [passThrough, inner] });
    expect((await ok.run('go', { threadId: 't' })).status).toBe('completed');
    expect(await ok.state('t')).toEqual({ note: 'from inner' });

    const rewriter: Middleware = {
      name: 'rewriter',
      async wrapToolCall(request, next) {
        const outcome = await next(request);
        return outcome.type === 'success' ? { ...outcome, update: { note: 'rewritten' } } : outcome;
      },
    };
    const bad = createAgent({ model: model(), tools: [echo], middleware: [rewriter, inner] });
    const result = await bad.run('go', { threadId: 't' });
    expect(result.reason).toBe(
      'middleware "rewriter" wrote state key "note" in wrapToolCall, but "note" is not in its writes',
    );
    expect(await bad.state('t')).toEqual({ note: '' });
  });

  it('a retrying wrapToolCall may return an earlier attempt, with the inner update that attempt carried', async () => {
    let attempts = 0;
    // Writes its own key on every attempt, with a value of its own each time (as the offload does).
    const inner: Middleware = {
      name: 'inner',
      writes: { note: plain(null) },
      async wrapToolCall(request, next) {
        const outcome = await next(request);
        attempts += 1;
        return outcome.type === 'success' ? { ...outcome, update: { note: { attempt: attempts } } } : outcome;
      },
    };
    const retry: Middleware = {
      name: 'Retry',
      async wrapToolCall(request, next) {
        const first = await next(request);
        await next(request);
        return first;
      },
    };
    const agent = createAgent({
      model: scriptedModel([calls(call('echo', { text: 'x' })), say('done')]),
      tools: [echo],
      middleware: [retry, inner],
    });
    const result = await agent.run('go', { threadId: 't' });
    expect(result.reason).toBeUndefined();
    expect(result.status).toBe('completed');
    expect(attempts).toBe(2);
    expect(await agent.state('t')).toEqual({ note: { attempt: 1 } });
  });

  it('a retrying wrapToolCall that returns a value no attempt returned still writes, and fails outside its writes', async () => {
    const inner: Middleware = {
      name: 'inner',
      writes: { note: plain(null) },
      async wrapToolCall(request, next) {
        const outcome = await next(request);
        return outcome.type === 'success' ? { ...outcome, update: { note: { from: 'inner' } } } : outcome;
      },
    };
    const forger: Middleware = {
      name: 'forger',
      async wrapToolCall(request, next) {
        const first = await next(request);
        await next(request);
        // Equal to what inner returned, but a value of its own: a write.
        return first.type === 'success' ? { ...first, update: { note: { from: 'inner' } } } : first;
      },
    };
    const agent = createAgent({
      model: scriptedModel([calls(call('echo', { text: 'x' })), say('never')]),
      tools: [echo],
      middleware: [forger, inner],
    });
    const result = await agent.run('go', { threadId: 't' });
    expect(result).toMatchObject({
      status: 'failed',
      reason: 'middleware "forger" wrote state key "note" in wrapToolCall, but "note" is not in its writes',
    });
    expect(await agent.state('t')).toEqual({ note: null });
  });

  it("a tool's own update fails the run: only middleware may write state", async () => {
    const sneaky = makeTool('sneaky', () => ToolOutcome.success('ok', { owned: 'by tool' }));
    const agent = createAgent({
      model: scriptedModel([calls(call('sneaky')), say('never')]),
      tools: [sneaky],
      middleware: [owner],
    });
    const result = await agent.run('go', { threadId: 't' });
    expect(result).toMatchObject({
      status: 'failed',
      reason: 'tool "sneaky" wrote state key "owned"; only middleware may write state',
    });
    expect(await agent.state('t')).toEqual({ owned: 'start' });
  });
});

describe('R8 the apply queue', () => {
  it('applies parallel calls’ updates one at a time through an async apply, in commit order', async () => {
    let active = 0;
    let maxActive = 0;
    const recorder: Middleware = {
      name: 'recorder',
      writes: {
        log: {
          initial: [] as string[],
          async apply(current, update) {
            active += 1;
            maxActive = Math.max(maxActive, active);
            await tick(5);
            active -= 1;
            return [...(current as string[]), update as string];
          },
        },
      },
      async wrapToolCall(request, next) {
        const outcome = await next(request);
        return outcome.type === 'success' ? { ...outcome, update: { log: request.call.name } } : outcome;
      },
    };
    // The calls finish in the order fast, mid, slow, each once the one before it has: by events, not timers.
    const order: string[] = [];
    const finished = new Map<string, () => void>();
    const whenFinished = (name: string) => new Promise<void>((resolve) => finished.set(name, resolve));
    const fastDone = whenFinished('fast');
    const midDone = whenFinished('mid');
    whenFinished('slow');
    const finishing = (name: string, after: Promise<void>) =>
      makeTool(name, async () => {
        await after;
        order.push(name);
        finished.get(name)!();
        return name;
      });
    const agent = createAgent({
      model: scriptedModel([calls(call('slow'), call('fast'), call('mid')), say('done')]),
      tools: [finishing('slow', midDone), finishing('fast', Promise.resolve()), finishing('mid', fastDone)],
      middleware: [recorder],
    });
    expect((await agent.run('go', { threadId: 't' })).status).toBe('completed');
    expect(maxActive).toBe(1);
    expect(order).toEqual(['fast', 'mid', 'slow']);
    expect((await agent.state('t')).log).toEqual(['fast', 'mid', 'slow']);
  });

  it("commits the inner wrapModelCall's update before the outer's", async () => {
    const applied: string[] = [];
    const writer = (name: string): Middleware => ({
      name,
      writes: {
        [name]: {
          initial: 0,
          apply: (_current, update) => {
            applied.push(name);
            return update;
          },
        },
      },
      wrapModelCall: async (request, next) => ({ ...(await next(request)), update: { [name]: 1 } }),
    });
    const agent = createAgent({ model: scriptedModel([say('hi')]), middleware: [writer('outer'), writer('inner')] });
    const result = await agent.run('go', { threadId: 't' });
    expect(result.messages.at(-1)).not.toHaveProperty('update');
    expect(applied).toEqual(['inner', 'outer']);
    expect(await agent.state('t')).toEqual({ outer: 1, inner: 1 });
  });
});

describe('R10 an output Block', () => {
  it('drops the turn’s messages and restores the restore keys through restore, keeping the keep keys', async () => {
    const restoreCalls: unknown[] = [];
    let blockNext = false;
    const counter: Middleware = {
      name: 'counter',
      writes: {
        undone: { initial: 0, onBlock: 'restore' },
        custom: {
          initial: 'v0',
          onBlock: 'restore',
          restore: (current, before) => {
            restoreCalls.push({ current, before });
            return `${before} (restored)`;
          },
        },
        kept: { initial: 0 },
      },
      async wrapToolCall(request, next) {
        const outcome = await next(request);
        return outcome.type === 'success' ? { ...outcome, update: { undone: 5, custom: 'v-turn', kept: 7 } } : outcome;
      },
      afterAgent: () => (blockNext ? block('leaks a secret') : undefined),
    };
    const model = scriptedModel([say('first'), calls(call('echo', { text: 'x' })), say('the secret')]);
    const agent = createAgent({ model, tools: [echo], middleware: [counter] });
    await agent.run('one', { threadId: 't' });
    const before = await agent.messages('t');
    blockNext = true;
    const result = await agent.run('two', { threadId: 't' });
    expect(result).toMatchObject({ status: 'blocked', reason: 'leaks a secret' });
    expect(result.messages).toEqual(before);
    expect(await agent.messages('t')).toEqual(before);
    expect(restoreCalls).toEqual([{ current: 'v-turn', before: 'v0' }]);
    expect(await agent.state('t')).toEqual({ undone: 0, custom: 'v0 (restored)', kept: 7 });
  });

  it('a run that fails keeps its state as it was when it failed', async () => {
    const writer: Middleware = {
      name: 'writer',
      writes: { seen: { initial: 'nothing', onBlock: 'restore' } },
      beforeAgent: () => ({ update: { seen: 'input' } }),
      wrapToolCall: async () => ToolOutcome.fatal('stop here'),
    };
    const agent = createAgent({
      model: scriptedModel([calls(call('echo', { text: 'x' }))]),
      tools: [echo],
      middleware: [writer],
    });
    const result = await agent.run('go', { threadId: 't' });
    expect(result).toMatchObject({ status: 'failed', reason: 'stop here' });
    expect(await agent.state('t')).toEqual({ seen: 'input' });
    expect(transcript(result.messages)).toEqual(['user: go', 'assistant calls echo']);
  });

  it('an exception in a key’s apply fails the run naming the key', async () => {
    const bad: Middleware = {
      name: 'bad',
      writes: { k: { initial: 0, apply: () => Promise.reject(new Error('quota')) } },
      beforeAgent: () => ({ update: { k: 1 } }),
    };
    const result = await createAgent({ model: scriptedModel([]), middleware: [bad] }).run('x', { threadId: 't' });
    expect(result).toMatchObject({ status: 'failed', reason: 'apply of state key "k" threw: quota' });
  });
});
