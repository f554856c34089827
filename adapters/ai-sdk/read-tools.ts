import { jsonSchema, type Tool, tool } from 'ai';
import type { OffloadReadTool, ToolOutputOffload } from '../../lib/index.js';

/** The read tools, typed with their inputs as their JSON Schemas say (a type, so it fits a ToolSet). */
export type OffloadReadTools = {
  read_file: Tool<{ path: string; offset?: number; limit?: number; charOffset?: number }, string>;
  grep: Tool<{ pattern: string; path?: string }, string>;
  ls: Tool<{ path: string }, string>;
  glob: Tool<{ pattern: string; path?: string }, string>;
};

/**
 * A read tool's error, thrown so the SDK reports a tool error and the UI shows the call as failed.
 * The SDK sends the model (and the UI) `String(error)`, which for an Error is "Error: message";
 * this one's is its message alone, the text the built-in file tools and LangChain send.
 */
class ReadToolError extends Error {
  override toString(): string {
    return this.message;
  }
}

/**
 * One read tool as an AI SDK tool. An error (bad arguments, an evicted or missing path) is thrown
 * with its text (ReadToolError), so the model gets the same words as in every runtime and the run
 * goes on. Its results are never offloaded (A4): they are pages cut to the threshold.
 */
function aiTool(read: OffloadReadTool): Tool<never, string> {
  return tool({
    description: read.description,
    inputSchema: jsonSchema(read.parameters),
    async execute(input: unknown, { abortSignal }) {
      const { text, isError } = await read.run(input, abortSignal ? { signal: abortSignal } : {});
      if (isError) throw new ReadToolError(text);
      return text;
    },
  }) as Tool<never, string>;
}

/** read_file, grep, ls and glob over one thread's stored results. */
export function offloadReadTools(offload: ToolOutputOffload, threadId: string): OffloadReadTools {
  return Object.fromEntries(
    offload.readTools(threadId).map((read) => [read.name, aiTool(read)]),
  ) as unknown as OffloadReadTools;
}
