// The context budget (C1–C6) through the AI SDK's way in: withOffload's prepareStep with
// generateText, streamText and ToolLoopAgent, across convertToModelMessages re-conversions of UI
// messages, on both stores, with the SDK's own MockLanguageModelV4 (it records every prompt).
// Also issue 24's "an evicted read says the same in every runtime".
import {
  convertToModelMessages,
  generateText,
  type ModelMessage,
  stepCountIs,
  streamText,
  ToolLoopAgent,
  type ToolSet,
  tool,
  type UIMessage,
} from 'ai';
import { AIMessage } from 'langchain';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type OffloadEvent, withOffload } from '../../adapters/ai-sdk/index.js';
import { contextLedger } from '../../lib/context.js';
import { MemoryOffloadStore, ToolOutputOffload, type WritableOffloadStore } from '../../lib/index.js';
import { scriptedModel } from '../../lib/testing.js';
import { offloadAgent as builtInAgent, calls, lastToolText, reply } from '../node/offload-harness.js';
import { pathIn, scriptedAiModel } from './fixtures/ai-sdk-model.js';
import {
  budgetedOffload,
  emitTool,
  ledgerOf,
  resultIn,
  sized,
  textIn,
  uiMessageOf,
  userMessage,
  userTexts,
} from './fixtures/context-ai-sdk-session.js';
import { contextStores, deleteContextStores } from './fixtures/context-stores.js';
import {
  ask,
  fakeModel,
  offloadAgent as langChainAgent,
  lastToolMessage,
  textOf,
  thread,
} from './langchain-fixtures.js';

afterEach(deleteContextStores);

const threadId = 'chat-1';
const emitCall = (id: string, tag: string, tokens: number) => ({ id, name: 'emit', input: { tag, tokens } });
const clearedOf = async (store: WritableOffloadStore) => (await store.cleared!(threadId)) ?? [];
const contextEvents = (events: OffloadEvent[]) => events.filter((event) => event.type.startsWith('context-'));

type Mode = 'generateText' | 'streamText';

/** Runs one call of `mode` to the end: its steps and response messages (the SDK's history). */
async function runIn<TOOLS extends ToolSet>(mode: Mode, options: Parameters<typeof generateText<TOOLS>>[0]) {
  if (mode === 'generateText') {
    const result = await generateText(options);
    return { steps: result.steps, responseMessages: result.responseMessages, text: result.text };
  }
  const run = streamText(options as Parameters<typeof streamText<TOOLS>>[0]);
  await run.consumeStream();
  return { steps: await run.steps, responseMessages: await run.responseMessages, text: await run.text };
}

/** The tool results' outputs the history (response messages) keeps, by toolCallId. */
function historyOutputs(messages: readonly ModelMessage[]): Map<string, unknown> {
  const outputs = new Map<string, unknown>();
  for (const message of messages) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) if (part.type === 'tool-result') outputs.set(part.toolCallId, part.output);
  }
  return outputs;
}

for (const kind of contextStores) {
  describe(`withOffload's prepareStep on ${kind.name}`, () => {
    for (const mode of ['generateText', 'streamText'] as const) {
      it(`${mode}: old results are cleared oldest first to pointers that read back, the newest kept, history unchanged (C1–C5)`, async () => {
        const store = kind.open();
        const offload = budgetedOffload(store, { maxRequestTokens: 6000, keepRecentResults: 2 });
        const events: OffloadEvent[] = [];
        const { tools, system, prepareStep } = withOffload(
          offload,
          { emit: emitTool },
          { threadId, onEvent: (event) => events.push(event) },
        );
        const model = scriptedAiModel([
          ...[1, 2, 3, 4, 5].map((i) => ({ toolCalls: [emitCall(`call-${i}`, `r${i}`, 2000)] })),
          (prompt) => ({
            toolCalls: [
              { id: 'call-read', name: 'read_file', input: { path: pathIn(textIn(prompt, 'call-1')), limit: 2 } },
            ],
          }),
          { text: 'done' },
        ]);
        const run = await runIn(mode, {
          model,
          tools,
          prepareStep,
          instructions: `You are a test agent.\n${system}`,
          prompt: 'Emit five results.',
          stopWhen: stepCountIs(10),
        });

        expect(run.text).toBe('done');
        expect(model.prompts).toHaveLength(7);
        const whole = (i: number) => sized(`r${i}`, 2000);
        // Within the budget (about 750 tokens of instructions and tool specs, then 2000 a result): every result whole.
        for (const [step, shown] of [
          [0, []],
          [1, [1]],
          [2, [1, 2]],
        ] as const) {
          for (const i of shown) expect(textIn(model.prompts[step]!, `call-${i}`)).toBe(whole(i));
        }
        // The fourth request is over: the oldest is cleared, the two newest kept (keepRecentResults: 2).
        const cleared = await clearedOf(store);
        expect(cleared.map((record) => record.toolCallId)).toEqual(['call-1', 'call-2', 'call-3']);
        const pointer = (i: number) => cleared[i - 1]!.pointer;
        const expected: Array<Array<'pointer' | 'whole'>> = [
          ['pointer', 'whole', 'whole'],
          ['pointer', 'pointer', 'whole', 'whole'],
          ['pointer', 'pointer', 'pointer', 'whole', 'whole'],
          ['pointer', 'pointer', 'pointer', 'whole', 'whole'],
        ];
        expected.forEach((shownAs, n) => {
          shownAs.forEach((as, k) => {
            const text = textIn(model.prompts[n + 3]!, `call-${k + 1}`);
            expect(text, `request ${n + 4}, result ${k + 1}`).toBe(as === 'pointer' ? pointer(k + 1) : whole(k + 1));
          });
        });
        for (const record of cleared) {
          // C2: a short pointer naming its path and tool; C3: the path is stored (results under the threshold when first cleared).
          expect(offload.measure.tokens(record.pointer)).toBeLessThanOrEqual(60);
          expect(record.pointer).toContain('emit');
          expect(pathIn(record.pointer)).toBe(record.path);
          expect(record.toolName).toBe('emit');
        }
        const paths = cleared.map((record) => record.path!);
        expect((await store.list(threadId)).map((entry) => entry.path).sort()).toEqual([...paths].sort());
        // The model read the first one back at its path.
        const read = textIn(model.prompts[6]!, 'call-read');
        expect(read).toContain('r1 line 0 ');
        expect(read).toContain('r1 line 1 ');

        // The SDK's history keeps every result as the tool returned it.
        expect(run.steps.slice(0, 5).map((step) => step.toolResults[0]!.output)).toEqual([1, 2, 3, 4, 5].map(whole));
        const history = historyOutputs(run.responseMessages);
        for (const i of [1, 2, 3, 4, 5]) expect(history.get(`call-${i}`)).toEqual({ type: 'text', value: whole(i) });

        // C6: each clearing told once, with the paths it cleared.
        const told = contextEvents(events);
        expect(told).toEqual(
          paths.map((path) => ({
            type: 'context-cleared',
            threadId,
            paths: [path],
            tokensBefore: expect.any(Number),
            tokensAfter: expect.any(Number),
          })),
        );
        for (const event of told as Array<Extract<OffloadEvent, { type: 'context-cleared' }>>) {
          expect(event.tokensBefore).toBeGreaterThan(6000);
          expect(event.tokensAfter).toBeLessThanOrEqual(6000);
        }
        // The ledger: one record a model call, each within the budget.
        const requests = await ledgerOf(store, threadId, 7);
        expect(requests.map((record) => record.step)).toEqual([1, 2, 3, 4, 5, 6, 7]);
        for (const record of requests) expect(record.tokens).toBeLessThanOrEqual(6000);
      });
    }

    it("the app's own prepareStep runs first: what it returns is fitted, its other settings kept, the history unchanged", async () => {
      const store = kind.open();
      const offload = budgetedOffload(store, { maxRequestTokens: 6000, keepRecentResults: 0 });
      const note = sized('note', 2500);
      const seen: Array<{ stepNumber: number; results: string[] }> = [];
      const { tools, prepareStep } = withOffload(
        offload,
        { emit: emitTool },
        {
          threadId,
          prepareStep: ({ stepNumber, messages }) => {
            seen.push({
              stepNumber,
              results: messages.flatMap((m) =>
                m.role === 'tool'
                  ? m.content.flatMap((p) =>
                      p.type === 'tool-result' && p.output.type === 'text' ? [p.output.value] : [],
                    )
                  : [],
              ),
            });
            if (stepNumber !== 2) return undefined;
            return { messages: [...messages, { role: 'user', content: note }], temperature: 0.25 };
          },
        },
      );
      const model = scriptedAiModel([
        { toolCalls: [emitCall('call-1', 'r1', 2000)] },
        { toolCalls: [emitCall('call-2', 'r2', 2000)] },
        { text: 'done' },
      ]);
      const result = await generateText({ model, tools, prepareStep, prompt: 'go', stopWhen: stepCountIs(5) });

      // The app's hook got the SDK's messages, every result whole.
      expect(seen).toEqual([
        { stepNumber: 0, results: [] },
        { stepNumber: 1, results: [sized('r1', 2000)] },
        { stepNumber: 2, results: [sized('r1', 2000), sized('r2', 2000)] },
      ]);
      // Only with the app's note is the request over 6000 (about 7250): the offload measured what the hook returned.
      const [cleared] = await clearedOf(store);
      expect(cleared?.toolCallId).toBe('call-1');
      expect(textIn(model.prompts[2]!, 'call-1')).toBe(cleared!.pointer);
      expect(textIn(model.prompts[2]!, 'call-2')).toBe(sized('r2', 2000)); // the latest step's result (C5)
      expect(userTexts(model.prompts[2]!)).toEqual(['go', note]);
      expect(model.doGenerateCalls[2]!.temperature).toBe(0.25);
      expect(model.doGenerateCalls[1]!.temperature).toBeUndefined();
      // The history has neither the note nor the pointer.
      expect(historyOutputs(result.responseMessages).get('call-1')).toEqual({
        type: 'text',
        value: sized('r1', 2000),
      });
      expect(JSON.stringify(result.responseMessages)).not.toContain('note line');
    });

    it('ToolLoopAgent takes the same prepareStep', async () => {
      const store = kind.open();
      const offload = budgetedOffload(store, { maxRequestTokens: 6000, keepRecentResults: 2 });
      const { tools, system, prepareStep } = withOffload(offload, { emit: emitTool }, { threadId });
      const model = scriptedAiModel([
        ...[1, 2, 3].map((i) => ({ toolCalls: [emitCall(`call-${i}`, `r${i}`, 2000)] })),
        { text: 'done' },
      ]);
      const agent = new ToolLoopAgent({ model, tools, instructions: system, prepareStep, stopWhen: stepCountIs(10) });
      const result = await agent.generate({ prompt: 'go' });
      expect(result.text).toBe('done');
      const [cleared] = await clearedOf(store);
      expect(textIn(model.prompts[3]!, 'call-1')).toBe(cleared!.pointer);
      expect(textIn(model.prompts[3]!, 'call-3')).toBe(sized('r3', 2000));
    });

    it('four turns of UI messages, each converted whole again (the last two by a new instance, as after a reload), send the same pointers (A1, C4)', async () => {
      const store = kind.open();
      const budget = { maxRequestTokens: 6000, keepRecentResults: 2 };
      const events: OffloadEvent[] = [];
      const setUp = () =>
        withOffload(budgetedOffload(store, budget), { emit: emitTool }, { threadId, onEvent: (e) => events.push(e) });
      const turns = [
        // A result over the 5000-token threshold (shown as its preview), then three under it.
        [
          emitCall('call-1', 'big', 8000),
          emitCall('call-2', 'r2', 2000),
          emitCall('call-3', 'r3', 2000),
          emitCall('call-4', 'r4', 2000),
        ],
        [emitCall('call-5', 'r5', 2000)],
        [],
        [],
      ];
      let ui: UIMessage[] = [];
      const prompts: Array<ReturnType<typeof scriptedAiModel>['prompts']> = [];
      const converted: ModelMessage[][] = [];
      let wiring = setUp();
      for (const [n, calls] of turns.entries()) {
        if (n === 2) wiring = setUp();
        const { tools, prepareStep, system } = wiring;
        ui = [...ui, userMessage(`u${n}`, `turn ${n + 1}`)];
        const messages = await convertToModelMessages(ui, { tools });
        converted.push(messages);
        const model = scriptedAiModel([
          ...calls.map((call) => ({ toolCalls: [call] })),
          { text: `turn ${n + 1} done` },
        ]);
        const run = streamText({
          model,
          tools,
          prepareStep,
          instructions: system,
          messages,
          stopWhen: stepCountIs(10),
        });
        ui = [...ui, await uiMessageOf(run)];
        prompts.push(model.prompts);
      }

      const cleared = await clearedOf(store);
      // Turn 1's fifth request (about 7000 tokens) clears the preview and r2; turn 2's second, r3.
      expect(cleared.map((record) => record.toolCallId)).toEqual(['call-1', 'call-2', 'call-3']);
      const pointerOf = (id: string) => cleared.find((record) => record.toolCallId === id)!.pointer;
      const entries = await store.list(threadId);
      const big = entries.find((entry) => entry.toolName === 'emit' && entry.bytes === sized('big', 8000).length)!;
      // A1: the preview, the same in every request before it is cleared; its pointer names its path.
      for (const step of [1, 2, 3]) expect(textIn(prompts[0]![step]!, 'call-1')).toBe(big.preview);
      expect(pathIn(pointerOf('call-1'))).toBe(big.path);
      // C4: once cleared, every later request of every turn sends the same pointer, byte for byte.
      const later = [prompts[0]![4]!, ...prompts[1]!, ...prompts[2]!, ...prompts[3]!];
      for (const prompt of later) {
        expect(textIn(prompt, 'call-1')).toBe(pointerOf('call-1'));
        expect(textIn(prompt, 'call-2')).toBe(pointerOf('call-2'));
        expect(textIn(prompt, 'call-4')).toBe(sized('r4', 2000));
      }
      for (const prompt of [prompts[1]![1]!, ...prompts[2]!, ...prompts[3]!]) {
        expect(textIn(prompt, 'call-3')).toBe(pointerOf('call-3'));
        expect(textIn(prompt, 'call-5')).toBe(sized('r5', 2000));
      }
      // What the app converts keeps the preview and the results: only requests carry pointers.
      for (const messages of converted.slice(1)) {
        const outputs = historyOutputs(messages);
        expect(outputs.get('call-1')).toEqual({ type: 'text', value: big.preview });
        expect(outputs.get('call-2')).toEqual({ type: 'text', value: sized('r2', 2000) });
      }
      // Stored once each: the preview's result when offloaded, r2 and r3 when first cleared; nothing again.
      expect(entries.map((entry) => entry.path).sort()).toEqual(cleared.map((record) => record.path).sort());
      expect(contextEvents(events).map((event) => (event as { paths: string[] }).paths)).toEqual([
        [cleared[0]!.path, cleared[1]!.path],
        [cleared[2]!.path],
      ]);
    });

    it('excludeTools are never cleared, nor the latest step’s results with keepRecentResults 0 (C5)', async () => {
      const store = kind.open();
      const offload = budgetedOffload(store, { maxRequestTokens: 6000, keepRecentResults: 0, excludeTools: ['notes'] });
      const notes = tool({
        description: 'The notes.',
        inputSchema: z.object({}),
        execute: async () => sized('notes', 2000),
      });
      const { tools, prepareStep } = withOffload(offload, { emit: emitTool, notes }, { threadId });
      const model = scriptedAiModel([
        { toolCalls: [{ id: 'call-n', name: 'notes', input: {} }] },
        { toolCalls: [emitCall('call-1', 'r1', 2000)] },
        { toolCalls: [emitCall('call-2', 'r2', 1000), emitCall('call-3', 'r3', 1000)] },
        { text: 'done' },
      ]);
      await generateText({ model, tools, prepareStep, prompt: 'go', stopWhen: stepCountIs(6) });
      const last = model.prompts[3]!;
      expect(textIn(last, 'call-n')).toBe(sized('notes', 2000));
      expect(textIn(last, 'call-1')).toBe((await clearedOf(store))[0]!.pointer);
      expect(textIn(last, 'call-2')).toBe(sized('r2', 1000));
      expect(textIn(last, 'call-3')).toBe(sized('r3', 1000));
      expect((await clearedOf(store)).map((record) => record.toolCallId)).toEqual(['call-1']);
    });

    for (const mode of ['generateText', 'streamText'] as const) {
      it(`${mode}: over the budget with nothing to clear, the preview is cut to its header, the run goes on, and an event says so (C6)`, async () => {
        const store = kind.open();
        const offload = budgetedOffload(store, { maxRequestTokens: 6000 });
        const events: OffloadEvent[] = [];
        const { tools, prepareStep } = withOffload(
          offload,
          { emit: emitTool },
          { threadId, onEvent: (event) => events.push(event) },
        );
        const model = scriptedAiModel([{ toolCalls: [emitCall('call-1', 'big', 8000)] }, { text: 'done' }]);
        const run = await runIn(mode, {
          model,
          tools,
          prepareStep,
          prompt: sized('ask', 5900),
          stopWhen: stepCountIs(5),
        });
        expect(run.text).toBe('done');
        const [entry] = await store.list(threadId);
        const cut = textIn(model.prompts[1]!, 'call-1');
        expect(cut.length).toBeLessThan(entry!.preview.length);
        expect(cut).toContain(entry!.path);
        expect(entry!.preview.startsWith(cut.split('\n')[0]!)).toBe(true);
        expect(contextEvents(events)).toEqual([
          { type: 'context-over-budget', threadId, tokens: expect.any(Number), budget: 6000 },
          { type: 'context-over-budget', threadId, tokens: expect.any(Number), budget: 6000 },
        ]);
        for (const event of contextEvents(events)) expect((event as { tokens: number }).tokens).toBeGreaterThan(6000);
        expect(run.steps[0]!.toolResults[0]!.output).toBe(sized('big', 8000));
        expect(await clearedOf(store)).toEqual([]);
      });
    }

    it('a preview cut to fit one step is sent whole again in a later step with room: what carries forward is put back first (C6)', async () => {
      const store = kind.open();
      const offload = budgetedOffload(store, { maxRequestTokens: 6000 });
      const note = { role: 'user' as const, content: sized('note', 5500) };
      const { tools, prepareStep } = withOffload(
        offload,
        { emit: emitTool },
        {
          threadId,
          // The app adds a long note for the second step only (what it returns carries forward, so it takes it out again).
          prepareStep: ({ stepNumber, messages }) =>
            stepNumber === 1
              ? { messages: [...messages, note] }
              : stepNumber === 2
                ? { messages: messages.filter((message) => message.content !== note.content) }
                : undefined,
        },
      );
      const model = scriptedAiModel([
        { toolCalls: [emitCall('call-1', 'big', 8000)] },
        { toolCalls: [emitCall('call-2', 'r2', 100)] },
        { text: 'done' },
      ]);
      await generateText({ model, tools, prepareStep, prompt: 'go', stopWhen: stepCountIs(5) });
      const [entry] = await store.list(threadId);
      expect(textIn(model.prompts[1]!, 'call-1')).not.toBe(entry!.preview);
      expect(textIn(model.prompts[1]!, 'call-1')).toContain(entry!.path);
      expect(textIn(model.prompts[2]!, 'call-1')).toBe(entry!.preview);
      expect(userTexts(model.prompts[2]!)).toEqual(['go']);
    });

    it('results are measured as the provider is sent them (JSON compact, text parts joined), media dropped with a cleared result', async () => {
      const store = kind.open();
      const offload = budgetedOffload(store, { maxRequestTokens: 6000, keepRecentResults: 1 });
      const rows = Array.from({ length: 90 }, (_, i) => ({
        id: i,
        name: `row ${i}`,
        tags: ['a', 'b'],
        note: 'x'.repeat(40),
      }));
      const shot = tool({
        description: 'A screenshot and its text.',
        inputSchema: z.object({}),
        execute: async () => ({ text: sized('shot', 2000) }),
        toModelOutput: ({ output }) => ({
          type: 'content',
          value: [
            { type: 'text', text: output.text.slice(0, 4000) },
            { type: 'file', mediaType: 'image/png', data: { type: 'data', data: 'iVBORw0KGgo=' } },
            { type: 'text', text: output.text.slice(4000) },
          ],
        }),
      });
      const lookup = tool({ description: 'Rows.', inputSchema: z.object({}), execute: async () => rows });
      const { tools, prepareStep } = withOffload(offload, { emit: emitTool, shot, lookup }, { threadId });
      const model = scriptedAiModel([
        { toolCalls: [{ id: 'call-s', name: 'shot', input: {} }] },
        { toolCalls: [{ id: 'call-j', name: 'lookup', input: {} }] },
        { toolCalls: [emitCall('call-1', 'r1', 2000)] },
        { toolCalls: [emitCall('call-2', 'r2', 2000)] },
        { text: 'done' },
      ]);
      await generateText({ model, tools, prepareStep, prompt: 'go', stopWhen: stepCountIs(8) });

      const shotText = [sized('shot', 2000).slice(0, 4000), sized('shot', 2000).slice(4000)].join('\n');
      const json = JSON.stringify(rows);
      expect(resultIn(model.prompts[2]!, 'call-s')!.output.type).toBe('content');
      expect(resultIn(model.prompts[2]!, 'call-j')!.output).toEqual({ type: 'json', value: rows });
      const ledger = await ledgerOf(store, threadId, model.prompts.length);
      const shown = (step: number, id: string) => ledger[step]!.results.find((result) => result.toolCallId === id)!;
      expect(shown(2, 'call-s')).toMatchObject({ shownAs: 'whole', tokens: offload.measure.tokens(shotText) });
      expect(shown(2, 'call-j')).toMatchObject({ shownAs: 'whole', tokens: offload.measure.tokens(json) });
      // Cleared: one text output, the pointer, which says its image is not shown.
      const cleared = await clearedOf(store);
      expect(cleared.map((record) => record.toolCallId)).toEqual(['call-s', 'call-j']);
      expect(resultIn(model.prompts[3]!, 'call-s')!.output).toEqual({ type: 'text', value: cleared[0]!.pointer });
      expect(cleared[0]!.pointer).toMatch(/not shown/);
      expect(resultIn(model.prompts[4]!, 'call-j')!.output).toEqual({ type: 'text', value: cleared[1]!.pointer });
      expect(cleared[0]!.tokens).toBe(offload.measure.tokens(shotText));
      expect(cleared[1]!.tokens).toBe(offload.measure.tokens(json));
      // The ledger: one record a model call, its parts summing to its tokens, and none of the text.
      expect(ledger).toHaveLength(model.prompts.length);
      for (const record of ledger) {
        const { system, messages, whole, previews, pointers, cut } = record.parts;
        expect(system + messages + whole + previews + pointers + cut).toBe(record.tokens);
        expect(record.budget).toBe(6000);
      }
      expect(JSON.stringify(ledger)).not.toMatch(/shot line|r1 line|row 1/);
    });
  });
}

describe("withOffload's prepareStep, its options", () => {
  it('rejects a prepareStep that is not a function, and an app hook that returns neither an object nor undefined', async () => {
    const offload = new ToolOutputOffload({ ledger: contextLedger, store: new MemoryOffloadStore() });
    expect(() => withOffload(offload, {}, { threadId, prepareStep: 'first' as never })).toThrow(
      'withOffload: options.prepareStep must be a function',
    );
    expect(() => withOffload(offload, {}, { threadId, prepareSteps: () => undefined } as never)).toThrow(
      'withOffload: unknown option "prepareSteps"; the options are threadId, onEvent, prepareStep',
    );
    const { tools, prepareStep } = withOffload(offload, {}, { threadId, prepareStep: (() => 42) as never });
    const model = scriptedAiModel([{ text: 'done' }]);
    await expect(generateText({ model, tools, prepareStep, prompt: 'go' })).rejects.toThrow(
      "withOffload: the app's prepareStep must return an object or undefined, got number",
    );
  });

  it('without a budget, nothing is replaced: the step gets the app’s result as it returned it', async () => {
    const offload = new ToolOutputOffload({ ledger: contextLedger, store: new MemoryOffloadStore() });
    const own = { temperature: 0.5 };
    const { prepareStep } = withOffload(offload, { emit: emitTool }, { threadId, prepareStep: () => own });
    const step = await prepareStep({
      steps: [],
      stepNumber: 0,
      model: scriptedAiModel([]),
      instructions: undefined,
      initialInstructions: undefined,
      messages: [{ role: 'user', content: 'go' }],
      initialMessages: [],
      responseMessages: [],
      toolsContext: {},
      runtimeContext: {},
    } as never);
    expect(step).toBe(own);
  });
});

describe('issue 24: a read of an evicted path', () => {
  for (const kind of contextStores) {
    it(`gives the model the same error text in the built-in runtime, the AI SDK and LangChain (${kind.name})`, async () => {
      const store = kind.open();
      const path = await evictedPath(store);
      const texts = {
        builtIn: await builtInRead(store, path),
        aiSdk: await aiSdkRead(store, path),
        langChain: await langChainRead(store, path),
      };
      expect(texts.builtIn).toContain('evicted');
      expect(texts.builtIn).not.toMatch(/^Error: /);
      expect(texts).toEqual({ builtIn: texts.builtIn, aiSdk: texts.builtIn, langChain: texts.builtIn });
    });
  }
});

const boundOptions = { thresholdTokens: 1000, maxTotalBytes: 9000 };

/** The path of a result stored in `chat-1` and evicted by the next one (each 8.1 KB, the bound 9000 bytes). */
async function evictedPath(store: WritableOffloadStore): Promise<string> {
  const offload = new ToolOutputOffload({ ledger: contextLedger, store, ...boundOptions });
  const text = (tag: string) => sized(tag, 2000);
  const first = await offload.offloadResult({ threadId, callId: 'seed-a', toolName: 'emit', content: text('a') });
  await offload.offloadResult({ threadId, callId: 'seed-b', toolName: 'emit', content: text('b') });
  if (first.kind !== 'stored') throw new Error(`the seed was ${first.kind}, not stored`);
  expect((await store.evictions(threadId)).map((record) => record.path)).toEqual([first.path]);
  return first.path;
}

/** What the AI SDK's model is sent when read_file reads `path`; the UI's error text is the same. */
async function aiSdkRead(store: WritableOffloadStore, path: string): Promise<string> {
  const { tools } = withOffload(
    new ToolOutputOffload({ ledger: contextLedger, store, ...boundOptions }),
    {},
    { threadId },
  );
  const model = scriptedAiModel([
    { toolCalls: [{ id: 'call-read', name: 'read_file', input: { path } }] },
    { text: 'done' },
  ]);
  const run = streamText({ model, tools, prompt: 'read it', stopWhen: stepCountIs(3) });
  const ui = await uiMessageOf(run);
  const result = resultIn(model.prompts[1]!, 'call-read')!;
  expect(result.output.type).toBe('error-text');
  const part = ui.parts.find((p) => p.type === 'tool-read_file') as { state: string; errorText?: string } | undefined;
  expect(part?.state).toBe('output-error');
  expect(part?.errorText).toBe(textIn(model.prompts[1]!, 'call-read'));
  return textIn(model.prompts[1]!, 'call-read');
}

/** What LangChain's model is sent (the error ToolMessage) when read_file reads `path`. */
async function langChainRead(store: WritableOffloadStore, path: string): Promise<string> {
  const model = fakeModel()
    .respondWithTools([{ name: 'read_file', args: { path } }])
    .respond(new AIMessage('done'));
  const { agent } = langChainAgent(model, { store, maxTotalBytes: boundOptions.maxTotalBytes });
  const read = lastToolMessage((await agent.invoke(ask(), thread(threadId))).messages);
  expect(read.status).toBe('error');
  return textOf(read);
}

/** What the built-in agent's model is sent when its read_file (fileTools over the offload's mount) reads `path`. */
async function builtInRead(store: WritableOffloadStore, path: string): Promise<string> {
  const model = scriptedModel([calls(['read_file', { path }]), reply()]);
  const { agent } = builtInAgent(model, { offload: { store, ...boundOptions } });
  expect((await agent.run('read it', { threadId })).status).toBe('completed');
  return lastToolText(model.requests[1]!);
}
