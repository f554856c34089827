import type { OffloadEvent } from '../offload/events.js';
import { ToolOutputOffload } from '../offload/tool-output-offload.js';
import { type AgentLoop, type AgentLoopOptions, createAgentLoop } from '../runtime/agent.js';
import type { LoopEvent } from '../runtime/events.js';
import type { Middleware } from '../runtime/middleware.js';
import type { LoopResult } from '../runtime/run-result.js';
import type { SummarizationEvent } from '../summarization/summarization.js';
import { OffloadMiddleware } from './offload-middleware.js';

/** What the package's own middleware emit: ToolOutputOffload's events and Summarization's. */
type PackageEvent = OffloadEvent | SummarizationEvent;

/**
 * One event of a built-in agent's run, discriminated on `type`: the runtime's own (`run-started`,
 * `model-call`, `tool-call`, `state-applied`, `end-turn-failed`, `run-ended`), ToolOutputOffload's
 * (`OffloadEvent`, with `middleware: 'ToolOutputOffload'`), Summarization's, and `Custom`: what the
 * app's own middleware and tools emit, when it names them (`createAgent<MyEvent>(…)`).
 */
export type RunEvent<Custom extends { type: string } = never> = LoopEvent<PackageEvent | Custom>;

/** What a built-in agent's run, resume or recover call gives back, its events typed as `RunEvent`. */
export type RunResult<Custom extends { type: string } = never> = LoopResult<PackageEvent | Custom>;

/** A built-in agent (`createAgent`), its results' events typed as `RunEvent`. */
export type Agent<Custom extends { type: string } = never> = AgentLoop<PackageEvent | Custom>;

/** createAgent's options; `Custom`: the events the app's own middleware and tools emit. */
export interface AgentOptions<Custom extends { type: string } = never>
  extends Omit<AgentLoopOptions<PackageEvent | Custom>, 'middleware'> {
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
 * agent, whose system prompt and headers name the read tools among `tools`. Its events are typed
 * as `RunEvent`: an app whose own middleware or tools emit events names them as `Custom`.
 */
export function createAgent<Custom extends { type: string } = never>(options: AgentOptions<Custom>): Agent<Custom> {
  const toolNames = (options?.tools ?? []).map((tool) => tool?.name);
  const middleware = options?.middleware?.map((m) =>
    m instanceof ToolOutputOffload ? new OffloadMiddleware(m, toolNames) : m,
  );
  return createAgentLoop({ ...options, ...(middleware ? { middleware } : {}) } as AgentLoopOptions<
    PackageEvent | Custom
  >);
}
