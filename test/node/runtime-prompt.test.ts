import { describe, expect, it } from 'vitest';
import { createAgent } from '../../lib/runtime/agent.js';
import { block, type Middleware } from '../../lib/runtime/middleware.js';
import { boundSections } from '../../lib/runtime/prompt.js';
import { scriptedModel } from '../../lib/testing.js';
import { estimateTokens } from '../../lib/text.js';
import { call, calls, echo, RecordingCheckpointer, say } from './runtime-fixtures.js';

const section = (name: string, text: (step: number) => string | undefined): Middleware => ({
  name,
  systemPrompt: (context) => text(context.step),
});

describe('R3 system prompt sections', () => {
  it('are added after the agent prompt in stack order, collected before every step, and never stored', async () => {
    const stepCounter: Middleware = {
      name: 'steps',
      writes: { modelCalls: { initial: 0 } },
      systemPrompt: (context) => `Model calls so far: ${context.state.modelCalls}`,
      wrapModelCall: async (request, next, context) => ({
        ...(await next(request)),
        update: { modelCalls: (context.state.modelCalls as number) + 1 },
      }),
    };
    const model = scriptedModel([calls(call('echo', { text: 'x' })), say('done')]);
    const checkpointer = new RecordingCheckpointer();
    const agent = createAgent({
      model,
      tools: [echo],
      systemPrompt: 'You are helpful.',
      middleware: [section('first', () => 'Section one.'), stepCounter, section('empty', () => undefined)],
      checkpointer,
    });
    await agent.run('go', { threadId: 't' });
    expect(model.requests.map((r) => r.systemPrompt)).toEqual([
      'You are helpful.\n\nSection one.\n\nModel calls so far: 0',
      'You are helpful.\n\nSection one.\n\nModel calls so far: 1',
    ]);
    expect(JSON.stringify(checkpointer.saves)).not.toContain('Section one.');
  });

  it('cuts the sections over maxPromptSectionTokens with a visible marker, never dropping one silently', async () => {
    const model = scriptedModel([say('ok')]);
    const agent = createAgent({
      model,
      systemPrompt: 'Base prompt stays whole.',
      maxPromptSectionTokens: 30,
      middleware: [
        section('small', () => 'a'.repeat(80)),
        section('big', () => 'b'.repeat(200)),
        section('late', () => 'c'.repeat(40)),
      ],
    });
    await agent.run('go', { threadId: 't' });
    const prompt = model.requests[0]!.systemPrompt;
    expect(prompt.startsWith(`Base prompt stays whole.\n\n${'a'.repeat(80)}\n\n${'b'.repeat(40)}\n\n[`)).toBe(true);
    expect(prompt).not.toContain('cccc');
    expect(prompt).toContain('about 50 of 80 estimated tokens removed');
    expect(prompt).toContain('maxPromptSectionTokens (30)');
    expect(prompt).toContain('"big" (partly), "late"');
  });

  it('keeps all sections untouched within the bound (default 8000)', () => {
    const sections = [
      { name: 'a', text: 'x'.repeat(16_000) },
      { name: 'b', text: 'y'.repeat(16_000) },
    ];
    expect(boundSections(sections, 8000)).toEqual(sections.map((s) => s.text));
    const cut = boundSections([...sections, { name: 'c', text: 'z' }], 8000);
    expect(cut.slice(0, 2)).toEqual(sections.map((s) => s.text));
    expect(cut.at(-1)).toMatch(/^\[System prompt sections cut: about 1 of 8001 estimated tokens removed/);
    expect(estimateTokens(cut.slice(0, -1).join(''))).toBeLessThanOrEqual(8000);
  });

  it('a Block from systemPrompt fails the run', async () => {
    const agent = createAgent({
      model: scriptedModel([say('never')]),
      middleware: [{ name: 'gate', systemPrompt: () => block('prompt unavailable') }],
    });
    const result = await agent.run('go', { threadId: 't' });
    expect(result).toMatchObject({
      status: 'failed',
      reason: 'systemPrompt of middleware "gate" blocked: prompt unavailable',
    });
  });

  it('an exception in systemPrompt fails the run naming the middleware', async () => {
    const model = scriptedModel([say('never')]);
    const agent = createAgent({
      model,
      middleware: [
        {
          name: 'flaky',
          systemPrompt: () => {
            throw new Error('store closed');
          },
        },
      ],
    });
    const result = await agent.run('go', { threadId: 't' });
    expect(result).toMatchObject({
      status: 'failed',
      reason: 'systemPrompt of middleware "flaky" threw: store closed',
    });
    expect(model.requests).toHaveLength(0);
  });

  it('a failed model step is redone by recover, with the prompt collected again', async () => {
    let broken = true;
    const model = scriptedModel([say('answer')]);
    const agent = createAgent({
      model,
      middleware: [
        section('maybe', () => {
          if (broken) throw new Error('not yet');
          return 'ready';
        }),
      ],
    });
    expect((await agent.run('go', { threadId: 't' })).status).toBe('failed');
    broken = false;
    const result = await agent.recover('t');
    expect(result.status).toBe('completed');
    expect(model.requests[0]!.systemPrompt).toBe('ready');
  });
});
