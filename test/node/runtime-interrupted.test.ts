import { describe, expect, it } from 'vitest';
import { createAgentLoop } from '../../lib/runtime/agent.js';
import type { Checkpointer } from '../../lib/runtime/checkpoint.js';
import { block, type Middleware } from '../../lib/runtime/middleware.js';
import { scriptedModel } from '../../lib/testing.js';
import { RecordingCheckpointer, say, tick, transcript } from './runtime-fixtures.js';

/** An output check that hangs the first time (the tab closes during it) and blocks replies containing "secret". */
function outputCheck(hang: boolean): Middleware {
  return {
    name: 'output-check',
    writes: { checked: { initial: 0, onBlock: 'restore' } },
    beforeAgent: () => ({ update: { checked: 1 } }),
    afterAgent: async (output) => {
      if (hang) await new Promise(() => {});
      return output.content.some((p) => p.type === 'text' && p.text.includes('secret'))
        ? block('leaks a secret')
        : undefined;
    },
  };
}

async function crashDuringAfterAgent(): Promise<RecordingCheckpointer> {
  const checkpointer = new RecordingCheckpointer();
  const first = createAgentLoop({
    model: scriptedModel([say('the secret is 42')]),
    middleware: [outputCheck(true)],
    checkpointer,
  });
  void first.run('tell me', { threadId: 't' });
  await tick(5);
  return checkpointer.snapshot();
}

describe('a turn interrupted during afterAgent', () => {
  it('recover runs afterAgent on the saved reply, so an output Block still applies', async () => {
    const checkpointer = await crashDuringAfterAgent();
    const model = scriptedModel([]);
    const agent = createAgentLoop({ model, middleware: [outputCheck(false)], checkpointer });
    const result = await agent.recover('t');
    expect(result).toMatchObject({ status: 'blocked', reason: 'leaks a secret', messages: [] });
    expect(model.requests).toHaveLength(0);
    expect(await agent.state('t')).toEqual({ checked: 0 });
  });

  it('a new run does not keep the reply that was never checked', async () => {
    const checkpointer = await crashDuringAfterAgent();
    const agent = createAgentLoop({
      model: scriptedModel([say('hello')]),
      middleware: [outputCheck(false)],
      checkpointer,
    });
    const result = await agent.run('hi again', { threadId: 't' });
    expect(result.status).toBe('completed');
    expect(transcript(result.messages)).toEqual(['user: tell me', 'user: hi again', 'assistant: hello']);
  });
});

describe('a checkpointer that fails', () => {
  it('ends the run failed with the cause instead of throwing', async () => {
    const broken: Checkpointer = {
      load: async () => undefined,
      save: async () => {
        throw new Error('disk full');
      },
    };
    const result = await createAgentLoop({ model: scriptedModel([say('x')]), checkpointer: broken }).run('go', {
      threadId: 't',
    });
    expect(result).toMatchObject({ status: 'failed', reason: 'saving the checkpoint of thread "t" failed: disk full' });
  });

  it('a state value that is not structured-clone data fails the run naming the cause', async () => {
    const holder: Middleware = {
      name: 'holder',
      writes: { fn: { initial: null } },
      beforeAgent: () => ({ update: { fn: () => 1 } }),
    };
    const result = await createAgentLoop({ model: scriptedModel([say('x')]), middleware: [holder] }).run('go', {
      threadId: 't',
    });
    expect(result.status).toBe('failed');
    expect(result.reason).toMatch(/^the thread's checkpoint is not structured-clone data/);
  });
});
