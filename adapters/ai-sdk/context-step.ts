// The AI SDK's way in to the context budget (C1–C6): a prepareStep that hands each step's request
// to `offload.fitContext` and sends the tool results it replaces as their pointers or cut previews.
import {
  asSchema,
  type Instructions,
  type LanguageModelUsage,
  type ModelMessage,
  type PrepareStepFunction,
  type PrepareStepResult,
  type Tool,
  type ToolResultPart,
  type ToolSet,
} from 'ai';
import type {
  ContextMessage,
  ContextRequest,
  FittedContext,
  OffloadEvent,
  ToolOutputOffload,
} from '../../lib/index.js';
import { type ModelOutput, withOptionsOf } from './model-output.js';

type ContextToolSpec = ContextRequest['tools'][number];
type ContextReplacement = FittedContext['replacements'] extends ReadonlyMap<number, infer R> ? R : never;

export type StepOptions = Parameters<PrepareStepFunction<ToolSet>>[0];

/** Where one tool result of the request sits in the step's messages. */
interface ResultAt {
  message: number;
  part: number;
}

/** The text a tool result is sent as (as providers send it: JSON compact, text parts joined), and its media parts. */
function resultText(output: ModelOutput): { text: string; mediaParts: number } {
  switch (output.type) {
    case 'text':
    case 'error-text':
      return { text: output.value, mediaParts: 0 };
    case 'json':
    case 'error-json':
      return { text: JSON.stringify(output.value) ?? 'null', mediaParts: 0 };
    case 'content': {
      const texts = output.value.flatMap((part) => (part.type === 'text' ? [part.text] : []));
      // Joined as model-output.ts joins them to offload: the preview is then the text measured.
      return { text: texts.join('\n'), mediaParts: output.value.length - texts.length };
    }
    case 'execution-denied':
      return { text: output.reason ?? '', mediaParts: 0 };
    default:
      return { text: '', mediaParts: 0 };
  }
}

/** The text of instructions: a string, or the contents of its system messages. */
function instructionsText(instructions: Instructions | undefined): string {
  if (instructions === undefined) return '';
  if (typeof instructions === 'string') return instructions;
  const messages = Array.isArray(instructions) ? instructions : [instructions];
  return messages.map((message) => message.content).join('\n');
}

/** A message's texts (text and reasoning parts; a provider-executed result's text), joined. */
function partsText(content: Exclude<ModelMessage['content'], string>): string {
  const texts: string[] = [];
  for (const part of content) {
    if (part.type === 'text' || part.type === 'reasoning') texts.push(part.text);
    // A provider's own result (web search…) is part of the assistant's turn: measured, never replaced.
    else if (part.type === 'tool-result') texts.push(resultText(part.output).text);
  }
  return texts.join('\n');
}

/** The step's messages as the offload's request messages, and where each tool result is. */
export function contextMessages(messages: readonly ModelMessage[]): {
  messages: ContextMessage[];
  results: ResultAt[];
} {
  const out: ContextMessage[] = [];
  const results: ResultAt[] = [];
  messages.forEach((message, m) => {
    if (message.role === 'tool') {
      message.content.forEach((part, p) => {
        if (part.type !== 'tool-result') return; // an approval response carries no result
        const { text, mediaParts } = resultText(part.output);
        results[out.length] = { message: m, part: p };
        out.push({ role: 'tool', toolCallId: part.toolCallId, toolName: part.toolName, text, mediaParts });
      });
      return;
    }
    if (typeof message.content === 'string') {
      out.push({ role: message.role, text: message.content });
      return;
    }
    const toolCalls =
      message.role === 'assistant'
        ? message.content.flatMap((part) =>
            part.type === 'tool-call' ? [{ id: part.toolCallId, name: part.toolName, args: part.input }] : [],
          )
        : [];
    out.push({
      role: message.role,
      text: partsText(message.content),
      ...(toolCalls.length > 0 ? { toolCalls } : {}),
    });
  });
  return { messages: out, results };
}

/** What the model is sent instead of one result: a pointer or a cut preview, media kept only when not dropped. */
function replacedOutput(output: ModelOutput, replacement: ContextReplacement): ModelOutput {
  if (output.type === 'error-text' || output.type === 'error-json') {
    return withOptionsOf(output, { type: 'error-text', value: replacement.text });
  }
  const media =
    output.type === 'content' && !replacement.dropMedia ? output.value.filter((p) => p.type !== 'text') : [];
  return withOptionsOf(
    output,
    media.length > 0
      ? { type: 'content', value: [{ type: 'text', text: replacement.text }, ...media] }
      : { type: 'text', value: replacement.text },
  );
}

/**
 * A copy of `messages` with the replaced results; every other message is the same object. Each
 * tool message it copies is noted in `originals`, so a later step can put the original back.
 */
function withReplacements(
  messages: readonly ModelMessage[],
  results: readonly ResultAt[],
  replacements: FittedContext['replacements'],
  originals: WeakMap<ModelMessage, ModelMessage>,
): ModelMessage[] {
  const copy = [...messages];
  for (const [index, replacement] of replacements) {
    const at = results[index];
    if (at === undefined) continue; // only tool results are replaced
    const message = copy[at.message] as Extract<ModelMessage, { role: 'tool' }>;
    const content = [...message.content];
    const part = content[at.part] as ToolResultPart;
    content[at.part] = { ...part, output: replacedOutput(part.output, replacement) };
    const replaced = { ...message, content };
    originals.set(replaced, message);
    copy[at.message] = replaced;
  }
  return copy;
}

/** The step's tools as the offload measures them: name, description and JSON Schema (as the SDK sends them). */
export async function toolSpecs(
  tools: Readonly<Record<string, Tool>>,
  active: readonly string[] | undefined,
  options: StepOptions,
  schemas: Map<string, Promise<unknown>>,
): Promise<ContextToolSpec[]> {
  const specs: ContextToolSpec[] = [];
  for (const [name, tool] of Object.entries(tools)) {
    if (active !== undefined && !active.includes(name)) continue;
    if (tool.type === 'provider') {
      specs.push({ name, parameters: tool.args });
      continue;
    }
    // A schema is converted once; a description may depend on the step's context, as the SDK resolves it.
    let schema = schemas.get(name);
    if (schema === undefined) {
      schema = Promise.resolve(asSchema(tool.inputSchema).jsonSchema);
      schemas.set(name, schema);
    }
    const description =
      typeof tool.description === 'function'
        ? tool.description({
            context: (options.toolsContext as Record<string, unknown>)[name],
            experimental_sandbox: options.experimental_sandbox,
          } as never)
        : tool.description;
    specs.push({ name, ...(description !== undefined ? { description } : {}), parameters: await schema });
  }
  return specs;
}

interface ContextStepOptions {
  threadId: string;
  /** Every tool the model is offered: the app's, wrapped, and the read tools. */
  tools: Readonly<Record<string, Tool>>;
  readToolNames: readonly string[];
  /** The app's own step hook: runs first; the offload's works on what it returns. */
  appStep: PrepareStepFunction<ToolSet> | undefined;
  emit: (event: OffloadEvent) => void;
}

/**
 * The prepareStep `withOffload` returns: the app's hook first, then the request it leaves (its
 * messages and instructions, else the step's) fitted by `offload.fitContext` before every model
 * call. The step's messages are copied, never changed: the steps and UI messages keep every
 * result. The copy it returns carries forward to later steps (the SDK's rule for a `messages`
 * returned); there its replaced messages are put back as they were before fitting again, so a
 * step's request is the one a re-conversion of the same history gives (C4), and a preview cut to
 * fit one step (C6) is whole again in a later one that has room.
 */
export function contextStep(offload: ToolOutputOffload, options: ContextStepOptions): ContextStep {
  const { threadId, tools, readToolNames, appStep, emit } = options;
  const schemas = new Map<string, Promise<unknown>>();
  // The tool messages this hook returned with replacements, each to the message it replaced.
  const originals = new WeakMap<ModelMessage, ModelMessage>();
  // The SDK runs a call's steps one after another: the step that ends is the one fitted last.
  let lastFitted: FittedContext | undefined;
  const reportStep = async (usage: LanguageModelUsage | undefined): Promise<void> => {
    const fitted = lastFitted;
    lastFitted = undefined;
    const reported = reportedUsage(usage);
    if (fitted && reported) await fitted.reportUsage(reported);
  };
  const prepareStep: PrepareStepFunction<ToolSet> = async (step) => {
    const own: PrepareStepResult<ToolSet> = appStep ? await appStep(step) : undefined;
    if (own !== undefined && (typeof own !== 'object' || own === null)) {
      throw new TypeError(
        `withOffload: the app's prepareStep must return an object or undefined, got ${own === null ? 'null' : typeof own}`,
      );
    }
    const given = own?.messages ?? step.messages;
    if (!Array.isArray(given)) {
      throw new TypeError("withOffload: the app's prepareStep returned messages that are not an array");
    }
    let restored = false;
    const messages = given.map((message) => {
      const original = originals.get(message);
      if (original === undefined) return message;
      restored = true;
      return original;
    });
    const active = own?.activeTools;
    const request = contextMessages(messages);
    const fitted = await offload.fitContext({
      threadId,
      system: instructionsText(own?.instructions ?? own?.system ?? step.instructions),
      tools: await toolSpecs(tools, active, step, schemas),
      messages: request.messages,
      readTools: active === undefined ? readToolNames : readToolNames.filter((name) => active.includes(name)),
    });
    lastFitted = fitted;
    for (const event of fitted.events) emit(event);
    if (fitted.replacements.size === 0 && !restored) return own;
    return { ...own, messages: withReplacements(messages, request.results, fitted.replacements, originals) };
  };
  return { prepareStep, reportStep };
}

/** The step hook `withOffload` returns, and how the end of that step reports what it cost. */
interface ContextStep {
  prepareStep: PrepareStepFunction<ToolSet>;
  /** The ended step's usage, added to the ledger record of the request it fitted last. */
  reportStep(usage: LanguageModelUsage | undefined): Promise<void>;
}

const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0;

/**
 * The SDK's usage of a step in the ledger's words: its input tokens, the part read from the
 * provider's cache, its output tokens; nothing without an input count (the provider gave none).
 */
function reportedUsage(usage: LanguageModelUsage | undefined) {
  if (!isCount(usage?.inputTokens)) return undefined;
  const cached = usage.inputTokenDetails?.cacheReadTokens;
  return {
    inputTokens: usage.inputTokens,
    ...(isCount(cached) ? { cachedInputTokens: cached } : {}),
    ...(isCount(usage.outputTokens) ? { outputTokens: usage.outputTokens } : {}),
  };
}
