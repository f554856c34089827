import {
  generateText,
  jsonSchema,
  type LanguageModel,
  type ModelMessage,
  type PrepareStepFunction,
  stepCountIs,
  type Tool,
  type ToolSet,
  tool,
} from 'ai';
import { withOffload } from '../adapters/ai-sdk/index.js';
import type { Progress } from '../examples/shared/progress.js';
import {
  type Message,
  type Model,
  modelReply,
  type Tool as PackageTool,
  type RunResult,
  type ToolCall,
  type ToolSpec,
} from '../lib/agent.js';
import { type FrameworkRuntimeOptions, type HistoryStore, loadHistory } from './framework-runtime.js';
import { runPackageTool } from './package-tool.js';

// The demo's second runtime: the same scripted model, tools and store, run by the Vercel AI SDK's
// generateText with `withOffload` instead of this package's agent loop.

type LanguageModelV4 = Extract<LanguageModel, { specificationVersion: 'v4' }>;
type CallOptions = Parameters<LanguageModelV4['doGenerate']>[0];
type Prompt = CallOptions['prompt'];

const usage = {
  inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: undefined, text: undefined, reasoning: undefined },
};

/** A tool result's text as the model is sent it. */
function outputText(output: { type: string; value?: unknown }): string {
  return typeof output.value === 'string' ? output.value : JSON.stringify(output.value ?? null);
}

/** The SDK's prompt as this package's messages (the system prompt aside), for a package `Model`. */
function toMessages(prompt: Prompt): Message[] {
  return prompt.flatMap((message, i): Message[] => {
    const id = `m${i}`;
    const texts = (parts: ReadonlyArray<{ type: string; text?: string }>) =>
      parts.flatMap((p) => (p.type === 'text' && p.text ? [{ type: 'text' as const, text: p.text }] : []));
    switch (message.role) {
      case 'user':
        return [{ role: 'user', id, content: texts(message.content) }];
      case 'assistant': {
        const toolCalls: ToolCall[] = message.content.flatMap((p) =>
          p.type === 'tool-call' ? [{ id: p.toolCallId, name: p.toolName, args: p.input }] : [],
        );
        return [{ role: 'assistant', id, content: texts(message.content), toolCalls }];
      }
      case 'tool':
        return message.content.flatMap((p, j): Message[] =>
          p.type === 'tool-result'
            ? [
                {
                  role: 'tool',
                  id: `${id}-${j}`,
                  toolCallId: p.toolCallId,
                  toolName: p.toolName,
                  content: [{ type: 'text', text: outputText(p.output) }],
                  isError: p.output.type.startsWith('error'),
                },
              ]
            : [],
        );
      default:
        return [];
    }
  });
}

/** The tools the SDK offers in this call, as the package's tool specs (a real model must be told them). */
function toolSpecs(options: CallOptions): ToolSpec[] {
  return (options.tools ?? []).flatMap((t) =>
    t.type === 'function'
      ? [{ name: t.name, description: t.description ?? '', parameters: t.inputSchema as ToolSpec['parameters'] }]
      : [],
  );
}

/** A short random tag: eight hex digits. */
function randomTag(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(4)), (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * A package `Model` (the offline script, or the OpenAI-compatible adapter) as an AI SDK language
 * model, so the AI SDK runtime plays the same scenario. The script's ids are unique in a thread
 * only: each step's ids get a random tag, unique everywhere as a provider's would be (the same id
 * and text again is the same result to the offload, A1).
 */
export function asLanguageModel(model: Model): LanguageModelV4 {
  return {
    specificationVersion: 'v4',
    provider: 'tool-output-offload-demo',
    modelId: 'package-model',
    supportedUrls: {},
    async doGenerate(options: CallOptions) {
      const system = options.prompt.flatMap((m) => (m.role === 'system' ? [m.content] : [])).join('\n');
      const reply = await modelReply(
        model,
        { systemPrompt: system, messages: toMessages(options.prompt), tools: toolSpecs(options) },
        { signal: options.abortSignal ?? new AbortController().signal },
      );
      const tag = randomTag();
      const text =
        typeof reply.content === 'string'
          ? reply.content
          : reply.content.map((p) => ('text' in p ? p.text : '')).join('');
      const calls = reply.toolCalls ?? [];
      return {
        content: [
          ...(text ? [{ type: 'text' as const, text }] : []),
          ...calls.map((call) => ({
            type: 'tool-call' as const,
            toolCallId: `${call.id}-${tag}`,
            toolName: call.name,
            input: JSON.stringify(call.args),
          })),
        ],
        finishReason: { unified: calls.length > 0 ? ('tool-calls' as const) : ('stop' as const), raw: undefined },
        usage,
        warnings: [],
      };
    },
    async doStream() {
      throw new Error('the demo runs generateText only');
    },
  };
}

/** A package tool as an AI SDK tool; an error outcome is thrown, so the SDK sends it as a tool error. */
function asAiTool(packageTool: PackageTool, progress: Progress): Tool {
  return tool({
    description: packageTool.description,
    inputSchema: jsonSchema(packageTool.parameters),
    async execute(input: unknown, { abortSignal }) {
      progress.onTool(packageTool.name, true);
      try {
        const { text, isError } = await runPackageTool(packageTool, input, abortSignal);
        if (isError) throw new Error(text);
        return text;
      } finally {
        progress.onTool(packageTool.name, false);
      }
    },
  }) as Tool;
}

const historyKey = (threadId: string) => `ai-sdk:${threadId}`;

const history = (store: HistoryStore, threadId: string) => loadHistory<ModelMessage>(store, historyKey(threadId));

/** The history as this package's messages, for the conversation view. */
function shown(messages: ModelMessage[]): Message[] {
  return toMessages(
    messages.map((m) =>
      typeof m.content === 'string' ? { ...m, content: [{ type: 'text', text: m.content }] } : m,
    ) as unknown as Prompt,
  );
}

/** The AI SDK runtime, with the agent's `run`, `recover` and `messages` as the demo page uses them. */
export function aiSdkRuntime(options: FrameworkRuntimeOptions) {
  const { offload, histories, progress } = options;
  const model = asLanguageModel(options.model);
  const appTools = Object.fromEntries(options.tools.map((t) => [t.name, asAiTool(t, progress)]));
  return {
    async messages(threadId: string): Promise<Message[]> {
      return shown(await history(histories, threadId));
    },
    async run(input: string, { threadId, signal }: { threadId: string; signal?: AbortSignal }): Promise<RunResult> {
      const before: ModelMessage[] = [...(await history(histories, threadId)), { role: 'user', content: input }];
      // The page's own step hook: it shows the thread as each step begins.
      const showStep: PrepareStepFunction<ToolSet> = ({ messages }) => {
        progress.onStep(shown(messages));
        return {};
      };
      // Per thread: toModelOutput is not told which chat it runs for. withOffload's prepareStep fits
      // each request to the context budget and writes the ledger, after the page's hook (C1–C7).
      const { tools, system, prepareStep } = withOffload(offload, appTools, { threadId, prepareStep: showStep });
      try {
        const result = await generateText({
          model,
          tools,
          instructions: `${options.systemPrompt}\n${system}`,
          messages: before,
          stopWhen: stepCountIs(25),
          ...(signal ? { abortSignal: signal } : {}),
          prepareStep,
        });
        const after = [...before, ...result.responseMessages];
        await histories.save(historyKey(threadId), after);
        return { status: 'completed', messages: shown(after), events: [] };
      } catch (error) {
        await histories.save(historyKey(threadId), before);
        const reason = signal?.aborted ? 'aborted' : error instanceof Error ? error.message : String(error);
        return { status: 'failed', reason, messages: shown(before), events: [] };
      }
    },
    async recover(threadId: string): Promise<RunResult> {
      return {
        status: 'failed',
        reason: 'The AI SDK has no recover: a run a reload interrupted is not continued. Send the message again.',
        messages: shown(await history(histories, threadId)),
        events: [],
      };
    },
  };
}
