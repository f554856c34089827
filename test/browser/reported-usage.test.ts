// What the provider reported each request cost reaches the ledger in every way in: the built-in
// runtime (ModelReply.usage), the AI SDK (the step's usage, through withOffload's onStepEnd) and
// LangChain (the reply's usage_metadata). A count the provider did not give stays absent, a 0 stays
// 0, and a reply without an input count adds nothing. Both stores, every engine.

import { tool as aiTool, generateText, stepCountIs } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { AIMessage, createAgent as createLangChainAgent, fakeModel, tool as langChainTool } from 'langchain';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { withOffload } from '../../adapters/ai-sdk/index.js';
import { offloadMiddleware } from '../../adapters/langchain/index.js';
import { createAgent, tool } from '../../lib/agent.js';
import { contextLedger } from '../../lib/context.js';
import { ToolOutputOffload } from '../../lib/index.js';
import type { WritableOffloadStore } from '../../lib/store/offload-store.js';
import { scriptedModel } from '../../lib/testing.js';
import { contextStores, deleteContextStores } from './fixtures/context-stores.js';

afterEach(deleteContextStores);

/** The thread's ledger once it holds `steps` records, each with what was reported for it. */
async function reportedOf(store: WritableOffloadStore, threadId: string) {
  return (await store.requests(threadId)).map((record) => record.reported);
}

const expected = [{ inputTokens: 812, cachedInputTokens: 0, outputTokens: 9 }, { inputTokens: 0 }, undefined];

describe.each(contextStores)('reported usage in the ledger, over $name', (kind) => {
  it('the built-in runtime: each model reply’s usage, as the model gave it', async () => {
    const store = kind.open();
    const offload = new ToolOutputOffload({ ledger: contextLedger, store });
    const lookup = tool<{ q: string }>({
      name: 'lookup',
      description: 'Look something up.',
      parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
      execute: ({ q }) => `found ${q}`,
    });
    const model = scriptedModel([
      { content: '', toolCalls: [{ id: 'c1', name: 'lookup', args: { q: 'a' } }], usage: expected[0] },
      { content: '', toolCalls: [{ id: 'c2', name: 'lookup', args: { q: 'b' } }], usage: { inputTokens: 0 } },
      // No input count: the ledger keeps the estimate alone.
      { content: 'done', usage: { outputTokens: 4 } },
    ]);
    const agent = createAgent({ model, tools: [lookup], middleware: [offload] });
    expect((await agent.run('go', { threadId: 't' })).status).toBe('completed');
    expect(await reportedOf(store, 't')).toEqual(expected);
  });

  it('the AI SDK: each step’s usage through onStepEnd, the cache read as cachedInputTokens', async () => {
    const store = kind.open();
    const offload = new ToolOutputOffload({ ledger: contextLedger, store });
    const usages = [
      {
        inputTokens: { total: 812, noCache: 812, cacheRead: 0, cacheWrite: undefined },
        outputTokens: { total: 9, text: 9, reasoning: undefined },
      },
      {
        inputTokens: { total: 0, noCache: 0, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: undefined, text: undefined, reasoning: undefined },
      },
      {
        inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: 4, text: 4, reasoning: undefined },
      },
    ];
    let call = 0;
    const model = new MockLanguageModelV4({
      doGenerate: async () => {
        const step = call++;
        const content =
          step < 2
            ? [
                {
                  type: 'tool-call' as const,
                  toolCallId: `c${step}`,
                  toolName: 'lookup',
                  input: JSON.stringify({ q: 'a' }),
                },
              ]
            : [{ type: 'text' as const, text: 'done' }];
        return {
          content,
          finishReason: { unified: step < 2 ? ('tool-calls' as const) : ('stop' as const), raw: undefined },
          usage: usages[step]!,
          warnings: [],
        };
      },
    });
    const lookup = aiTool({
      description: 'Look something up.',
      inputSchema: z.object({ q: z.string() }),
      execute: async ({ q }) => `found ${q}`,
    });
    const { tools, system, prepareStep, onStepEnd } = withOffload(offload, { lookup }, { threadId: 't' });
    await generateText({ model, tools, system, prompt: 'go', prepareStep, onStepEnd, stopWhen: stepCountIs(5) });
    expect(await reportedOf(store, 't')).toEqual(expected);
  });

  it('LangChain: each reply’s usage_metadata, input_token_details.cache_read as cachedInputTokens', async () => {
    const store = kind.open();
    const offload = new ToolOutputOffload({ ledger: contextLedger, store });
    const lookup = langChainTool(async ({ q }: { q: string }) => `found ${q}`, {
      name: 'lookup',
      description: 'Look something up.',
      schema: z.object({ q: z.string() }),
    });
    const reply = (step: number, usage: AIMessage['usage_metadata']) =>
      new AIMessage({
        content: step < 2 ? '' : 'done',
        tool_calls: step < 2 ? [{ id: `lc_${step}`, name: 'lookup', args: { q: 'a' }, type: 'tool_call' }] : [],
        ...(usage ? { usage_metadata: usage } : {}),
      });
    const model = fakeModel()
      .respond(() =>
        reply(0, { input_tokens: 812, output_tokens: 9, total_tokens: 821, input_token_details: { cache_read: 0 } }),
      )
      .respond(() => reply(1, { input_tokens: 0, output_tokens: undefined as never, total_tokens: 0 }))
      .respond(() => reply(2, undefined));
    const agent = createLangChainAgent({ model, tools: [lookup], middleware: [offloadMiddleware(offload)] });
    await agent.invoke({ messages: [{ role: 'user', content: 'go' }] }, { configurable: { thread_id: 't' } });
    expect(await reportedOf(store, 't')).toEqual(expected);
  });
});
