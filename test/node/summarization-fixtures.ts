// Shared by the Summarization tests and the O7 cleanup scenario (run in Node and in Chromium).
// Browser-safe: no Node imports.

import { createAgent } from '../../lib/agent/create-agent.js';
import { fileTools } from '../../lib/agent/file-tools.js';
import { CompositeBackend } from '../../lib/backends/composite-backend.js';
import { MemoryBackend } from '../../lib/backends/memory-backend.js';
import { contextLedger } from '../../lib/context.js';
import { ToolOutputOffload } from '../../lib/offload/tool-output-offload.js';
import type { Checkpointer } from '../../lib/runtime/checkpoint.js';
import type { Message, ToolMessage } from '../../lib/runtime/messages.js';
import type { Model, ModelReply, ModelRequest } from '../../lib/runtime/model.js';
import type { LoopResult as RunResult } from '../../lib/runtime/run-result.js';
import { type Tool, tool } from '../../lib/runtime/tool.js';
import { joinText } from '../../lib/shared/content.js';
import type { EvictionRecord, WritableOffloadStore } from '../../lib/store/offload-store.js';
import { Summarization, type SummarizationEvent } from '../../lib/summarization/summarization.js';
import { type ScriptedStep, scriptedModel } from '../../lib/testing.js';

/** A summarizer that records its requests and answers "summary <n>", or runs `reply` instead. */
export function recordingSummarizer(
  reply?: (request: ModelRequest, n: number) => ModelReply | Promise<ModelReply>,
): Model & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  const model: Model = async (request) => {
    requests.push(structuredClone(request));
    return reply ? reply(request, requests.length) : { content: `summary ${requests.length}` };
  };
  return Object.assign(model, { requests });
}

/** The single text the summarizer was asked to summarize. */
export function summarizerInput(request: ModelRequest): string {
  return joinText(request.messages[0]!.content);
}

export function toolCall(name: string, args: unknown): ModelReply {
  return { content: '', toolCalls: [{ id: `provider-${name}-${Math.random().toString(36).slice(2)}`, name, args }] };
}

/** A page of `lines` numbered lines of 80 characters: ~81 characters a line, far over 1000 tokens at 200. */
export function pageText(page: number, lines = 200): string {
  return Array.from({ length: lines }, (_, i) => `page ${page} line ${i} `.padEnd(80, '.')).join('\n');
}

export const fetchPage: Tool<{ page: number }> = tool({
  name: 'fetch_page',
  description: 'Fetches a page',
  parameters: { type: 'object', properties: { page: { type: 'integer' } }, required: ['page'] },
  execute: ({ page }) => pageText(page),
});

export const note: Tool<{ text: string }> = tool({
  name: 'note',
  description: 'Returns its text',
  parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  execute: ({ text }) => text,
});

export type StackOrder = 'offload-first' | 'summarization-first' | 'offload-only';

/** An agent with the offload (threshold 1000) and, unless 'offload-only', Summarization in the given order. */
export function cleanupAgent(
  store: WritableOffloadStore,
  order: StackOrder,
  steps: ScriptedStep[],
  options: { maxTotalBytes?: number; events?: SummarizationEvent[]; checkpointer?: Checkpointer } = {},
) {
  const offload = new ToolOutputOffload({
    thresholdTokens: 1000,
    store,
    ledger: contextLedger,
    maxResultBytes: options.maxTotalBytes ?? 1_048_576,
    maxTotalBytes: options.maxTotalBytes ?? 33_554_432,
  });
  const summarizer = recordingSummarizer();
  const summarization = new Summarization({
    model: summarizer,
    triggerTokens: 200,
    keepMessages: 2,
  });
  const middleware =
    order === 'offload-only'
      ? [offload]
      : order === 'offload-first'
        ? [offload, summarization]
        : [summarization, offload];
  const model = scriptedModel(steps);
  const files = fileTools(
    (ctx) => new CompositeBackend(new MemoryBackend(), { [ToolOutputOffload.mount]: offload.backend(ctx.threadId) }),
  );
  const agent = createAgent({
    model,
    tools: [fetchPage, note, ...files],
    middleware,
    checkpointer: options.checkpointer,
    onEvent: (event) => {
      if (event.middleware === 'Summarization') options.events?.push(event as SummarizationEvent);
    },
  });
  return { agent, model, offload, summarizer };
}

export interface CleanupObservation {
  result: RunResult;
  /** The key of the result stored at step 1. */
  key: string;
  /** Live keys of the thread when the model was called at step 3 (the step whose summary covers the result). */
  liveAtStep3: string[];
  /** What read_file of the stored path said after step 4. */
  readBack: ToolMessage;
  evictions: EvictionRecord[];
  live: string[];
  history: Message[];
}

/**
 * O7 in one run of `threadId`: step 1 stores a large result; step 2's summary covers only the
 * input; step 3's covers the result's tool message; step 4 (the next model step) drops it and
 * asks to read it back; step 5 ends.
 */
export async function cleanupScenario(
  store: WritableOffloadStore,
  order: StackOrder,
  options: { threadId?: string; checkpointer?: Checkpointer } = {},
) {
  const threadId = options.threadId ?? 't1';
  let key = '';
  let liveAtStep3: string[] = [];
  const liveKeys = async () => (await store.list(threadId)).map((entry) => entry.key);
  const { agent } = cleanupAgent(
    store,
    order,
    [
      toolCall('fetch_page', { page: 1 }),
      async () => {
        key = (await liveKeys())[0] ?? '';
        return toolCall('note', { text: 'one' });
      },
      async () => {
        liveAtStep3 = await liveKeys();
        return toolCall('note', { text: 'two' });
      },
      () => toolCall('read_file', { path: `${ToolOutputOffload.mount}${key}` }),
      { content: 'done' },
    ],
    { checkpointer: options.checkpointer },
  );
  const result = await agent.run('fetch page 1', { threadId });
  const history = await agent.messages(threadId);
  const readBack = [...history]
    .reverse()
    .find((m): m is ToolMessage => m.role === 'tool' && m.toolName === 'read_file')!;
  return {
    result,
    key,
    liveAtStep3,
    readBack,
    evictions: await store.evictions(threadId),
    live: await liveKeys(),
    history,
  } satisfies CleanupObservation;
}
