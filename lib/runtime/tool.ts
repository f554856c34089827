import { checkOptionNames, isRecord, quoteForMessage } from '../shared/checks.js';
import type { EmittedEvent } from './events.js';
import type { ToolSpec } from './model.js';
import type { ToolResult } from './outcome.js';

/** What a tool's `execute` (and wrapToolCall) is told of the call. */
export interface ToolContext {
  threadId: string;
  /** The turn in progress. */
  turnId: string;
  /**
   * The runtime's identity of this call: random, path-safe, saved in the checkpoint before the tool
   * runs, and the same when `recover` runs the call again (R9).
   */
  idempotencyKey: string;
  /** Whether the app approved this call after it asked for approval (R6). */
  approved: boolean;
  /** Aborted when the run is, or when the call times out (`toolTimeoutMs`). */
  signal: AbortSignal;
  /** The committed state. */
  state: Readonly<Record<string, unknown>>;
  /** Reports a small event of this run (RunEvent), attributed to the middleware or tool it was given to. */
  emit(event: EmittedEvent): void;
}

/** A tool the model may call: its spec, and `execute`, which gets the checked arguments. */
// biome-ignore lint/suspicious/noExplicitAny: a tool list holds tools of many argument types
export interface Tool<A = any> extends ToolSpec {
  execute(args: A, context: ToolContext): ToolResult | Promise<ToolResult>;
}

/**
 * Identity helper that gives `execute` its argument type; a field it does not know (`parameter`
 * for `parameters`) is a TypeError naming it, since the tool would silently lose what it meant.
 */
export function tool<A>(definition: Tool<A>): Tool<A> {
  if (isRecord(definition)) {
    checkOptionNames(`tool ${quoteForMessage(definition.name)}`, definition, [
      'name',
      'description',
      'parameters',
      'execute',
    ]);
  }
  return definition;
}
