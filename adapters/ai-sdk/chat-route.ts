// The route's half of an AI SDK UI chat whose page keeps the stored results: the read tools
// declared without `execute` (the page answers them, `offloadChat`'s `answerReadTool`) and the
// offload's system lines. Nothing here touches a store: the route runs where no IndexedDB is.
import { jsonSchema, tool } from 'ai';
import { MemoryOffloadStore, ToolOutputOffload } from '../../lib/index.js';
import type { OffloadReadTools } from './read-tools.js';

export interface OffloadChatRouteOptions {
  /**
   * The page's offload's `thresholdTokens`, which the system lines name.
   * @default the ToolOutputOffload default
   */
  thresholdTokens?: number;
}

export interface OffloadChatRoute {
  /** read_file, grep, ls and glob as the page's offload declares them, without `execute`: the page runs them. */
  tools: OffloadReadTools;
  /** The offload's system prompt lines: add them to the route's instructions. */
  system: string;
}

const optionNames: readonly string[] = ['thresholdTokens'];

/**
 * What a chat route adds for the page's offload: the read tools to declare (their calls reach the
 * page, whose `onToolCall` answers them from its store) and the system lines that say where large
 * results are and how to read them. Safe on a server: it opens no store.
 */
export function offloadChatRoute(options: OffloadChatRouteOptions = {}): OffloadChatRoute {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new TypeError('offloadChatRoute: options must be an object, { thresholdTokens? }');
  }
  const unknown = Object.keys(options).filter((name) => !optionNames.includes(name));
  if (unknown.length > 0) {
    throw new TypeError(
      `offloadChatRoute: unknown option ${unknown.map((name) => JSON.stringify(name.slice(0, 80))).join(', ')}; the options are ${optionNames.join(', ')}`,
    );
  }
  // An offload over an empty memory store only to word the specs and the lines as the page's does.
  const offload = new ToolOutputOffload({
    store: new MemoryOffloadStore(),
    ...(options.thresholdTokens !== undefined ? { thresholdTokens: options.thresholdTokens } : {}),
  });
  const tools = Object.fromEntries(
    offload
      .readTools()
      .map((read) => [read.name, tool({ description: read.description, inputSchema: jsonSchema(read.parameters) })]),
  ) as unknown as OffloadReadTools;
  return { tools, system: offload.systemPrompt() };
}
