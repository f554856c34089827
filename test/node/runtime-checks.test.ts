import { describe, expect, it } from 'vitest';
import { createAgentLoop } from '../../lib/runtime/agent.js';
import { MemoryCheckpointer } from '../../lib/runtime/checkpoint.js';
import { checkInteger, checkThreadId, quoteForMessage } from '../../lib/shared/checks.js';
import { scriptedModel } from '../../lib/testing.js';

describe('error wording shared by every layer', () => {
  it('quoteForMessage shows any value and never throws', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(quoteForMessage('a "b"')).toBe('"a \\"b\\""');
    expect(quoteForMessage(Number.NaN)).toBe('NaN');
    expect(quoteForMessage(Number.NEGATIVE_INFINITY)).toBe('-Infinity');
    expect(quoteForMessage(12n)).toBe('12n');
    expect(quoteForMessage({ n: 12n })).toBe('[object Object]');
    expect(quoteForMessage(cyclic)).toBe('[object Object]');
    expect(quoteForMessage(undefined)).toBe('undefined');
    expect(quoteForMessage(Symbol('s'))).toBe('Symbol(s)');
    expect(quoteForMessage({ a: [1, null] })).toBe('{"a":[1,null]}');
    expect(quoteForMessage('x'.repeat(500))).toBe(JSON.stringify(`${'x'.repeat(200)}…`));
  });

  it.each([
    [0, 'n must be an integer of at least 1, got 0'],
    [1.5, 'n must be an integer of at least 1, got 1.5'],
    [Number.NaN, 'n must be an integer of at least 1, got NaN'],
    [Number.POSITIVE_INFINITY, 'n must be an integer of at least 1, got Infinity'],
    [2 ** 53, 'n must be an integer of at least 1, got 9007199254740992'],
    ['3', 'n must be an integer of at least 1, got "3"'],
    [3n, 'n must be an integer of at least 1, got 3n'],
  ])('checkInteger rejects %o with a RangeError saying what it got', (value, message) => {
    expect(() => checkInteger('n', value, 1)).toThrow(new RangeError(message));
  });

  it('checkInteger returns the value in range, names a maximum, and can throw the caller’s error', () => {
    expect(checkInteger('n', 7, 1, 7)).toBe(7);
    expect(() => checkInteger('n', 8, 1, 7)).toThrow('n must be an integer from 1 to 7, got 8');
    class OptionError extends Error {}
    expect(() => checkInteger('n', -1, 0, undefined, (m) => new OptionError(m))).toThrow(OptionError);
  });

  it('checkThreadId names what it got, whatever it is', () => {
    expect(() => checkThreadId('')).toThrow(new TypeError('threadId must be a non-empty string, got ""'));
    expect(() => checkThreadId(5n)).toThrow(new TypeError('threadId must be a non-empty string, got 5n'));
    expect(() => checkThreadId('t')).not.toThrow();
  });
});

describe('createAgent options and thread ids', () => {
  it('a threadId that JSON cannot write still gets the clear error', async () => {
    const agent = createAgentLoop({ model: scriptedModel([]) });
    await expect(agent.run('x', { threadId: 5n as never })).rejects.toThrow(
      new TypeError('threadId must be a non-empty string, got 5n'),
    );
    await expect(agent.state({} as never)).rejects.toThrow('threadId must be a non-empty string, got {}');
  });

  it('a checkpoint of a version JSON cannot write is still refused with the clear error', async () => {
    const checkpointer = new MemoryCheckpointer();
    await checkpointer.save('t', { version: 2n, messages: [], state: {}, turn: null });
    const agent = createAgentLoop({ model: scriptedModel([]), checkpointer });
    await expect(agent.messages('t')).rejects.toThrow(
      'checkpoint of thread "t" has version 2n; this runtime reads version 1',
    );
  });

  it('toolTimeoutMs stays within what setTimeout can wait, instead of timing out at once', () => {
    expect(() => createAgentLoop({ model: scriptedModel([]), toolTimeoutMs: 2 ** 31 })).toThrow(
      new RangeError('createAgent: options.toolTimeoutMs must be an integer from 1 to 2147483647, got 2147483648'),
    );
    expect(() => createAgentLoop({ model: scriptedModel([]), toolTimeoutMs: 2 ** 31 - 1 })).not.toThrow();
    expect(() => createAgentLoop({ model: scriptedModel([]), maxSteps: Number.NaN })).toThrow(
      'createAgent: options.maxSteps must be an integer of at least 1, got NaN',
    );
  });
});
