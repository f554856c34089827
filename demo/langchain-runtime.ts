import { BaseChatModel, type BaseChatModelCallOptions } from '@langchain/core/language_models/chat_models';
import type { ChatResult } from '@langchain/core/outputs';
import { toJsonSchema } from '@langchain/core/utils/json_schema';
import {
  AIMessage,
  type BaseMessage,
  createAgent,
  createMiddleware,
  HumanMessage,
  SystemMessage,
  ToolMessage,
  tool,
} from 'langchain';
import { offloadMiddleware } from '../adapters/langchain/index.js';
import {
  type Message,
  type Model,
  modelReply,
  type Tool as PackageTool,
  type RunResult,
  type ToolSpec,
} from '../lib/agent.js';
import { type FrameworkRuntimeOptions, type HistoryStore, loadHistory } from './framework-runtime.js';
import { runPackageTool } from './package-tool.js';

// The demo's third runtime: the same scripted model, tools and store, run by LangChain.js's
// createAgent with `offloadMiddleware` instead of this package's agent loop.

/** LangChain's messages as this package's (the system prompt aside), for a package `Model` and the conversation view. */
function toMessages(messages: readonly BaseMessage[]): Message[] {
  return messages.flatMap((message, i): Message[] => {
    const id = message.id ?? `m${i}`;
    const content = [{ type: 'text' as const, text: message.text }];
    if (HumanMessage.isInstance(message)) return [{ role: 'user', id, content }];
    if (AIMessage.isInstance(message)) {
      const toolCalls = (message.tool_calls ?? []).map((call) => ({
        id: call.id ?? '',
        name: call.name,
        args: call.args,
      }));
      return [{ role: 'assistant', id, content, toolCalls }];
    }
    if (!ToolMessage.isInstance(message)) return [];
    const { tool_call_id: toolCallId, name = '', status } = message;
    return [{ role: 'tool', id, toolCallId, toolName: name, content, isError: status === 'error' }];
  });
}

/** A thread saved as this package's messages, as LangChain messages again (the agent's input). */
function fromMessages(messages: readonly Message[]): BaseMessage[] {
  return messages.map((message) => {
    const content = message.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
    if (message.role === 'user') return new HumanMessage({ id: message.id, content });
    if (message.role === 'assistant') {
      const toolCalls = message.toolCalls.map((call) => ({
        id: call.id,
        name: call.name,
        args: call.args as Record<string, unknown>,
        type: 'tool_call' as const,
      }));
      return new AIMessage({ id: message.id, content, tool_calls: toolCalls });
    }
    return new ToolMessage({
      id: message.id,
      content,
      tool_call_id: message.toolCallId,
      name: message.toolName,
      status: message.isError ? 'error' : 'success',
    });
  });
}

let callCount = 0;

/**
 * A package `Model` (the offline script, or the OpenAI-compatible adapter) as a LangChain chat
 * model, so the LangChain runtime plays the same scenario. Tool call ids get a counter too, unique
 * everywhere as a provider's would be: LangChain skips a call whose id already has a result.
 */
class PackageChatModel extends BaseChatModel {
  constructor(
    private readonly model: Model,
    private readonly tools: readonly ToolSpec[] = [],
  ) {
    super({});
  }

  _llmType(): string {
    return 'tool-output-offload-demo';
  }

  override bindTools(tools: unknown[]): this {
    const specs = tools.map((t) => {
      const { name, description, schema } = t as { name: string; description: string; schema: unknown };
      return { name, description, parameters: toJsonSchema(schema as never) as Record<string, unknown> };
    });
    return new PackageChatModel(this.model, specs) as this;
  }

  async _generate(messages: BaseMessage[], options: this['ParsedCallOptions']): Promise<ChatResult> {
    const systemPrompt = messages.flatMap((m) => (SystemMessage.isInstance(m) ? [m.text] : [])).join('\n');
    const signal = (options as BaseChatModelCallOptions).signal ?? new AbortController().signal;
    const request = { systemPrompt, messages: toMessages(messages), tools: this.tools };
    const reply = await modelReply(this.model, request, { signal });
    const text =
      typeof reply.content === 'string'
        ? reply.content
        : reply.content.map((p) => ('text' in p ? p.text : '')).join('');
    const toolCalls = (reply.toolCalls ?? []).map((call) => ({
      id: `lc_call_${++callCount}`,
      name: call.name,
      args: call.args as Record<string, unknown>,
      type: 'tool_call' as const,
    }));
    return { generations: [{ text, message: new AIMessage({ content: text, tool_calls: toolCalls }) }] };
  }
}

/** A package tool as a LangChain tool; an error outcome is an error ToolMessage, as LangChain sends tool errors. */
function asLangChainTool(packageTool: PackageTool) {
  return tool(
    async (input: unknown, config: { toolCall?: { id?: string }; signal?: AbortSignal }) => {
      const { text, isError } = await runPackageTool(packageTool, input, config.signal);
      if (!isError) return text;
      return new ToolMessage({
        content: text,
        tool_call_id: config.toolCall?.id ?? '',
        name: packageTool.name,
        status: 'error',
      });
    },
    { name: packageTool.name, description: packageTool.description, schema: packageTool.parameters },
  );
}

const historyKey = (threadId: string) => `langchain:${threadId}`;

const history = (store: HistoryStore, threadId: string) => loadHistory<Message>(store, historyKey(threadId));

/** The LangChain.js runtime, with the agent's `run`, `recover` and `messages` as the demo page uses them. */
export function langChainRuntime(options: FrameworkRuntimeOptions) {
  const { histories, progress } = options;
  const reporter = createMiddleware({
    name: 'Progress',
    wrapModelCall: (request, handler) => {
      progress.onStep(toMessages(request.messages));
      return handler(request);
    },
    wrapToolCall: async (request, handler) => {
      progress.onTool(request.toolCall.name, true);
      try {
        return await handler(request);
      } finally {
        progress.onTool(request.toolCall.name, false);
      }
    },
  });
  const agent = createAgent({
    model: new PackageChatModel(options.model),
    tools: options.tools.map(asLangChainTool),
    middleware: [reporter, offloadMiddleware(options.offload)],
    systemPrompt: options.systemPrompt,
  });
  return {
    async messages(threadId: string): Promise<Message[]> {
      return history(histories, threadId);
    },
    async run(input: string, { threadId, signal }: { threadId: string; signal?: AbortSignal }): Promise<RunResult> {
      const before: Message[] = [
        ...(await history(histories, threadId)),
        { role: 'user', id: `u${Date.now()}`, content: [{ type: 'text', text: input }] },
      ];
      try {
        // The thread is passed in whole each turn and kept in the checkpointer database as messages.
        const state = await agent.invoke(
          { messages: fromMessages(before) },
          { configurable: { thread_id: threadId }, recursionLimit: 60, ...(signal ? { signal } : {}) },
        );
        const after = toMessages(state.messages);
        await histories.save(historyKey(threadId), after);
        return { status: 'completed', messages: after, events: [] };
      } catch (error) {
        await histories.save(historyKey(threadId), before);
        const reason = signal?.aborted ? 'aborted' : error instanceof Error ? error.message : String(error);
        return { status: 'failed', reason, messages: before, events: [] };
      }
    },
    async recover(threadId: string): Promise<RunResult> {
      return {
        status: 'failed',
        reason:
          'This LangChain runtime has no recover: a run a reload interrupted is not continued. Send the message again.',
        messages: await history(histories, threadId),
        events: [],
      };
    },
  };
}
