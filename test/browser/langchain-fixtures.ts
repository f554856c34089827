// LangChain.js agents with the offload middleware, for the adapter's tests in the browser engines. The models
// are LangChain's own scripted fakeModel(); the tools are real LangChain tools.
import type { ClientTool } from '@langchain/core/tools';
import {
  AIMessage,
  type AnyAgentMiddleware,
  type BaseMessage,
  createAgent,
  fakeModel,
  HumanMessage,
  ToolMessage,
  tool,
} from 'langchain';
import { z } from 'zod';
import { type OffloadMiddlewareOptions, offloadMiddleware } from '../../adapters/langchain/index.js';
import {
  IndexedDbOffloadStore,
  MemoryOffloadStore,
  ToolOutputOffload,
  type WritableOffloadStore,
} from '../../lib/index.js';
import { linesOf } from '../node/offload-harness.js';

export { linesOf };

/** `emit` returns `lines` numbered lines tagged `tag` (a text over the 1000-token threshold at 100 lines). */
export const emitTool = tool(({ lines, tag }) => linesOf(lines, 80, tag), {
  name: 'emit',
  description: 'Returns a text of the size asked for.',
  schema: z.object({ lines: z.number().int().min(0), tag: z.string().default('line') }),
});

export type ToolCallSpec = { name: string; args: Record<string, unknown>; id?: string };

/** A model step asking for tool calls; ids are the caller's or LangChain's generated ones. */
export function callsFrom(messages: BaseMessage[], make: (messages: BaseMessage[]) => ToolCallSpec[]): AIMessage {
  return new AIMessage({
    content: '',
    tool_calls: make(messages).map((call, i) => ({
      ...call,
      id: call.id ?? `call_${messages.length}_${i}`,
      type: 'tool_call' as const,
    })),
  });
}

/** The run options of one thread. */
export const thread = (thread_id: string) => ({ configurable: { thread_id } });
/** The input of a run: one user message. */
export const ask = (text = 'go') => ({ messages: [new HumanMessage(text)] });
/** A tool message's text, its text blocks joined. */
export const textOf = (message: ToolMessage) => message.text;

export function toolMessagesOf(messages: readonly BaseMessage[]): ToolMessage[] {
  return messages.filter((message): message is ToolMessage => ToolMessage.isInstance(message));
}

export function lastToolMessage(messages: readonly BaseMessage[]): ToolMessage {
  const found = toolMessagesOf(messages).at(-1);
  if (!found) throw new Error('no ToolMessage in the messages');
  return found;
}

/** The stored result's path a replacement names. */
export function pathIn(text: string): string {
  const path = /\/large_tool_results\/[A-Za-z0-9_.-]+/.exec(text)?.[0];
  if (!path) throw new Error(`no stored path in: ${text.slice(0, 200)}`);
  return path;
}

export interface StoreKind {
  name: string;
  open(): WritableOffloadStore;
}

const opened: IndexedDbOffloadStore[] = [];

/** Both stores the package ships; IndexedDB databases are deleted by `deleteOpenedStores`. */
export const storeKinds: StoreKind[] = [
  { name: 'MemoryOffloadStore', open: () => new MemoryOffloadStore() },
  {
    name: 'IndexedDbOffloadStore',
    open: () => {
      const store = new IndexedDbOffloadStore({ name: `langchain-${crypto.randomUUID()}` });
      opened.push(store);
      return store;
    },
  },
];

export async function deleteOpenedStores(): Promise<void> {
  for (const store of opened.splice(0)) await store.deleteDatabase();
}

/** An agent with the offload middleware (threshold 1000 tokens), the `emit` tool and `extraTools`. */
export function offloadAgent(
  model: ReturnType<typeof fakeModel>,
  {
    store = new MemoryOffloadStore(),
    maxTotalBytes,
    tools = [],
    middleware = [],
    options,
  }: {
    store?: WritableOffloadStore;
    maxTotalBytes?: number;
    tools?: ClientTool[];
    middleware?: AnyAgentMiddleware[];
    options?: OffloadMiddlewareOptions;
  } = {},
) {
  const offload = new ToolOutputOffload({
    thresholdTokens: 1000,
    store,
    ...(maxTotalBytes ? { maxTotalBytes, maxResultBytes: maxTotalBytes } : {}),
  });
  // Typed apart: createAgent's overloads cannot infer a spread of app middleware plus this one.
  const allMiddleware: AnyAgentMiddleware[] = [...middleware, offloadMiddleware(offload, options)];
  const agent = createAgent({
    model,
    tools: [emitTool, ...tools],
    systemPrompt: 'You are a test agent.',
    middleware: allMiddleware,
  });
  return { agent, offload, store: offload.store };
}

export { fakeModel };
