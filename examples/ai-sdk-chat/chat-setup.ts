// What the page and the route share: the offload's options, the page's client tool as the route
// declares it, and the route's system prompt and tools. The page measures each request with the
// same system and tools the route sends (offloadChat's `system` and `tools`).
import { jsonSchema, tool } from 'ai';
import { offloadChatRoute } from '../../adapters/ai-sdk/index.js';
import { MemoryOffloadStore, ToolOutputOffload } from '../../lib/index.js';

/** The page's offload and the route's wording of it use the same threshold. */
export const offloadOptions = { thresholdTokens: 2000 } as const;

/** The page's own tool, declared without `execute`: the route's model calls it, the page runs it in onToolCall. */
export const pageTools = {
  read_page: tool({
    description: 'Reads the whole text of the article open in this tab.',
    inputSchema: jsonSchema<Record<string, never>>({ type: 'object', properties: {}, additionalProperties: false }),
  }),
};

// An offload over an empty memory store, only to word the read tools and the system lines as the page's offload does.
const route = offloadChatRoute(new ToolOutputOffload({ ...offloadOptions, store: new MemoryOffloadStore() }));

/** The route's system prompt: its own instructions and the offload's lines. */
export const routeSystem = `You answer questions about the article open in the user's tab. Read it with read_page.\n${route.system}`;

/** The route's tools: the page's tool and the read tools, all answered in the page. */
export const routeTools = { ...pageTools, ...route.tools };
