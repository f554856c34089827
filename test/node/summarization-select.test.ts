// Summarization's choices: options, where the kept messages start, what counts, what the summarizer sees.
import { describe, expect, it } from 'vitest';
import { createAgent } from '../../lib/agent/create-agent.js';
import type { Message, ToolMessage } from '../../lib/runtime/messages.js';
import type { ModelReply, ModelRequest } from '../../lib/runtime/model.js';
import { joinText } from '../../lib/shared/content.js';
import { keepBoundary, mediaPartTokens, messagesTokens } from '../../lib/summarization/select.js';
import { Summarization } from '../../lib/summarization/summarization.js';
import { scriptedModel } from '../../lib/testing.js';
import { hookContext } from './offload-fixtures.js';
import { echo } from './runtime-fixtures.js';
import { recordingSummarizer, summarizerInput } from './summarization-fixtures.js';

const user = (id: string, text = id): Message => ({ role: 'user', id, content: [{ type: 'text', text }] });
const assistant = (id: string, calls: string[] = []): Message => ({
  role: 'assistant',
  id,
  content: [{ type: 'text', text: `reply ${id}` }],
  toolCalls: calls.map((c) => ({ id: c, name: 'echo', args: { text: c } })),
});
const result = (id: string, callId: string, text = `result ${id}`): Message => ({
  role: 'tool',
  id,
  toolCallId: callId,
  toolName: 'echo',
  content: [{ type: 'text', text }],
  isError: false,
});

describe('Summarization options', () => {
  const model = recordingSummarizer();

  it.each([
    [{ triggerTokens: 0 }, /triggerTokens must be an integer of at least 1, got 0/],
    [{ triggerTokens: 1.5 }, /triggerTokens .* got 1\.5/],
    [{ triggerTokens: Number.NaN }, /triggerTokens .* got NaN/],
    [{ triggerTokens: '100' }, /triggerTokens .* got "100"/],
    [{}, /triggerTokens .* got undefined/],
    [{ triggerTokens: 100, keepMessages: 0 }, /keepMessages must be an integer of at least 1, got 0/],
    [{ triggerTokens: 100, keepMessages: Number.POSITIVE_INFINITY }, /keepMessages .* got Infinity/],
  ])('rejects %o with a RangeError naming the option', (options, message) => {
    expect(() => new Summarization({ model, ...(options as { triggerTokens: number }) })).toThrow(
      expect.objectContaining({ name: 'RangeError', message: expect.stringMatching(message) }),
    );
  });

  it('rejects a missing model with a TypeError', () => {
    expect(() => new Summarization({ triggerTokens: 10 } as never)).toThrow(/options\.model must be a function/);
    expect(() => new Summarization(undefined as never)).toThrow(TypeError);
  });

  it('keeps 6 messages by default and writes only its own key, restored by an output Block', () => {
    const s = new Summarization({ model, triggerTokens: 10 });
    expect(Summarization.key).toBe('summarization');
    expect(s.keepMessages).toBe(6);
    expect(Object.keys(s.writes)).toEqual(['summarization']);
    expect(s.writes.summarization).toMatchObject({
      initial: { summary: '', coveredMessageIds: [] },
      onBlock: 'restore',
    });
  });
});

describe('keepBoundary: tool results stay with their call', () => {
  const history = [user('u'), assistant('a1', ['c1', 'c2', 'c3']), result('t1', 'c1'), result('t2', 'c2')];
  history.push(result('t3', 'c3'), assistant('a2'), user('u2'));

  it('moves a boundary that falls on a tool result back to the assistant message that called it', () => {
    expect(keepBoundary(history, 2)).toBe(5); // a2, u2: no tool message involved
    expect(keepBoundary(history, 3)).toBe(1); // would start at t3
    expect(keepBoundary(history, 4)).toBe(1); // would start at t2
    expect(keepBoundary(history, 5)).toBe(1); // would start at t1
    expect(keepBoundary(history, 6)).toBe(1); // starts at a1 itself
    expect(keepBoundary(history, 7)).toBe(0);
    expect(keepBoundary(history, 99)).toBe(0);
  });

  it('never splits a group in any history and any keepMessages', () => {
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const problems: string[] = [];
    for (let round = 0; round < 200; round++) {
      const messages: Message[] = [user('u0')];
      for (let i = 0; messages.length < 30; i++) {
        const calls = Array.from({ length: random(4) }, (_, c) => `c${i}-${c}`);
        messages.push(assistant(`a${i}`, calls), ...calls.map((c) => result(`t-${c}`, c)));
        if (random(3) === 0) messages.push(user(`u${i + 1}`));
      }
      for (let keep = 1; keep <= messages.length + 1; keep++) {
        const b = keepBoundary(messages, keep);
        const keptTooFew = messages.length - b < Math.min(keep, messages.length);
        if (keptTooFew || (b > 0 && messages[b]!.role === 'tool')) problems.push(`round ${round}, keep ${keep}: ${b}`);
      }
    }
    expect(problems).toEqual([]);
  });
});

describe('Summarization in the loop: parallel calls are never split', () => {
  /** Step 1 calls echo three times at once (≈ 320 tokens with their results); step 2 is over 300. */
  async function parallelRun(keepMessages: number) {
    const summarizer = recordingSummarizer();
    const summarization = new Summarization({ model: summarizer, triggerTokens: 300, keepMessages });
    const batch: ModelReply = {
      content: '',
      toolCalls: ['x', 'y', 'z'].map((l) => ({ id: `call-${l}`, name: 'echo', args: { text: l.repeat(200) } })),
    };
    const model = scriptedModel([batch, { content: 'done' }]);
    const agent = createAgent({ model, tools: [echo], middleware: [summarization] });
    expect((await agent.run('go', { threadId: 't1' })).status).toBe('completed');
    return { sent: model.requests[1]!.messages, history: await agent.messages('t1'), summarizer };
  }

  it.each([1, 2, 3])('keepMessages %i: the call and all three results are sent together', async (keep) => {
    const { sent, history, summarizer } = await parallelRun(keep);
    expect(joinText(sent[0]!.content)).toBe('[Summary of earlier conversation]\nsummary 1');
    expect(sent.slice(1)).toEqual(history.slice(1, 5)); // the assistant message and its three results
    const input = summarizerInput(summarizer.requests[0]!);
    expect(input).toContain('go');
    expect(input).not.toContain('x'.repeat(200));
  });
});

describe('Summarization.wrapModelCall', () => {
  const send = (requests: ModelRequest[]) => async (request: ModelRequest) => {
    requests.push(request);
    return { content: 'ok' };
  };

  it('sends the summary and the uncovered messages, without a new summary, when nothing older can go', async () => {
    const summarizer = recordingSummarizer();
    const s = new Summarization({ model: summarizer, triggerTokens: 50, keepMessages: 2 });
    const big = 'q'.repeat(400);
    const history = [user('u'), assistant('a1', ['c1', 'c2']), result('t1', 'c1', big), result('t2', 'c2', big)];
    const state = { summarization: { summary: 'earlier', coveredMessageIds: ['u'] } };
    const requests: ModelRequest[] = [];
    const reply = await s.wrapModelCall(
      { systemPrompt: '', messages: history, tools: [] },
      send(requests),
      hookContext({ state, messages: history }),
    );
    expect(reply).toEqual({ content: 'ok' });
    expect(summarizer.requests).toEqual([]);
    expect(requests[0]!.messages.map((m) => m.id)).toEqual(['summarization-summary', 'a1', 't1', 't2']);
  });

  it('reads a malformed key as no summary and sends the request as it is', async () => {
    const s = new Summarization({ model: recordingSummarizer(), triggerTokens: 1000 });
    const request = { systemPrompt: 'p', messages: [user('u')], tools: [] };
    const requests: ModelRequest[] = [];
    await s.wrapModelCall(request, send(requests), hookContext({ state: { summarization: 'junk' } }));
    expect(requests[0]).toBe(request);
  });

  it('renders calls, errors and media for the summarizer and cuts a huge message with a note', async () => {
    const summarizer = recordingSummarizer();
    const s = new Summarization({ model: summarizer, triggerTokens: 100, keepMessages: 1 });
    const image = { type: 'image' as const, mimeType: 'image/png', data: 'A'.repeat(50), name: 'shot.png' };
    const failed: Message = {
      ...(result('t1', 'c1', 'not found: /large_tool_results/abc') as ToolMessage),
      isError: true,
    };
    const history: Message[] = [
      { role: 'user', id: 'u', content: [{ type: 'text', text: 'look' }, image] },
      assistant('a1', ['c1']),
      failed,
      user('u2', 'z'.repeat(1000)),
      user('u3'),
    ];
    await s.wrapModelCall({ systemPrompt: '', messages: history, tools: [] }, send([]), hookContext());
    const input = summarizerInput(summarizer.requests[0]!);
    expect(input).toContain('[user]\nlook\n[image: image/png shot.png]');
    expect(input).toContain('[assistant]\nreply a1\n[assistant called tool echo] {"text":"c1"}');
    expect(input).toContain('[result of tool echo (error)]\nnot found: /large_tool_results/abc');
    expect(input).toContain(`${'z'.repeat(400)}… [line cut: 400 of 1000 characters shown]`);
    expect(input).not.toContain('A'.repeat(50));
  });
});

describe('messagesTokens', () => {
  it('counts text, tool calls, and a media part as a fixed modest amount whatever its size', () => {
    const photo = { type: 'image' as const, mimeType: 'image/jpeg', data: 'A'.repeat(400_000) };
    const withPhoto: Message = { role: 'user', id: 'u', content: [{ type: 'text', text: 'abcd'.repeat(10) }, photo] };
    expect(messagesTokens([withPhoto])).toBe(10 + mediaPartTokens);
    expect(messagesTokens([assistant('a', ['c'])])).toBe(
      Math.ceil('reply a'.length / 4) + Math.ceil('echo{"text":"c"}'.length / 4),
    );
  });
});
