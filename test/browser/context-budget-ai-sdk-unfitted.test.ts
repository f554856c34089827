// C8: a budget is never skipped silently. With the real `ai` package and its MockLanguageModelV4:
// an offload with a contextBudget whose withOffload prepareStep is not passed to generateText or
// streamText says so once per offload (an event and a console.warn naming the fix); passed, or
// with no budget, nothing is said.
import { generateText, stepCountIs, streamText } from 'ai';
import { afterEach, describe, expect, it, type MockInstance, vi } from 'vitest';
import { type OffloadEvent, withOffload } from '../../adapters/ai-sdk/index.js';
import { contextLedger } from '../../lib/context.js';
import { MemoryOffloadStore, ToolOutputOffload } from '../../lib/index.js';
import { scriptedAiModel } from './fixtures/ai-sdk-model.js';
import { budgetedOffload, emitTool, ledgerOf } from './fixtures/context-ai-sdk-session.js';

const threadId = 'chat-1';
const budget = { maxRequestTokens: 3000 };
/** Three steps: two tool calls of about 2,000 tokens each, then the answer. */
const threeSteps = () =>
  scriptedAiModel([
    { toolCalls: [{ id: 'call-1', name: 'emit', input: { tag: 'r1', tokens: 2000 } }] },
    { toolCalls: [{ id: 'call-2', name: 'emit', input: { tag: 'r2', tokens: 2000 } }] },
    { text: 'done' },
  ]);

let warn: MockInstance<typeof console.warn> | undefined;
afterEach(() => warn?.mockRestore());
const watchWarnings = () => {
  warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
  return () => warn!.mock.calls.map((args) => String(args[0])).filter((text) => text.startsWith('tool-output-offload'));
};
const notFitted = (events: OffloadEvent[]) => events.filter((event) => event.type === 'context-not-fitted');

describe('withOffload without its prepareStep (C8)', () => {
  for (const mode of ['generateText', 'streamText'] as const) {
    it(`${mode}: one event and one console warning naming the fix, once per offload`, async () => {
      const warnings = watchWarnings();
      const offload = budgetedOffload(new MemoryOffloadStore(), budget);
      const events: OffloadEvent[] = [];
      for (let run = 0; run < 2; run++) {
        const { tools, system } = withOffload(
          offload,
          { emit: emitTool },
          { threadId, onEvent: (e) => events.push(e) },
        );
        const options = { model: threeSteps(), tools, system, prompt: 'go', stopWhen: stepCountIs(5) };
        if (mode === 'generateText') expect((await generateText(options)).text).toBe('done');
        else expect(await streamText(options).text).toBe('done');
      }
      const fix = expect.stringMatching(/prepareStep was not passed to generateText, streamText or ToolLoopAgent/);
      expect(notFitted(events)).toEqual([{ type: 'context-not-fitted', threadId, fix }]);
      expect(warnings()).toEqual([`tool-output-offload: ${(notFitted(events)[0] as { fix: string }).fix}`]);
      expect(warnings()[0]).toContain("Pass `prepareStep` from withOffload's result");
      // Unfitted indeed: no request was recorded.
      expect(await offload.store.requests!(threadId)).toEqual([]);
    });
  }

  it('says nothing when prepareStep is passed: every request is fitted and recorded', async () => {
    const warnings = watchWarnings();
    const store = new MemoryOffloadStore();
    const offload = budgetedOffload(store, budget);
    const events: OffloadEvent[] = [];
    const { tools, system, prepareStep } = withOffload(
      offload,
      { emit: emitTool },
      { threadId, onEvent: (e) => events.push(e) },
    );
    const result = await generateText({
      model: threeSteps(),
      tools,
      system,
      prepareStep,
      prompt: 'go',
      stopWhen: stepCountIs(5),
    });
    expect(result.text).toBe('done');
    expect(await ledgerOf(store, threadId, 3)).toHaveLength(3);
    expect(notFitted(events)).toEqual([]);
    expect(warnings()).toEqual([]);
  });

  it('says nothing without a contextBudget (nothing to fit to)', async () => {
    const warnings = watchWarnings();
    const offload = new ToolOutputOffload({
      ledger: contextLedger,
      store: new MemoryOffloadStore(),
      thresholdTokens: 5000,
    });
    const events: OffloadEvent[] = [];
    const { tools } = withOffload(offload, { emit: emitTool }, { threadId, onEvent: (e) => events.push(e) });
    const result = await generateText({ model: threeSteps(), tools, prompt: 'go', stopWhen: stepCountIs(5) });
    expect(result.text).toBe('done');
    expect(notFitted(events)).toEqual([]);
    expect(warnings()).toEqual([]);
  });
});
