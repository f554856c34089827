import { describe, expect, it } from 'vitest';
import { createAgentLoop } from '../../lib/runtime/agent.js';
import type { Middleware } from '../../lib/runtime/middleware.js';
import { ToolOutcome } from '../../lib/runtime/outcome.js';
import type { ToolContext } from '../../lib/runtime/tool.js';
import { scriptedModel } from '../../lib/testing.js';
import { call, calls, echo, makeTool, RecordingCheckpointer, say, transcript } from './runtime-fixtures.js';

/** Asks for approval of every `delete` call unless the context says it was approved. */
function approvals(): Middleware & { contexts: Array<ToolContext & { tool: string }> } {
  const contexts: Array<ToolContext & { tool: string }> = [];
  return {
    name: 'approvals',
    contexts,
    async wrapToolCall(request, next, context) {
      contexts.push({ ...context, tool: request.call.name });
      if (request.call.name === 'delete' && !context.approved) {
        return ToolOutcome.needsApproval(`delete ${JSON.stringify(request.call.args)}?`);
      }
      return next(request);
    },
  };
}

function setup() {
  const deleted: string[] = [];
  const del = makeTool('delete', (args: { file: string }) => {
    deleted.push(args.file);
    return `deleted ${args.file}`;
  });
  const gate = approvals();
  const model = scriptedModel([
    calls(call('delete', { file: 'a.txt' }), call('echo', { text: 'meanwhile' })),
    say('all done'),
  ]);
  const checkpointer = new RecordingCheckpointer();
  const agent = createAgentLoop({ model, tools: [del, echo], middleware: [gate], checkpointer });
  return { agent, deleted, gate, model, checkpointer };
}

describe('R6 approval', () => {
  it('pauses after the step’s other calls finish, with the call kept in the checkpoint', async () => {
    const { agent, deleted, checkpointer } = setup();
    const paused = await agent.run('clean up', { threadId: 't' });
    expect(paused).toMatchObject({ status: 'awaiting-approval', reason: 'delete {"file":"a.txt"}?' });
    expect(deleted).toEqual([]);
    // The echo call ran and is done; the delete waits. No tool message is in the thread yet.
    expect(transcript(paused.messages)).toEqual(['user: clean up', 'assistant calls delete, echo']);
    const saved = checkpointer.saves.at(-1)!.checkpoint as {
      turn: { calls: Array<{ status: string; reason?: string; idempotencyKey: string }> };
    };
    expect(saved.turn.calls.map((c) => c.status)).toEqual(['awaiting-approval', 'done']);
    expect(saved.turn.calls[0]!.reason).toBe('delete {"file":"a.txt"}?');
  });

  it('resume approved runs the call again through the chain with context.approved and the same key', async () => {
    const { agent, deleted, gate } = setup();
    await agent.run('clean up', { threadId: 't' });
    const asked = gate.contexts.filter((c) => c.tool === 'delete');
    expect(asked.map((c) => c.approved)).toEqual([false]);
    const result = await agent.resume('t', { approved: true });
    expect(result.status).toBe('completed');
    expect(deleted).toEqual(['a.txt']);
    const again = gate.contexts.filter((c) => c.tool === 'delete');
    expect(again.map((c) => c.approved)).toEqual([false, true]);
    expect(again[1]!.idempotencyKey).toBe(asked[0]!.idempotencyKey);
    // Only the call awaiting approval ran again; the echo that was done is not repeated.
    expect(gate.contexts.filter((c) => c.tool === 'echo')).toHaveLength(1);
    expect(transcript(result.messages)).toEqual([
      'user: clean up',
      'assistant calls delete, echo',
      'tool delete: deleted a.txt',
      'tool echo: echo: meanwhile',
      'assistant: all done',
    ]);
  });

  it('resume not approved gives "Denied" without reaching wrapToolCall, then the loop continues', async () => {
    const { agent, deleted, gate } = setup();
    await agent.run('clean up', { threadId: 't' });
    const wrapped = gate.contexts.length;
    const result = await agent.resume('t', { approved: false });
    expect(result.status).toBe('completed');
    expect(deleted).toEqual([]);
    expect(gate.contexts).toHaveLength(wrapped);
    expect(transcript(result.messages)[2]).toBe('tool delete (error): Denied: approval was refused');
  });

  it('resume with nothing awaiting approval throws a clear Error', async () => {
    const { agent } = setup();
    await expect(agent.resume('t', { approved: true })).rejects.toThrow(
      'thread "t" has no tool call awaiting approval',
    );
    await agent.run('clean up', { threadId: 't' });
    await agent.resume('t', { approved: true });
    await expect(agent.resume('t', { approved: true })).rejects.toThrow(/no tool call awaiting approval/);
  });

  it('a new message abandons the call awaiting approval with a Denied message, keeping the history valid', async () => {
    const deleted: string[] = [];
    const del = makeTool('delete', () => {
      deleted.push('x');
      return 'deleted';
    });
    const model = scriptedModel([calls(call('delete', { file: 'b' })), say('ok, not deleting')]);
    const agent = createAgentLoop({ model, tools: [del], middleware: [approvals()] });
    await agent.run('delete b', { threadId: 't' });
    const result = await agent.run('never mind', { threadId: 't' });
    expect(result.status).toBe('completed');
    expect(deleted).toEqual([]);
    expect(transcript(result.messages)).toEqual([
      'user: delete b',
      'assistant calls delete',
      'tool delete (error): Denied: not approved before the next message',
      'user: never mind',
      'assistant: ok, not deleting',
    ]);
    await expect(agent.resume('t', { approved: true })).rejects.toThrow(/no tool call awaiting approval/);
  });

  it('recover on a thread awaiting approval reports it instead of running anything', async () => {
    const { agent, deleted } = setup();
    await agent.run('clean up', { threadId: 't' });
    const result = await agent.recover('t');
    expect(result).toMatchObject({ status: 'awaiting-approval', reason: 'delete {"file":"a.txt"}?' });
    expect(deleted).toEqual([]);
  });
});
