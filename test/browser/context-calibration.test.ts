// C9 through every way in: a provider whose tokenizer counts 1.3 of its tokens for each estimated
// one (the model reports 1.3× the request as the budget measures it). From the fifth request on,
// every request stays within maxRequestTokens as the provider reported it; with `calibrate: false`
// some do not. `context-calibrated` is told once, and the ledger keeps the estimate, what was
// reported and the factor used. The built-in agent, the AI SDK (MockLanguageModelV4) and LangChain
// (fakeModel()), over both stores, every engine.

import { tool as aiTool, generateText, stepCountIs } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { AIMessage } from 'langchain';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { withOffload } from '../../adapters/ai-sdk/index.js';
import type { ModelReply, ModelRequest } from '../../lib/agent.js';
import type { ContextBudget, OffloadEvent, RequestRecord, WritableOffloadStore } from '../../lib/index.js';
import { ledgerOf as ledgerUntil } from '../node/context-fixtures.js';
import { budgetAgent as builtInAgent, requestTokens as builtInTokens, linesOf } from './fixtures/context-builtin.js';
import {
  budgetAgent as langChainAgent,
  requestTokens as langChainTokens,
  type SentRequest,
} from './fixtures/context-langchain.js';
import { budgetOffload, contextStores, deleteContextStores, quarter } from './fixtures/context-stores.js';
import { fakeModel, thread } from './langchain-fixtures.js';

afterEach(deleteContextStores);

const maxRequestTokens = 3000;
/** Ten results of about 700 estimated tokens each (35 lines of 80 characters), then the answer. */
const resultSteps = 10;
const resultLines = 35;
/** About 200 estimated tokens: with the tools and the offload's lines, every request is large enough to calibrate from. */
const systemPrompt = `You are a careful analyst. ${'Check every figure twice. '.repeat(30)}`;
/** What the provider counts: 1.3 of its tokens an estimated one. */
const reportedOf = (estimated: number) => Math.round(1.3 * estimated);

/** The thread's ledger once it holds `count` records, each with its reported usage. */
const ledgerOf = (store: WritableOffloadStore, threadId: string, count: number) =>
  ledgerUntil(store, threadId, count, (record) => record.reported !== undefined);

/** What a session showed: what the model reported for each request, the ledger, the events. */
interface Session {
  reported: number[];
  ledger: RequestRecord[];
  events: OffloadEvent[];
}

/** The rules a calibrating budget keeps over a session, and what `calibrate: false` does instead. */
function expectCalibrated({ reported, ledger, events }: Session): void {
  expect(ledger).toHaveLength(resultSteps + 1);
  // The ledger holds what the provider said, beside the estimate.
  expect(ledger.map((record) => record.reported?.inputTokens)).toEqual(reported);
  // Every request from the fifth on is within the budget as the provider counts it.
  expect(reported.slice(4).every((tokens) => tokens <= maxRequestTokens)).toBe(true);
  // Three reports of requests large enough, then every request is fitted with the factor.
  expect(ledger.slice(0, 3).map((record) => record.calibration)).toEqual([undefined, undefined, undefined]);
  const factors = ledger.slice(3).map((record) => record.calibration!);
  for (const factor of factors) {
    expect(factor).toBeGreaterThan(1.2);
    expect(factor).toBeLessThanOrEqual(1.3);
  }
  const told = events.filter((event) => event.type === 'context-calibrated');
  expect(told).toEqual([
    {
      type: 'context-calibrated',
      threadId: ledger[0]!.threadId,
      factor: factors[0],
      effectiveBudget: Math.floor(maxRequestTokens / factors[0]!),
    },
  ]);
  // The estimate stays the estimate: the ledger's tokens are within the calibrated budget, not maxRequestTokens.
  expect(ledger.slice(3).every((record) => record.tokens <= Math.floor(maxRequestTokens / record.calibration!))).toBe(
    true,
  );
}

function expectUncalibrated({ reported, ledger, events }: Session): void {
  expect(ledger).toHaveLength(resultSteps + 1);
  expect(ledger.map((record) => record.reported?.inputTokens)).toEqual(reported);
  // Fitted to the estimate alone: the provider counts some requests over the budget.
  expect(reported.slice(4).some((tokens) => tokens > maxRequestTokens)).toBe(true);
  expect(ledger.every((record) => record.tokens <= maxRequestTokens)).toBe(true);
  expect(ledger.some((record) => 'calibration' in record)).toBe(false);
  expect(events.map((event) => event.type)).not.toContain('context-calibrated');
}

const budgetOf = (calibrate: boolean): ContextBudget => ({ maxRequestTokens, keepRecentResults: 1, calibrate });

/** The built-in agent: a model whose reply's usage is 1.3× its request as the budget measures it. */
async function builtInSession(store: WritableOffloadStore, calibrate: boolean): Promise<Session> {
  const reported: number[] = [];
  const model = async (request: ModelRequest): Promise<ModelReply> => {
    const inputTokens = reportedOf(builtInTokens(request));
    reported.push(inputTokens);
    const step = request.messages.filter((message) => message.role === 'assistant').length + 1;
    if (step > resultSteps) return { content: 'done', usage: { inputTokens } };
    const call = { id: `call_${step}`, name: 'emit', args: { lines: resultLines, tag: `r${step}` } };
    return { content: '', toolCalls: [call], usage: { inputTokens } };
  };
  const { agent } = builtInAgent(model, { store, budget: budgetOf(calibrate), systemPrompt, maxSteps: 20 });
  const run = await agent.run('go', { threadId: 'a' });
  expect(run.status).toBe('completed');
  // The run's events as an app is told them, without the runtime's attribution.
  const events = run.events.flatMap((event) => {
    if (!event.type.startsWith('context-')) return [];
    const {
      middleware: _m,
      at: _at,
      turnId: _turn,
      ...own
    } = event as OffloadEvent & {
      middleware?: string;
      at: number;
      turnId?: string;
    };
    return [own as OffloadEvent];
  });
  return { reported, ledger: await ledgerOf(store, 'a', resultSteps + 1), events };
}

type CallOptions = Parameters<MockLanguageModelV4['doGenerate']>[0];

/** The AI SDK's prompt and tools as the budget measures them (C1), at four characters a token. */
function promptTokens({ prompt, tools = [] }: CallOptions): number {
  let tokens = 0;
  for (const spec of tools) {
    if (spec.type === 'function') {
      tokens += quarter(
        JSON.stringify({ name: spec.name, description: spec.description, parameters: spec.inputSchema }),
      );
    }
  }
  for (const message of prompt) {
    if (message.role === 'system') {
      tokens += quarter(message.content);
      continue;
    }
    for (const part of message.content) {
      if (part.type === 'text') tokens += quarter(part.text);
      else if (part.type === 'tool-call') tokens += quarter(JSON.stringify(part.input));
      else if (part.type === 'tool-result' && part.output.type === 'text') tokens += quarter(part.output.value);
    }
  }
  return tokens;
}

/** The AI SDK: MockLanguageModelV4 reporting 1.3× the step's prompt, through withOffload's onStepEnd. */
async function aiSdkSession(store: WritableOffloadStore, calibrate: boolean): Promise<Session> {
  const offload = budgetOffload(store, budgetOf(calibrate));
  const reported: number[] = [];
  const model = new MockLanguageModelV4({
    doGenerate: async (options) => {
      const inputTokens = reportedOf(promptTokens(options));
      reported.push(inputTokens);
      const step = reported.length;
      const content =
        step > resultSteps
          ? [{ type: 'text' as const, text: 'done' }]
          : [
              {
                type: 'tool-call' as const,
                toolCallId: `call_${step}`,
                toolName: 'emit',
                input: JSON.stringify({ tag: `r${step}` }),
              },
            ];
      return {
        content,
        finishReason: { unified: step > resultSteps ? ('stop' as const) : ('tool-calls' as const), raw: undefined },
        usage: {
          inputTokens: { total: inputTokens, noCache: inputTokens, cacheRead: undefined, cacheWrite: undefined },
          outputTokens: { total: 5, text: 5, reasoning: undefined },
        },
        warnings: [],
      };
    },
  });
  const emit = aiTool({
    description: 'Returns a text of the size asked for.',
    inputSchema: z.object({ tag: z.string() }),
    execute: async ({ tag }) => linesOf(resultLines, 80, tag),
  });
  const events: OffloadEvent[] = [];
  const onEvent = (event: OffloadEvent) => {
    if (event.type.startsWith('context-')) events.push(event);
  };
  const { tools, system, prepareStep, onStepEnd } = withOffload(offload, { emit }, { threadId: 'a', onEvent });
  const result = await generateText({
    model,
    tools,
    instructions: `${systemPrompt}\n${system}`,
    prompt: 'go',
    prepareStep,
    onStepEnd,
    stopWhen: stepCountIs(resultSteps + 2),
  });
  expect(result.text).toBe('done');
  return { reported, ledger: await ledgerOf(store, 'a', resultSteps + 1), events };
}

/** LangChain: fakeModel() whose replies carry usage_metadata of 1.3× the request the model was handed. */
async function langChainSession(store: WritableOffloadStore, calibrate: boolean): Promise<Session> {
  const reported: number[] = [];
  let sent: SentRequest[] = [];
  const replyFor = (step: number) => {
    // The request the model is handed now, as the recorder inside the offload's middleware saw it.
    const inputTokens = reportedOf(langChainTokens(sent.at(-1)!));
    reported.push(inputTokens);
    const usage_metadata = { input_tokens: inputTokens, output_tokens: 5, total_tokens: inputTokens + 5 };
    if (step > resultSteps) return new AIMessage({ content: 'done', usage_metadata });
    const args = { lines: resultLines, tag: `r${step}` };
    return new AIMessage({
      content: '',
      tool_calls: [{ id: `lc_${step}`, name: 'emit', args, type: 'tool_call' }],
      usage_metadata,
    });
  };
  let model = fakeModel();
  for (let step = 1; step <= resultSteps + 1; step++) model = model.respond(() => replyFor(step));
  const { agent, events, requests } = langChainAgent(model, { store, budget: budgetOf(calibrate) });
  sent = requests;
  await agent.invoke(
    {
      messages: [
        { role: 'system', content: systemPrompt },
        { role: 'user', content: 'go' },
      ],
    },
    thread('a'),
  );
  return {
    reported,
    ledger: await ledgerOf(store, 'a', resultSteps + 1),
    events: events.filter((event) => event.type.startsWith('context-')),
  };
}

const ways = [
  { name: 'the built-in agent', session: builtInSession },
  { name: 'the AI SDK (withOffload, onStepEnd)', session: aiSdkSession },
  { name: 'LangChain (offloadMiddleware)', session: langChainSession },
];

for (const kind of contextStores) {
  describe(`a budget calibrated to the reported usage, over ${kind.name}`, () => {
    for (const way of ways) {
      it(`${way.name}: within maxRequestTokens as reported from the fifth request on; calibrate: false is not`, async () => {
        expectCalibrated(await way.session(kind.open(), true));
        expectUncalibrated(await way.session(kind.open(), false));
      });
    }
  });
}
