// What ToolOutputOffload reports in the run's events: stored results, storage failures, summary drops.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RunEvent } from '../../lib/agent/create-agent.js';
import type { OffloadEvent } from '../../lib/offload/events.js';
import type { Message } from '../../lib/runtime/messages.js';
import { utf8Bytes } from '../../lib/shared/text.js';
import { scriptedModel } from '../../lib/testing.js';
import { calls, fakeSummarization, linesOf, offloadAgent, pathIn, reply, toolMessagesOf } from './offload-harness.js';

afterEach(() => vi.restoreAllMocks());

const offloadEvents = (events: readonly RunEvent[]) =>
  events
    .filter((e): e is Extract<RunEvent, OffloadEvent> => e.middleware === 'ToolOutputOffload')
    .map(({ at: _at, turnId: _turn, ...rest }) => rest);
const toolCallOf = (events: readonly RunEvent[]) =>
  events.find((e): e is Extract<RunEvent, { type: 'tool-call' }> => e.type === 'tool-call')!;
const quota = () => new DOMException('The quota has been exceeded.', 'QuotaExceededError');

describe('ToolOutputOffload events', () => {
  it('reports a stored result with its tool call, path, bytes and whether it was cut, and no text', async () => {
    const model = scriptedModel([calls(['emit', { lines: 100, tag: 'big' }, 'call-big']), reply()]);
    const { agent } = offloadAgent(model);
    const result = await agent.run('go', { threadId: 'a' });
    const path = pathIn(shown(result.messages));
    const toolCall = toolCallOf(result.events);

    expect(offloadEvents(result.events)).toEqual([
      {
        type: 'offloaded',
        middleware: 'ToolOutputOffload',
        threadId: 'a',
        toolName: 'emit',
        toolCallId: 'call-big',
        path,
        bytes: utf8Bytes(linesOf(100, 80, 'big')),
        truncated: false,
      },
    ]);
    expect(path).toBe(`/large_tool_results/${toolCall.idempotencyKey}`);
    // Emitted inside the call, before the runtime reports it and commits the store change.
    expect(result.events.map((e) => e.type).slice(1, 6)).toEqual([
      'model-call',
      'offloaded',
      'tool-call',
      'state-applied',
      'model-call',
    ]);
    expect(result.events.find((e) => e.type === 'state-applied')).toMatchObject({ keys: ['toolOutputOffload'] });
    expect(JSON.stringify(result.events)).not.toContain('big 0');
  });

  it('says when the stored text was cut to maxResultBytes', async () => {
    const model = scriptedModel([calls(['emit', { lines: 100 }]), reply()]);
    const { agent } = offloadAgent(model, { offload: { maxResultBytes: 5000 } });
    const result = await agent.run('go', { threadId: 'a' });
    expect(offloadEvents(result.events)).toEqual([
      expect.objectContaining({ type: 'offloaded', bytes: 5000, truncated: true }),
    ]);
  });

  it('reports a result that could not be stored (quota full while staging); the run goes on', async () => {
    const model = scriptedModel([calls(['emit', { lines: 100 }, 'call-big']), reply()]);
    const { agent, store } = offloadAgent(model);
    vi.spyOn(store, 'stage').mockRejectedValue(quota());
    const result = await agent.run('go', { threadId: 'a' });
    expect(result.status).toBe('completed');
    const key = toolCallOf(result.events).idempotencyKey;
    expect(offloadEvents(result.events)).toEqual([
      {
        type: 'offload-failed',
        middleware: 'ToolOutputOffload',
        threadId: 'a',
        toolName: 'emit',
        toolCallId: 'call-big',
        path: `/large_tool_results/${key}`,
        bytes: utf8Bytes(linesOf(100)),
        why: 'QuotaExceededError: The quota has been exceeded.',
      },
    ]);
  });

  it('reports a result whose commit hit the quota after it was staged', async () => {
    const model = scriptedModel([calls(['emit', { lines: 100 }]), reply()]);
    const { agent, store } = offloadAgent(model);
    vi.spyOn(store, 'apply').mockRejectedValueOnce(quota());
    const result = await agent.run('go', { threadId: 'a' });
    expect(result.status).toBe('completed');
    const key = toolCallOf(result.events).idempotencyKey;
    const path = `/large_tool_results/${key}`;
    expect(offloadEvents(result.events).map((e) => e.type)).toEqual(['offloaded', 'offload-failed']);
    const stagedBytes = (offloadEvents(result.events)[0] as { bytes?: number }).bytes;
    expect(stagedBytes).toBe(utf8Bytes(linesOf(100)));
    const why = `QuotaExceededError: The quota has been exceeded. (while making ${path} live, even after evicting the oldest; it is read from where it was staged)`;
    // The commit knows the tool but not its call: the staging reported that (the 'offloaded' before it).
    expect(offloadEvents(result.events)[1]).toEqual({
      type: 'offload-failed',
      middleware: 'ToolOutputOffload',
      threadId: 'a',
      toolName: 'emit',
      path,
      bytes: stagedBytes,
      why,
    });
    expect(await store.list('a')).toEqual([]);
    // The inspector's failure record names the tool and the bytes the staged result held.
    expect(await store.failures('a')).toEqual([
      { threadId: 'a', key, path, toolName: 'emit', bytes: stagedBytes, at: expect.any(Number), error: why },
    ]);
  });

  it('reports the results it drops after a summary covers them', async () => {
    const model = scriptedModel([
      calls(['emit', { lines: 100, tag: 'covered' }]),
      reply('first turn'),
      reply('second turn'),
    ]);
    let covered: string[] | undefined;
    const summarization = fakeSummarization((messages) => {
      covered ??= toolMessagesOf(messages).map((m) => m.id);
      return covered;
    });
    const { agent, store } = offloadAgent(model, { outer: [summarization] });
    const first = await agent.run('one', { threadId: 'a' });
    const [stored] = await store.list('a');
    expect(offloadEvents(first.events).map((e) => e.type)).toEqual(['offloaded']);

    const second = await agent.run('two', { threadId: 'a' });
    expect(offloadEvents(second.events)).toEqual([
      { type: 'summarized-drop', middleware: 'ToolOutputOffload', threadId: 'a', keys: [stored!.key] },
    ]);
    expect(await store.list('a')).toEqual([]);
  });
});

function shown(messages: readonly Message[]): string {
  const part = toolMessagesOf(messages)[0]!.content[0]!;
  return part.type === 'text' ? part.text : '';
}
