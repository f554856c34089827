// The route's half of an AI SDK UI chat whose page keeps the stored results: the read tools
// declared without `execute` (the page answers them: `offloadChat`'s `answerReadTool`) and the
// offload's system lines, worded by an offload made with the page's options. Nothing here opens a
// store, and the module imports nothing of the offload at run time.
import { jsonSchema, tool } from 'ai';
import type { ToolOutputOffload } from '../../lib/index.js';
import type { OffloadReadTools } from './read-tools.js';

/** What a chat's route declares for the page's offload: the read tools without `execute`, and the offload's system lines. */
export interface OffloadChatRoute {
  /** read_file, grep, ls and glob as the page's offload declares them, without `execute`: the page runs them. */
  tools: OffloadReadTools;
  /** The offload's system prompt lines: add them to the route's instructions. */
  system: string;
}

/**
 * What a chat route adds for the page's offload: the read tools to declare (their calls reach the
 * page, whose `onToolCall` answers them from its store) and the system lines that say where large
 * results are and how to read them. On a server, pass `new ToolOutputOffload(options)` with the
 * page's `thresholdTokens` (the lines name it): where no IndexedDB exists it uses a memory store,
 * which this never writes to.
 */
export function offloadChatRoute(offload: ToolOutputOffload): OffloadChatRoute {
  if (typeof (offload as ToolOutputOffload | null)?.readTools !== 'function') {
    throw new TypeError('offloadChatRoute: the argument must be a ToolOutputOffload (made with the page’s options)');
  }
  const tools = Object.fromEntries(
    offload
      .readTools()
      .map((read) => [read.name, tool({ description: read.description, inputSchema: jsonSchema(read.parameters) })]),
  ) as unknown as OffloadReadTools;
  return { tools, system: offload.systemPrompt() };
}
