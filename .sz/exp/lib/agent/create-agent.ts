import { ToolOutputOffload } from '../offload/tool-output-offload.js';
import {
  type Agent,
  createAgent as createRuntimeAgent,
  type AgentOptions as RuntimeOptions,
} from '../runtime/agent.js';
import type { Middleware } from '../runtime/middleware.js';
import { OffloadMiddleware } from './offload-middleware.js';

export interface AgentOptions extends Omit<RuntimeOptions, 'middleware'> {
  /**
   * First in the list = outermost: it wraps the others' wrapModelCall and wrapToolCall, and runs
   * beforeAgent, systemPrompt and afterAgent before them (R1). A ToolOutputOffload is one of them:
   * it stages large results as they come and commits them as the runtime applies them.
   */
  middleware?: readonly (Middleware | ToolOutputOffload)[];
}

/**
 * The agent loop: beforeAgent → model steps with their tool calls → afterAgent, each middleware in
 * stack order (R1). A ToolOutputOffload in `middleware` runs as the offload's middleware for this
 * agent, whose system prompt and headers name the read tools among `tools`.
 */
export function createAgent(options: AgentOptions): Agent {
  const toolNames = (options?.tools ?? []).map((tool) => tool?.name);
  const middleware = options?.middleware?.map((m) =>
    m instanceof ToolOutputOffload ? new OffloadMiddleware(m, toolNames) : m,
  );
  return createRuntimeAgent({ ...options, ...(middleware ? { middleware } : {}) } as RuntimeOptions);
}
