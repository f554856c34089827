import { describe, expect, it } from 'vitest';
import { createAgentLoop } from '../../lib/runtime/agent.js';
import { type Checkpointer, MemoryCheckpointer } from '../../lib/runtime/checkpoint.js';
import type { ToolContext } from '../../lib/runtime/tool.js';
import { scriptedModel } from '../../lib/testing.js';
import {
  call,
  calls,
  deferred,
  echo,
  makeTool,
  RecordingCheckpointer,
  say,
  tick,
  transcript,
} from './runtime-fixtures.js';

type SavedCall = { idempotencyKey: string; status: string };
const savedCalls = (checkpoint: unknown): SavedCall[] =>
  (checkpoint as { turn: { calls: SavedCall[] } | null }).turn?.calls ?? [];

describe('R9 idempotency keys', () => {
  it('are random, path-safe and saved in the checkpoint before the tool runs', async () => {
    const checkpointer = new RecordingCheckpointer();
    const keysAtRun: Array<{ key: string; saved: SavedCall | undefined }> = [];
    const probe = makeTool('probe', (_args, context) => {
      const latest = checkpointer.saves.at(-1)!.checkpoint;
      keysAtRun.push({
        key: context.idempotencyKey,
        saved: savedCalls(latest).find((c) => c.idempotencyKey === context.idempotencyKey),
      });
      return 'ok';
    });
    const model = scriptedModel([calls(call('probe', {}, 'same-id'), call('probe', {}, 'same-id')), say('done')]);
    await createAgentLoop({ model, tools: [probe], checkpointer }).run('go', { threadId: 't' });

    expect(keysAtRun).toHaveLength(2);
    for (const { key, saved } of keysAtRun) {
      expect(key).toMatch(/^[A-Za-z0-9_-]{12}$/);
      expect(saved).toMatchObject({ status: 'pending' });
    }
    // A provider reusing its tool call id does not make two calls share an identity.
    expect(keysAtRun[0]!.key).not.toBe(keysAtRun[1]!.key);
  });

  it('a crashed tab’s turn is continued by a new agent: unfinished calls rerun with the same key', async () => {
    const checkpointer = new RecordingCheckpointer();
    const runs: Array<{ name: string; key: string }> = [];
    const tools = (hang: boolean) => [
      makeTool('quick', (_args, context: ToolContext) => {
        runs.push({ name: 'quick', key: context.idempotencyKey });
        return 'quick result';
      }),
      makeTool('fetch', (_args, context: ToolContext) => {
        runs.push({ name: 'fetch', key: context.idempotencyKey });
        return hang ? new Promise<string>(() => {}) : 'page text';
      }),
    ];
    const first = createAgentLoop({
      model: scriptedModel([calls(call('quick'), call('fetch'))]),
      tools: tools(true),
      checkpointer,
    });
    void first.run('fetch it', { threadId: 't' });
    await tick(10);
    const crashed = checkpointer.snapshot(); // the tab closes here: only what was saved survives

    const model = scriptedModel([say('summarised')]);
    const second = createAgentLoop({ model, tools: tools(false), checkpointer: crashed });
    const result = await second.recover('t');

    expect(result.status).toBe('completed');
    const fetches = runs.filter((r) => r.name === 'fetch');
    expect(fetches).toHaveLength(2);
    expect(fetches[1]!.key).toBe(fetches[0]!.key);
    expect(runs.filter((r) => r.name === 'quick')).toHaveLength(1); // done calls are not rerun
    expect(transcript(result.messages)).toEqual([
      'user: fetch it',
      'assistant calls quick, fetch',
      'tool quick: quick result',
      'tool fetch: page text',
      'assistant: summarised',
    ]);
  });

  it('redoes the model step when the turn stopped before the model replied', async () => {
    const checkpointer = new RecordingCheckpointer();
    const first = createAgentLoop({ model: () => new Promise(() => {}), checkpointer });
    void first.run('question', { threadId: 't' });
    await tick(5);
    const model = scriptedModel([say('answer')]);
    const result = await createAgentLoop({ model, checkpointer: checkpointer.snapshot() }).recover('t');
    expect(result.status).toBe('completed');
    expect(transcript(model.requests[0]!.messages)).toEqual(['user: question']);
    expect(transcript(result.messages)).toEqual(['user: question', 'assistant: answer']);
  });

  it('recover with nothing to continue resolves completed with the last answer', async () => {
    const agent = createAgentLoop({ model: scriptedModel([say('hello')]) });
    expect(await agent.recover('empty')).toMatchObject({ status: 'completed', output: undefined, messages: [] });
    await agent.run('hi', { threadId: 't' });
    const result = await agent.recover('t');
    expect(result.status).toBe('completed');
    expect(result.output?.content).toEqual([{ type: 'text', text: 'hello' }]);
  });
});

describe('abort', () => {
  it('resolves failed/aborted, gives the tool the signal, and keeps the checkpoint so recover continues', async () => {
    const checkpointer = new MemoryCheckpointer();
    const keys: string[] = [];
    let toolSignal: AbortSignal | undefined;
    const slow = makeTool('slow', (_args, context) => {
      keys.push(context.idempotencyKey);
      toolSignal = context.signal;
      return keys.length === 1 ? new Promise<string>(() => {}) : 'finished';
    });
    const model = scriptedModel([calls(call('slow')), say('done')]);
    const agent = createAgentLoop({ model, tools: [slow], checkpointer });
    const controller = new AbortController();
    const run = agent.run('go', { threadId: 't', signal: controller.signal });
    await tick(5);
    controller.abort();
    const result = await run;
    expect(result).toMatchObject({ status: 'failed', reason: 'aborted' });
    expect(toolSignal!.aborted).toBe(true);

    const recovered = await agent.recover('t');
    expect(recovered.status).toBe('completed');
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
    expect(transcript(recovered.messages).slice(-2)).toEqual(['tool slow: finished', 'assistant: done']);
  });

  it('an abort during the model call resolves (never throws), whatever the model rejects with', async () => {
    const agent = createAgentLoop({
      model: (_request, { signal }) =>
        new Promise((_resolve, reject) =>
          signal.addEventListener('abort', () => reject(new DOMException('x', 'AbortError'))),
        ),
    });
    const controller = new AbortController();
    const run = agent.run('go', { threadId: 't', signal: controller.signal });
    await tick(5);
    controller.abort();
    expect(await run).toMatchObject({ status: 'failed', reason: 'aborted', messages: [{ role: 'user' }] });
  });

  it('a new run abandons an interrupted turn with "Interrupted" messages so the history stays valid', async () => {
    const hang = deferred<string>();
    const slow = makeTool('slow', () => hang.promise);
    const model = scriptedModel([calls(call('slow'), call('echo', { text: 'e' })), say('fresh start')]);
    const agent = createAgentLoop({ model, tools: [slow, echo] });
    const controller = new AbortController();
    const run = agent.run('first', { threadId: 't', signal: controller.signal });
    await tick(5);
    controller.abort();
    await run;
    const result = await agent.run('second', { threadId: 't' });
    expect(transcript(result.messages)).toEqual([
      'user: first',
      'assistant calls slow, echo',
      'tool slow (error): Interrupted: the turn stopped before this call finished',
      'tool echo: echo: e',
      'user: second',
      'assistant: fresh start',
    ]);
  });
});

describe('checkpoints', () => {
  it('a corrupt or foreign checkpoint is a clear Error, and nothing overwrites it', async () => {
    const checkpointer = new MemoryCheckpointer();
    const agent = createAgentLoop({ model: scriptedModel([say('x')]), checkpointer });
    await checkpointer.save('bad', { version: 1, messages: 'nope', state: {}, turn: null });
    await expect(agent.run('x', { threadId: 'bad' })).rejects.toThrow(
      'checkpoint of thread "bad" is corrupt: messages is not an array',
    );
    await checkpointer.save('future', { version: 9, messages: [], state: {}, turn: null });
    await expect(agent.messages('future')).rejects.toThrow(/has version 9; this runtime reads version 1/);
    expect(await checkpointer.load('future')).toEqual({ version: 9, messages: [], state: {}, turn: null });
  });

  it('saves after the turn starts, after each model reply and each tool call, and at the end', async () => {
    const checkpointer = new RecordingCheckpointer();
    const model = scriptedModel([calls(call('echo', { text: 'a' }), call('echo', { text: 'b' })), say('done')]);
    await createAgentLoop({ model, tools: [echo], checkpointer }).run('go', { threadId: 't' });
    const phases = checkpointer.saves.map(({ checkpoint }) => {
      const c = checkpoint as { turn: { phase: string; calls: SavedCall[] } | null };
      return c.turn ? `${c.turn.phase}:${c.turn.calls.map((x) => x.status).join(',')}` : 'idle';
    });
    expect(phases[0]).toBe('model:');
    expect(phases[1]).toBe('tools:pending,pending');
    // One save as each call completes (the first may already see the other done too).
    expect(phases[2]).toMatch(/^tools:(done,pending|pending,done|done,done)$/);
    expect(phases[3]).toBe('tools:done,done');
    expect(phases.slice(4)).toEqual(['model:', 'after:', 'idle']);
  });

  /** Keeps each checkpoint as handed over, uncopied, and stores it only after a delay. */
  class SlowReferenceCheckpointer implements Checkpointer {
    readonly saves: unknown[] = [];
    async load(): Promise<unknown> {
      return undefined;
    }
    async save(_threadId: string, checkpoint: unknown): Promise<void> {
      await tick(2);
      this.saves.push(checkpoint);
    }
  }

  it('hands each save a snapshot that the run never changes afterwards, however late the checkpointer stores it', async () => {
    const checkpointer = new SlowReferenceCheckpointer();
    const model = scriptedModel([calls(call('echo', { text: 'a' }), call('echo', { text: 'b' })), say('done')]);
    await createAgentLoop({ model, tools: [echo], checkpointer }).run('go', { threadId: 't' });
    const seen = checkpointer.saves.map((checkpoint) => {
      const c = checkpoint as { messages: unknown[]; turn: { phase: string; calls: SavedCall[] } | null };
      const turn = c.turn ? `${c.turn.phase}:${c.turn.calls.map((x) => x.status).join(',')}` : 'idle';
      return `${c.messages.length} ${turn}`;
    });
    expect(seen[0]).toBe('1 model:');
    expect(seen[1]).toBe('2 tools:pending,pending');
    expect(seen[2]).toMatch(/^2 tools:(done,pending|pending,done|done,done)$/);
    expect(seen.slice(3)).toEqual(['2 tools:done,done', '4 model:', '5 after:', '5 idle']);
  });

  it('does not copy the thread to save it: the checkpointer gets the thread’s own messages to copy once', async () => {
    const checkpointer = new SlowReferenceCheckpointer();
    const model = scriptedModel([calls(call('echo', { text: 'a' })), say('done')]);
    const result = await createAgentLoop({ model, tools: [echo], checkpointer }).run('go', { threadId: 't' });
    const last = checkpointer.saves.at(-1) as { messages: unknown[] };
    expect(last.messages).toHaveLength(result.messages.length);
    for (const [i, message] of last.messages.entries()) expect(message).toBe(result.messages[i]);
  });
});
