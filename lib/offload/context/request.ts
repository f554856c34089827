// The words every way in uses to hand the offload one model request (C1) and take back what to
// send instead (C2, C6): a request in no framework's terms, and the plan for it.

import { checkInteger, isRecord, quoteForMessage } from '../../shared/checks.js';
import type { ReportedUsage } from '../../store/offload-store.js';

/** The `contextBudget` option of ToolOutputOffload (C1–C7). */
export interface ContextBudget {
  /** Integer ≥ 2000: the most estimated tokens one model request may carry. */
  maxRequestTokens: number;
  /**
   * Integer ≥ 0: the newest tool results (of any tool) are never cleared.
   * @default 3
   */
  keepRecentResults?: number;
  /**
   * Integer ≥ 0: when clearing runs, it frees at least this much.
   * @default a quarter of maxRequestTokens
   */
  clearAtLeastTokens?: number;
  /** Results of these tools are never cleared. */
  excludeTools?: readonly string[];
  /**
   * Hold `maxRequestTokens` in the provider's tokens once it has reported some (C9): the budget
   * relates the input tokens reported for the thread's recent requests to its own estimate of them
   * and fits each request so its expected reported size stays within the budget (never enlarging
   * it). `false` keeps the estimate alone. Without reported usage nothing changes.
   * @default true
   */
  calibrate?: boolean;
}

/** The `contextBudget` option once checked (`offload.contextBudget`): every field filled in, frozen. */
export type ResolvedContextBudget = Readonly<Required<ContextBudget>>;

const budgetFields: readonly string[] = [
  'maxRequestTokens',
  'keepRecentResults',
  'clearAtLeastTokens',
  'excludeTools',
  'calibrate',
];

/** An integer field of contextBudget: a TypeError when it is no number, a RangeError when out of range. */
function budgetInteger(field: string, value: unknown, min: number): number {
  const name = `ToolOutputOffload: contextBudget.${field}`;
  if (typeof value !== 'number') {
    throw new TypeError(`${name} must be an integer of at least ${min}, got ${quoteForMessage(value)}`);
  }
  return checkInteger(name, value, min);
}

/**
 * Checks the `contextBudget` option (C1–C7) and fills in its defaults: `keepRecentResults` 3,
 * `clearAtLeastTokens` a quarter of `maxRequestTokens`, no `excludeTools`, `calibrate` true. A bad value throws a
 * TypeError (wrong kind, unknown field) or RangeError (out of range) naming `contextBudget.<field>`.
 */
export function resolveContextBudget(budget: unknown): ResolvedContextBudget | undefined {
  if (budget === undefined) return undefined;
  if (!isRecord(budget)) {
    throw new TypeError(
      `ToolOutputOffload: contextBudget must be an object { maxRequestTokens, keepRecentResults?, clearAtLeastTokens?, excludeTools?, calibrate? }, got ${quoteForMessage(budget)}`,
    );
  }
  const unknown = Object.keys(budget).filter((field) => !budgetFields.includes(field));
  if (unknown.length > 0) {
    throw new TypeError(
      `ToolOutputOffload: unknown field ${unknown.map((field) => `contextBudget.${quoteForMessage(field).slice(1, -1)}`).join(', ')}; the fields are ${budgetFields.join(', ')}`,
    );
  }
  // May be below thresholdTokens: a small model's window can be smaller than one stored result's preview.
  const maxRequestTokens = budgetInteger('maxRequestTokens', budget.maxRequestTokens, 2000);
  const keepRecentResults =
    budget.keepRecentResults === undefined ? 3 : budgetInteger('keepRecentResults', budget.keepRecentResults, 0);
  const clearAtLeastTokens =
    budget.clearAtLeastTokens === undefined
      ? Math.floor(maxRequestTokens / 4)
      : budgetInteger('clearAtLeastTokens', budget.clearAtLeastTokens, 0);
  const { excludeTools = [] } = budget;
  if (!Array.isArray(excludeTools) || excludeTools.some((name) => typeof name !== 'string')) {
    throw new TypeError(
      `ToolOutputOffload: contextBudget.excludeTools must be an array of tool names, got ${quoteForMessage(excludeTools)}`,
    );
  }
  const { calibrate = true } = budget;
  if (typeof calibrate !== 'boolean') {
    throw new TypeError(
      `ToolOutputOffload: contextBudget.calibrate must be true or false, got ${quoteForMessage(calibrate)}`,
    );
  }
  return Object.freeze({
    maxRequestTokens,
    keepRecentResults,
    clearAtLeastTokens,
    excludeTools: Object.freeze([...excludeTools]),
    calibrate,
  });
}

/** A tool call an assistant message asked for; its arguments count as their JSON. */
export interface ContextToolCall {
  id: string;
  name: string;
  args: unknown;
}

/** One message of a request: text (with the tool calls it asked for), or one tool result. */
export type ContextMessage =
  | { role: 'system' | 'user' | 'assistant'; text: string; toolCalls?: readonly ContextToolCall[] }
  | {
      role: 'tool';
      toolCallId: string;
      toolName: string;
      /** The result's text as the model would be sent it (all text parts joined; JSON as the provider sends it). */
      text: string;
      /** How many non-text parts (images, files) it carries: a pointer drops them. */
      mediaParts?: number;
    };

/** A tool the request offers the model; it counts as the JSON of its name, description and parameters. */
export interface ContextToolSpec {
  name: string;
  description?: string;
  parameters?: unknown;
}

/** One model request, as a way in hands it to `ToolOutputOffload.fitContext`. */
export interface ContextRequest {
  threadId: string;
  /** The built-in agent's turn: clearings are tagged with it, so an output Block takes them back (C7). */
  turnId?: string;
  /** The system prompt as it will be sent, the offload's lines included. */
  system: string;
  tools: readonly ContextToolSpec[];
  messages: readonly ContextMessage[];
  /** The read tools the model has (read_file, grep…): pointers name only these. Default: all. */
  readTools?: readonly string[];
}

/** A tool result's text to send instead of its own. */
export interface ContextReplacement {
  /** A pointer (cleared, C2) or a preview cut to its header (C6). */
  shownAs: 'pointer' | 'cut';
  text: string;
  /** Send none of its non-text parts (a pointer drops them, and says so). */
  dropMedia: boolean;
}

/** What fitting a request to the budget told: results cleared (C6), the request over the budget anyway, the budget calibrated (C9). */
export type ContextEvent =
  /** Old results were cleared from this request (C1, C2): `paths` they are read back at, its estimated tokens before and after. */
  | { type: 'context-cleared'; threadId: string; paths: string[]; tokensBefore: number; tokensAfter: number }
  /** Clearing all it may, the request's estimated `tokens` are still over `budget` (C6; calibrated, C9): it is sent anyway, previews cut to their header. */
  | { type: 'context-over-budget'; threadId: string; tokens: number; budget: number }
  /**
   * The budget calibrated to the provider's reported tokens (C9) moved by more than 10% from the
   * previous request's: `factor` reported tokens an estimated one, `effectiveBudget` the request's
   * budget in estimated tokens now (`maxRequestTokens` / `factor`).
   */
  | { type: 'context-calibrated'; threadId: string; factor: number; effectiveBudget: number };

/** What to send for one request: replacements of some tool results, and what to tell the app. */
export interface FittedContext {
  /** By index into the request's `messages` (tool results only); every other message is sent as it is. */
  replacements: ReadonlyMap<number, ContextReplacement>;
  events: ContextEvent[];
  /** The request's estimated tokens once the replacements are made; absent without the context ledger (nothing is measured). */
  tokens?: number;
  /**
   * Call it when the reply arrives, with what the provider reported the request cost (its own
   * tokens; a count it did not give left out): the request's ledger record gains it as `reported`.
   * Resolves true once recorded, false when there is no record to add it to or the store failed
   * (never a failed run, S3); a malformed usage rejects with a TypeError naming it.
   */
  reportUsage(usage: ReportedUsage): Promise<boolean>;
}
