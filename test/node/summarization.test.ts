// Summarization in the agent loop: when it summarizes, what the model is sent, what is kept.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAgentLoop } from '../../lib/runtime/agent.js';
import type { LoopEvent as RunEvent } from '../../lib/runtime/events.js';
import type { Message } from '../../lib/runtime/messages.js';
import { block, type Middleware } from '../../lib/runtime/middleware.js';
import type { Model, ModelReply } from '../../lib/runtime/model.js';
import { joinText } from '../../lib/shared/content.js';
import { Summarization, type SummarizationEvent } from '../../lib/summarization/summarization.js';
import { scriptedModel } from '../../lib/testing.js';
import { echo } from './runtime-fixtures.js';
import { recordingSummarizer, summarizerInput, toolCall } from './summarization-fixtures.js';

afterEach(() => vi.restoreAllMocks());

const marker = '[Summary of earlier conversation]';

/** An echo of 200 copies of `letter`: its call and its result are about 55 estimated tokens each. */
const echoStep = (letter: string): ModelReply => toolCall('echo', { text: letter.repeat(200) });

interface Setup {
  triggerTokens: number;
  keepMessages?: number;
  summarizer?: Model;
  extra?: Middleware[];
}

/** The events Summarization emitted into a run's events. */
const summarizationEvents = (events: readonly RunEvent[]) =>
  events.filter((e): e is SummarizationEvent => e.middleware === 'Summarization');

/**
 * One run of echo steps (one per letter), then "done"; returns the agent model, the history and
 * Summarization's events (from RunResult.events).
 */
async function echoRun(letters: string[], setup: Setup) {
  const summarizer = setup.summarizer ?? recordingSummarizer();
  const summarization = new Summarization({
    model: summarizer,
    triggerTokens: setup.triggerTokens,
    keepMessages: setup.keepMessages ?? 2,
  });
  const model = scriptedModel([...letters.map(echoStep), { content: 'done' }]);
  const agent = createAgentLoop({ model, tools: [echo], middleware: [summarization, ...(setup.extra ?? [])] });
  const result = await agent.run('start', { threadId: 't1' });
  const history = await agent.messages('t1');
  const state = (await agent.state('t1'))[Summarization.key] as { summary: string; coveredMessageIds: string[] };
  return { agent, model, summarizer, result, history, state, events: summarizationEvents(result.events) };
}

const ids = (messages: readonly Message[]) => messages.map((m) => m.id);
const summaryText = (message: Message) => joinText(message.content);

describe('Summarization: trigger and keep', () => {
  it('sends every request untouched while the messages stay within triggerTokens', async () => {
    const { model, summarizer, result, history, state, events } = await echoRun(['a', 'b', 'c'], {
      triggerTokens: 1000,
    });
    expect(result.status).toBe('completed');
    expect(model.requests).toHaveLength(4);
    model.requests.forEach((request, i) => {
      expect(request.messages).toEqual(history.slice(0, 1 + 2 * i));
    });
    expect((summarizer as ReturnType<typeof recordingSummarizer>).requests).toEqual([]);
    expect(state).toEqual({ summary: '', coveredMessageIds: [] });
    expect(events).toEqual([]);
  });

  it('over triggerTokens, sends a summary of the older messages and the last keepMessages as they are', async () => {
    const summarizer = recordingSummarizer();
    // Steps 1–3 stay under 300 tokens (user + two echo pairs ≈ 220); step 4 (three pairs ≈ 330) is over.
    const { model, result, history, state, events } = await echoRun(['a', 'b', 'c'], {
      triggerTokens: 300,
      summarizer,
    });
    expect(result.status).toBe('completed');
    expect(model.requests[2]!.messages).toEqual(history.slice(0, 5));
    const sent = model.requests[3]!.messages;
    expect(sent).toHaveLength(3);
    expect(sent[0]).toMatchObject({ role: 'user' });
    expect(summaryText(sent[0]!)).toBe(`${marker}\nsummary 1`);
    expect(sent.slice(1)).toEqual(history.slice(5, 7)); // the last two: echo c's call and result
    expect(state).toEqual({ summary: 'summary 1', coveredMessageIds: ids(history.slice(0, 5)) });

    // The summarizer got the older messages as text, with instructions and no tools.
    expect(summarizer.requests).toHaveLength(1);
    const [asked] = summarizer.requests;
    expect(asked!.tools).toEqual([]);
    expect(asked!.systemPrompt).toMatch(/faithful/i);
    expect(asked!.systemPrompt).toContain('/large_tool_results/');
    expect(asked!.systemPrompt).toMatch(/verbatim/);
    const input = summarizerInput(asked!);
    expect(input).toContain('start');
    expect(input).toContain('a'.repeat(200));
    expect(input).toContain(`echo: ${'b'.repeat(200)}`);
    expect(input).not.toContain('c'.repeat(200));
    expect(events).toEqual([
      expect.objectContaining({ type: 'summarized', threadId: 't1', step: 4, coveredMessages: 5 }),
    ]);
    const [event] = events as Array<Extract<SummarizationEvent, { type: 'summarized' }>>;
    expect(event!.tokensBefore).toBeGreaterThan(300);
    expect(event!.tokensAfter).toBeLessThan(event!.tokensBefore);
  });

  it('keeps the thread history whole: every message stays in the agent and the result', async () => {
    const { agent, result, history, state } = await echoRun(['a', 'b', 'c'], { triggerTokens: 300 });
    expect(history).toHaveLength(8); // user, 3 × (call, result), done
    expect(state.coveredMessageIds).toHaveLength(5);
    expect(ids(history)).toEqual(expect.arrayContaining(state.coveredMessageIds));
    expect(result.messages).toEqual(history);
    expect(joinText(history[0]!.content)).toBe('start');
    expect(history.some((m) => joinText(m.content).includes(marker))).toBe(false);
    expect(await agent.messages('t1')).toEqual(history);
  });

  it('the next model call sees the summary in place of the covered messages', async () => {
    const { model, history } = await echoRun(['a', 'b', 'c', 'd'], { triggerTokens: 300 });
    // Step 5: summary + c's pair + d's pair ≈ 230 tokens: no new summary, the old one is sent again.
    const sent = model.requests[4]!.messages;
    expect(summaryText(sent[0]!)).toBe(`${marker}\nsummary 1`);
    expect(sent.slice(1)).toEqual(history.slice(5, 9));
  });

  it('accumulates: a later summary is asked to merge the previous one and covers every message so far', async () => {
    const summarizer = recordingSummarizer();
    const { model, history, state } = await echoRun(['a', 'b', 'c', 'd', 'e'], { triggerTokens: 300, summarizer });
    expect(summarizer.requests).toHaveLength(2);
    const second = summarizerInput(summarizer.requests[1]!);
    expect(second).toContain('Previous summary:\nsummary 1');
    expect(second).toContain('c'.repeat(200));
    expect(second).toContain('d'.repeat(200));
    expect(second).not.toContain('a'.repeat(200)); // already in summary 1
    expect(second).not.toContain('e'.repeat(200)); // kept
    const sent = model.requests[5]!.messages;
    expect(summaryText(sent[0]!)).toBe(`${marker}\nsummary 2`);
    expect(sent.slice(1)).toEqual(history.slice(9, 11));
    expect(state).toEqual({ summary: 'summary 2', coveredMessageIds: ids(history.slice(0, 9)) });
  });

  it('summarizes across runs of the same thread, from the key it saved', async () => {
    const summarizer = recordingSummarizer();
    const summarization = new Summarization({ model: summarizer, triggerTokens: 300, keepMessages: 2 });
    const model = scriptedModel([echoStep('a'), echoStep('b'), echoStep('c'), { content: 'one' }, { content: 'two' }]);
    const agent = createAgentLoop({ model, tools: [echo], middleware: [summarization] });
    await agent.run('first', { threadId: 't1' });
    await agent.run('second', { threadId: 't1' });
    const history = await agent.messages('t1');
    const sent = model.requests[4]!.messages;
    expect(summaryText(sent[0]!)).toBe(`${marker}\nsummary 1`);
    expect(sent.slice(1)).toEqual(history.slice(5, 9)); // c's pair, "one", "second"
  });
});

describe('Summarization: failures never lose messages', () => {
  it('a summarizer that throws leaves the request as it was, says so, and the run completes', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    let calls = 0;
    const summarizer: Model = async () => {
      calls++;
      if (calls === 1) throw new Error('rate limited');
      return { content: 'summary after retry' };
    };
    const { model, result, history, state, events } = await echoRun(['a', 'b', 'c', 'd'], {
      triggerTokens: 300,
      summarizer,
    });
    expect(result.status).toBe('completed');
    expect(model.requests[3]!.messages).toEqual(history.slice(0, 7)); // unsummarized
    expect(events[0]).toEqual({
      type: 'summary-failed',
      middleware: 'Summarization',
      threadId: 't1',
      turnId: expect.any(String),
      at: expect.any(Number),
      step: 4,
      reason: 'rate limited',
      aborted: false,
    });
    // Reported among the run's events where it happened: before step 4's model call, which went unsummarized.
    const order = result.events.map((e) => (e.type === 'model-call' ? `model-call ${e.step}` : e.type));
    expect(order.indexOf('summary-failed')).toBe(order.indexOf('model-call 4') - 1);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('rate limited'));
    // The next step tries again.
    expect(summaryText(model.requests[4]!.messages[0]!)).toBe(`${marker}\nsummary after retry`);
    expect(events[1]).toMatchObject({ type: 'summarized', step: 5 });
    expect(state.summary).toBe('summary after retry');
    expect(history).toHaveLength(10);
  });

  it('a failure after an earlier summary sends the earlier summary and everything it does not cover', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    const summarizer = recordingSummarizer((_request, n) => {
      if (n === 2) throw new Error('boom');
      return { content: `summary ${n}` };
    });
    const { model, history, state, events } = await echoRun(['a', 'b', 'c', 'd', 'e'], {
      triggerTokens: 300,
      summarizer,
    });
    const sent = model.requests[5]!.messages;
    expect(summaryText(sent[0]!)).toBe(`${marker}\nsummary 1`);
    expect(sent.slice(1)).toEqual(history.slice(5, 11));
    expect(events.map((e) => e.type)).toEqual(['summarized', 'summary-failed']);
    expect(state).toEqual({ summary: 'summary 1', coveredMessageIds: ids(history.slice(0, 5)) });
  });

  it('an empty summary counts as a failure', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    const { model, history, events } = await echoRun(['a', 'b', 'c'], {
      triggerTokens: 300,
      summarizer: async () => ({ content: '  ' }),
    });
    expect(model.requests[3]!.messages).toEqual(history.slice(0, 7));
    expect(events).toEqual([
      expect.objectContaining({ type: 'summary-failed', reason: expect.stringMatching(/no text/) }),
    ]);
  });

  it('an aborted summary call stops the run without losing a message or writing a summary', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    const controller = new AbortController();
    // A summarizer that never answers and ignores the signal: the abort must still end the wait.
    const summarizer: Model = () => {
      queueMicrotask(() => controller.abort());
      return new Promise(() => {});
    };
    const summarization = new Summarization({
      model: summarizer,
      triggerTokens: 300,
      keepMessages: 2,
    });
    const model = scriptedModel([echoStep('a'), echoStep('b'), echoStep('c'), { content: 'done' }]);
    const agent = createAgentLoop({ model, tools: [echo], middleware: [summarization] });
    const result = await agent.run('start', { threadId: 't1', signal: controller.signal });
    expect(result).toMatchObject({ status: 'failed', reason: 'aborted' });
    expect(model.requests).toHaveLength(3);
    expect(summarizationEvents(result.events)).toEqual([
      expect.objectContaining({ type: 'summary-failed', reason: 'aborted', aborted: true }),
    ]);
    expect(result.events.at(-1)).toMatchObject({ type: 'run-ended', status: 'failed', reason: 'aborted' });
    const history = await agent.messages('t1');
    expect(history).toHaveLength(7);
    expect((await agent.state('t1'))[Summarization.key]).toEqual({ summary: '', coveredMessageIds: [] });
  });

  it('an output Block undoes the summary its turn wrote', async () => {
    const guard: Middleware = {
      name: 'guard',
      afterAgent: (output) => (joinText(output.content) === 'done' ? block('not allowed') : undefined),
    };
    const { agent, result, events } = await echoRun(['a', 'b', 'c'], { triggerTokens: 300, extra: [guard] });
    expect(result.status).toBe('blocked');
    expect(events.map((e) => e.type)).toEqual(['summarized']);
    expect((await agent.state('t1'))[Summarization.key]).toEqual({ summary: '', coveredMessageIds: [] });
    expect(await agent.messages('t1')).toEqual([]);
  });

  it("tells createAgent's onEvent listener as it happens, the same events as RunResult.events", async () => {
    const heard: RunEvent[] = [];
    const summarization = new Summarization({ model: recordingSummarizer(), triggerTokens: 300, keepMessages: 2 });
    const model = scriptedModel([echoStep('a'), echoStep('b'), echoStep('c'), { content: 'done' }]);
    const agent = createAgentLoop({
      model,
      tools: [echo],
      middleware: [summarization],
      onEvent: (e) => heard.push(e),
    });
    const result = await agent.run('start', { threadId: 't1' });
    expect(summarizationEvents(heard)).toEqual([
      expect.objectContaining({ type: 'summarized', middleware: 'Summarization', threadId: 't1', step: 4 }),
    ]);
    expect(heard).toEqual(result.events);
  });
});
