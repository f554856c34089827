import { ToolMessage } from '@langchain/core/messages';
import { type DynamicStructuredTool, tool } from '@langchain/core/tools';
import type { Runtime } from 'langchain';
import type { OffloadReadTool, ToolOutputOffload } from '../../lib/index.js';

type ToolConfig = { toolCall?: { id?: string }; toolCallId?: string; signal?: AbortSignal } & Runtime<unknown>;

/** The read tools' LangChain faces: the ones the model sees, and the ones that run the calls. */
interface LangChainReadTools {
  /** Registered with the agent: their JSON Schemas are what the model is shown. */
  readonly registered: readonly DynamicStructuredTool[];
  /** Their names: an app tool of one of them would shadow it. */
  readonly names: ReadonlySet<string>;
  /** Run in place of a registered one (through `request.tool`), the arguments checked by the read tool itself. */
  runnerFor(registered: unknown): DynamicStructuredTool | undefined;
}

/**
 * LangChain tools over the offload's framework-neutral read tools (read_file, grep, ls, glob), for
 * the thread `threadOf` finds in a call's runtime. A result is always a ToolMessage, an error one
 * (status "error") for an evicted or missing path or bad arguments, never a throw: with any
 * wrapToolCall middleware in the agent, LangChain 1.x ends the run on a tool's exception.
 *
 * LangChain would check the arguments against the schema first and answer bad ones with the whole
 * arguments and a stack trace; the runners check nothing themselves, so the read tool's own short
 * error reaches the model instead.
 */
export function langChainReadTools(
  offload: ToolOutputOffload,
  threadOf: (runtime: Runtime<unknown>) => string,
): LangChainReadTools {
  // Declared once; each call names the thread it reads.
  const specs = offload.readTools();
  const run = (spec: OffloadReadTool) => async (args: unknown, config: ToolConfig) => {
    const result = await spec.run(args, { signal: config.signal, threadId: threadOf(config) });
    return new ToolMessage({
      content: result.text,
      tool_call_id: config.toolCall?.id ?? config.toolCallId ?? '',
      name: spec.name,
      status: result.isError ? 'error' : 'success',
    });
  };
  const make = (spec: OffloadReadTool, schema: Record<string, unknown>) =>
    tool(run(spec) as (args: unknown, config: unknown) => Promise<ToolMessage>, {
      name: spec.name,
      description: spec.description,
      schema,
    }) as DynamicStructuredTool;
  const registered = specs.map((spec) => make(spec, spec.parameters));
  const runners = new Map<unknown, DynamicStructuredTool>(
    specs.map((spec, i) => [registered[i], make(spec, { type: 'object' })]),
  );
  return {
    registered,
    names: new Set(specs.map((spec) => spec.name)),
    runnerFor: (candidate) => runners.get(candidate),
  };
}
