import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createAgentLoop } from '../../lib/runtime/agent.js';
import { block, type Middleware } from '../../lib/runtime/middleware.js';
import { composeSystemPrompt, minPromptSectionTokens } from '../../lib/runtime/prompt.js';
import { estimateTokens } from '../../lib/shared/text.js';
import { scriptedModel } from '../../lib/testing.js';
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
    const agent = createAgentLoop({
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

  it('cuts the sections over maxPromptSectionTokens with a marker naming them, the marker within the bound', async () => {
    const model = scriptedModel([say('ok')]);
    const base = 'Base prompt stays whole.';
    const agent = createAgentLoop({
      model,
      systemPrompt: base,
      maxPromptSectionTokens: 100,
      middleware: [
        section('small', () => 'a'.repeat(80)),
        section('big', () => 'b'.repeat(600)),
        section('late', () => 'c'.repeat(40)),
      ],
    });
    await agent.run('go', { threadId: 't' });
    const prompt = model.requests[0]!.systemPrompt;
    const marker =
      '[System prompt sections cut: about 118 of 180 estimated tokens removed to stay within ' +
      'maxPromptSectionTokens (100). Cut: "big" (partly), "late".]';
    // 400 characters after the base: separator, "small", separator, 169 of "big", separator, marker.
    expect(prompt).toBe(`${base}\n\n${'a'.repeat(80)}\n\n${'b'.repeat(169)}\n\n${marker}`);
    expect(prompt.length - base.length).toBe(400);
  });

  it('counts the separators: sections that fit only without them are cut', () => {
    const sections = [
      { name: 'a', text: 'x'.repeat(15_998) },
      { name: 'b', text: 'y'.repeat(15_998) },
    ];
    // 2 + 15 998 + 2 + 15 998 = 32 000 characters = 8000 estimated tokens: just fits.
    expect(composeSystemPrompt('Base', sections, 8000)).toBe(`Base\n\n${'x'.repeat(15_998)}\n\n${'y'.repeat(15_998)}`);
    // Without a base there is no separator before the first section.
    const longer = [sections[0]!, { name: 'b', text: 'y'.repeat(16_000) }];
    expect(composeSystemPrompt('', longer, 8000)).toBe(`${'x'.repeat(15_998)}\n\n${'y'.repeat(16_000)}`);
    const cut = composeSystemPrompt('Base', longer, 8000);
    expect(cut).toMatch(
      /\n\n\[System prompt sections cut: about \d+ of 8000 estimated tokens removed .* Cut: "b" \(partly\)\.\]$/,
    );
    expect(estimateTokens(cut.slice('Base'.length))).toBeLessThanOrEqual(8000);
  });

  it('falls back to shorter markers when the names do not fit, and needs room for the shortest', () => {
    const long = { name: 'n'.repeat(300), text: 'y'.repeat(500) };
    expect(composeSystemPrompt('', [long], 30)).toBe(`${'y'.repeat(90)}\n\n[System prompt sections cut]`);
    expect(composeSystemPrompt('B', [long], minPromptSectionTokens)).toBe('B\n\n[System prompt sections cut]');
    expect(composeSystemPrompt('B', [long], 40)).toMatch(
      /^B\n\ny+\n\n\[System prompt sections cut: about \d+ of 125 estimated tokens removed to stay within maxPromptSectionTokens \(40\)\. Sections cut: 1\.\]$/,
    );
    expect(() =>
      createAgentLoop({ model: scriptedModel([]), maxPromptSectionTokens: minPromptSectionTokens - 1 }),
    ).toThrow(
      `createAgent: options.maxPromptSectionTokens must be an integer of at least ${minPromptSectionTokens}, got 7`,
    );
  });

  it('keeps sections, separators and marker within maxPromptSectionTokens, cutting in order and never silently', () => {
    const name = fc.string({ minLength: 1, maxLength: 40 });
    // Odd sizes, astral characters, lone surrogates and blank lines; a few very long sections.
    const piece = fc.constantFrom('a', 'bc', 'é', '😀', '\ud83d', '\n\n', ' ', 'xyz');
    const text = fc.oneof(
      fc.array(piece, { maxLength: 30 }).map((pieces) => pieces.join('')),
      fc
        .tuple(fc.array(piece, { minLength: 1, maxLength: 5 }), fc.integer({ min: 10, max: 700 }))
        .map(([pieces, times]) => pieces.join('').repeat(times)),
      fc.integer({ min: 1, max: 12_000 }).map((n) => 'z'.repeat(n)),
    );
    const property = fc.property(
      fc.oneof(fc.constant(''), fc.string({ maxLength: 200 })),
      fc.array(fc.record({ name, text }), { maxLength: 30 }),
      fc.integer({ min: minPromptSectionTokens, max: 3000 }),
      (base, sections, maxTokens) => {
        const prompt = composeSystemPrompt(base, sections, maxTokens);
        expect(prompt.startsWith(base)).toBe(true);
        expect(estimateTokens(prompt.slice(base.length))).toBeLessThanOrEqual(maxTokens);
        const texts = sections.map((s) => s.text).filter((t) => t !== '');
        const whole = [base, ...texts].filter((t) => t !== '').join('\n\n');
        if (estimateTokens(whole.slice(base.length)) <= maxTokens) {
          expect(prompt).toBe(whole);
          return;
        }
        // Whole sections in order, then at most one head of the next, then the marker.
        let rest = prompt.slice(base === '' ? 0 : base.length + 2);
        let i = 0;
        while (i < texts.length && rest.startsWith(`${texts[i]}\n\n`)) rest = rest.slice(texts[i++]!.length + 2);
        const markerAt = rest.indexOf('[System prompt sections cut');
        expect(
          markerAt === 0 || (markerAt > 2 && rest.slice(0, markerAt - 2) === texts[i]!.slice(0, markerAt - 2)),
        ).toBe(true);
        const marker = rest.slice(markerAt);
        expect(marker).toMatch(/^\[System prompt sections cut(: about \d+ of \d+ estimated tokens removed .*)?\]$/s);
        if (marker.includes('. Cut: ')) {
          const cutNames = sections
            .filter((s) => s.text !== '')
            .slice(i)
            .map((s) => JSON.stringify(s.name));
          expect(cutNames.filter((quoted) => !marker.includes(quoted))).toEqual([]);
        }
      },
    );
    fc.assert(property, { numRuns: 300 });
  });

  it('a Block from systemPrompt fails the run', async () => {
    const agent = createAgentLoop({
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
    const agent = createAgentLoop({
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
    const agent = createAgentLoop({
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
