import type { LanguageModelUsage, PrepareStepFunction, Tool, ToolSet } from 'ai';
import type { OffloadEvent, ToolOutputOffload } from '../../lib/index.js';
import { contextStep } from './context-step.js';
import { defaultModelOutput, offloadModelOutput } from './model-output.js';
import { type OffloadReadTools, offloadReadTools } from './read-tools.js';

/** The options of `withOffload(offload, tools, options)`. */
export interface WithOffloadOptions<TOOLS extends ToolSet = ToolSet> {
  /** The chat (thread) these tools serve: stored results and reads are per thread. */
  threadId: string;
  /** Told of each result stored or that could not be stored, and of each step's clearing. A listener that throws is logged, not rethrown. */
  onEvent?: (event: OffloadEvent) => void;
  /**
   * The app's own step hook: the returned `prepareStep` runs it first, then fits what it returns
   * (its `messages` and `instructions`, else the step's) to the context budget.
   */
  prepareStep?: PrepareStepFunction<TOOLS & OffloadReadTools>;
}

/** What `withOffload` returns: the tools, the system prompt lines and the step hook to pass to the AI SDK. */
export interface WithOffload<TOOLS extends ToolSet> {
  /** The app's tools with `toModelOutput` wrapped, plus read_file, grep, ls and glob. */
  tools: TOOLS & OffloadReadTools;
  /** The offload's system prompt lines: add them to the instructions. */
  system: string;
  /**
   * Pass it as generateText's, streamText's or ToolLoopAgent's `prepareStep`: before every model
   * call it measures the request for the context ledger and, with a `contextBudget`, sends old
   * results as pointers to their stored paths (C1–C6). The steps and UI messages keep every result.
   */
  prepareStep: PrepareStepFunction<TOOLS & OffloadReadTools>;
  /**
   * Pass it as generateText's, streamText's or ToolLoopAgent's `onStepEnd` (or call it from your
   * own with the step): what the provider reported the step cost (`usage`: input tokens, the part
   * read from its cache, output tokens) is added to the ledger record of the request `prepareStep`
   * fitted for that step. Without it the ledger keeps only estimates.
   */
  onStepEnd: (step: { usage?: LanguageModelUsage }) => Promise<void>;
}

/** What the warning of an unfitted step says (C8). */
const unfittedFix =
  "withOffload: the offload has a contextBudget, but withOffload's prepareStep was not passed to generateText, streamText or ToolLoopAgent: requests are sent unfitted and the context ledger stays empty. Pass `prepareStep` from withOffload's result (your own hook goes in withOffload's `prepareStep` option).";

const optionNames: ReadonlySet<string> = new Set(['threadId', 'onEvent', 'prepareStep']);
/** A name for an error message: quoted, and cut when long (it is the caller's). */
const quoted = (name: string) => JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}…` : name);

function checkOptions(offload: unknown, tools: unknown, options: unknown): WithOffloadOptions {
  if (typeof (offload as ToolOutputOffload | null)?.offloadResult !== 'function') {
    throw new TypeError('withOffload: the first argument must be a ToolOutputOffload');
  }
  if (typeof tools !== 'object' || tools === null || Array.isArray(tools)) {
    throw new TypeError('withOffload: tools must be an object of AI SDK tools, keyed by name');
  }
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new TypeError('withOffload: options must be an object, { threadId, onEvent?, prepareStep? }');
  }
  const unknown = Object.keys(options).filter((name) => !optionNames.has(name));
  if (unknown.length > 0) {
    throw new TypeError(
      `withOffload: unknown option ${unknown.map(quoted).join(', ')}; the options are ${[...optionNames].join(', ')}`,
    );
  }
  const { threadId, onEvent, prepareStep } = options as Partial<WithOffloadOptions>;
  if (typeof threadId !== 'string' || threadId === '') {
    throw new TypeError(`withOffload: options.threadId must be a non-empty string, got ${JSON.stringify(threadId)}`);
  }
  if (onEvent !== undefined && typeof onEvent !== 'function') {
    throw new TypeError('withOffload: options.onEvent must be a function');
  }
  if (prepareStep !== undefined && typeof prepareStep !== 'function') {
    throw new TypeError("withOffload: options.prepareStep must be a function (the app's own step hook)");
  }
  return { threadId, ...(onEvent ? { onEvent } : {}), ...(prepareStep ? { prepareStep } : {}) };
}

/** Where a tool's result goes: its thread, tool and call, and who is told what happened to it. */
interface ErrorOrigin {
  threadId: string;
  toolName: string;
  emit: (event: OffloadEvent) => void;
}

/**
 * A thrown error whose text the model is sent as it is (the SDK sends `String(error)`, which for an
 * Error is "Error: message"): the offload's header and first lines naming where the error is stored.
 */
class StoredToolError extends Error {
  override toString(): string {
    return this.message;
  }
}

/**
 * A tool's thrown error as the model will be sent it: the SDK turns it into `error-text` itself,
 * without calling `toModelOutput`, so an error over the threshold is offloaded here and stays an
 * error (O16): a StoredToolError whose text is the header and first lines. The original stays as the `cause`.
 */
async function offloadError(offload: ToolOutputOffload, origin: ErrorOrigin, toolCallId: string, error: unknown) {
  const message = typeof error === 'string' ? error : error instanceof Error ? error.message : undefined;
  if (message === undefined) return error;
  const { threadId, toolName, emit } = origin;
  const shown = await offload.offloadResult({ threadId, callId: toolCallId, toolName, content: message });
  if (shown.kind === 'stored' && shown.stored)
    emit({ type: 'offloaded', threadId, toolName, toolCallId, path: shown.path });
  if (shown.kind === 'failed') emit({ type: 'offload-failed', threadId, toolName, toolCallId, why: shown.why });
  if (shown.kind === 'kept') return error;
  return typeof error === 'string' ? shown.text : new StoredToolError(shown.text, { cause: error });
}

/** `execute` whose thrown errors (sync or async) are offloaded; a streaming (AsyncIterable) result is left as it is. */
function offloadingErrors(
  offload: ToolOutputOffload,
  origin: ErrorOrigin,
  execute: NonNullable<Tool['execute']>,
): Tool['execute'] {
  return (input, options) => {
    const fail = async (error: unknown) => {
      throw await offloadError(offload, origin, options.toolCallId, error);
    };
    let result: ReturnType<typeof execute>;
    try {
      result = execute(input, options);
    } catch (error) {
      return fail(error);
    }
    return result instanceof Promise ? result.catch(fail) : result;
  };
}

/**
 * The offload for an AI SDK agent, for one thread (chat): each tool's `toModelOutput` is wrapped so
 * the model sees a large result's header and first lines while it is stored (the raw output stays
 * in the steps and UI messages), and read-only tools read it back; its `prepareStep` fits each
 * step's request to the offload's context budget. Works with generateText, streamText,
 * ToolLoopAgent and `convertToModelMessages(messages, { tools })`: converting the same result again
 * gives the same text and stores nothing, and the same request the same pointers (A1, C4).
 */
export function withOffload<TOOLS extends ToolSet>(
  offload: ToolOutputOffload,
  tools: TOOLS,
  options: WithOffloadOptions<TOOLS>,
): WithOffload<TOOLS> {
  const { threadId, onEvent, prepareStep } = checkOptions(offload, tools, options);
  const emit = (event: OffloadEvent) => {
    try {
      onEvent?.(event);
    } catch (error) {
      console.warn('withOffload: onEvent threw', error);
    }
  };
  const readTools = offloadReadTools(offload, threadId);
  const clash = Object.keys(readTools).find((name) => Object.hasOwn(tools, name));
  if (clash !== undefined) {
    throw new TypeError(
      `withOffload: the app already has a tool named "${clash}"; the offload adds ${Object.keys(readTools).join(', ')}`,
    );
  }
  // A tool runs after the model step that called it: with no step fitted before it, the SDK was
  // not given the returned prepareStep (C8).
  let fitted = false;
  const checkFitted = () => {
    if (!fitted && offload.warnUnfitted('ai-sdk', unfittedFix)) {
      emit({ type: 'context-not-fitted', threadId, fix: unfittedFix });
    }
  };
  const wrapped: Record<string, Tool> = {};
  for (const [toolName, original] of Object.entries(tools) as Array<[string, Tool]>) {
    const own = original.toModelOutput;
    const execute = original.execute && offloadingErrors(offload, { threadId, toolName, emit }, original.execute);
    wrapped[toolName] = {
      ...original,
      ...(execute
        ? {
            execute: ((input, callOptions) => {
              checkFitted();
              return execute(input, callOptions);
            }) satisfies Tool['execute'],
          }
        : {}),
      async toModelOutput({ toolCallId, input, output }) {
        const base = own ? await own({ toolCallId, input, output }) : defaultModelOutput(output);
        const shown = await offloadModelOutput(offload, { threadId, toolName, toolCallId }, base);
        if (shown.storedAt) emit({ type: 'offloaded', threadId, toolName, toolCallId, path: shown.storedAt });
        if (shown.failed !== undefined)
          emit({ type: 'offload-failed', threadId, toolName, toolCallId, why: shown.failed });
        return shown.output;
      },
    } as Tool;
  }
  const all = { ...wrapped, ...readTools };
  const fitStep = contextStep(offload, {
    threadId,
    tools: all,
    readToolNames: Object.keys(readTools),
    appStep: prepareStep as PrepareStepFunction<ToolSet> | undefined,
    emit,
  });
  return {
    tools: all as TOOLS & OffloadReadTools,
    system: offload.systemPrompt(),
    prepareStep: ((step) => {
      fitted = true;
      return fitStep.prepareStep(step);
    }) as PrepareStepFunction<TOOLS & OffloadReadTools>,
    onStepEnd: (step) => fitStep.reportStep(step?.usage),
  };
}
