import type { ContextBudget } from '../../lib/index.js';

// The parts of a Prompt API session the adapter reads, under either of its names: the explainer's
// current `contextWindow`, `contextUsage`, `measureContextUsage()` and `contextoverflow`, or the older
// `inputQuota`, `inputUsage`, `measureInputUsage()` and `quotaoverflow` (extension contexts).

/** A message of a prompt as the adapter sends it: text only. */
export interface LanguageModelTextMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** A tool in the Prompt API's shape: the browser calls `execute` when the model asks, and sends the model its string. */
export interface LanguageModelTool {
  name: string;
  description: string;
  /** A JSON Schema object of the arguments. */
  inputSchema: object;
  execute(...args: never[]): Promise<string> | string;
}

/** What the adapter uses of one session (a `LanguageModel` instance). */
export interface LanguageModelSession {
  prompt(input: string | LanguageModelTextMessage[], options?: { signal?: AbortSignal }): Promise<string>;
  measureContextUsage?(input: string | LanguageModelTextMessage[]): Promise<number>;
  measureInputUsage?(input: string | LanguageModelTextMessage[]): Promise<number>;
  readonly contextUsage?: number;
  readonly contextWindow?: number;
  readonly inputUsage?: number;
  readonly inputQuota?: number;
  addEventListener(type: string, listener: (event: Event) => void): void;
  destroy(): void;
}

/** What the adapter uses of `LanguageModel` itself: `create`. */
export interface LanguageModelFactory {
  create(options: Record<string, unknown>): Promise<LanguageModelSession>;
}

const isTokens = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0;

/** The session's window in its own tokens; a TypeError when it gives none (under either name). */
export function windowOf(session: LanguageModelSession): number {
  const window = session.contextWindow ?? session.inputQuota;
  if (!isTokens(window) || window === 0) {
    throw new TypeError(
      `offloadSession: the session gives no context window (contextWindow or inputQuota), got ${String(window)}`,
    );
  }
  return window;
}

/** What the session holds now, in its own tokens; undefined when it does not say (or says something that is no count). */
export function usageOf(session: LanguageModelSession): number | undefined {
  const usage = session.contextUsage ?? session.inputUsage;
  return isTokens(usage) ? usage : undefined;
}

/** The tokens `input` would take in the session, as it counts them; undefined when it cannot say. */
export async function measureOf(
  session: LanguageModelSession,
  input: string | LanguageModelTextMessage[],
): Promise<number | undefined> {
  const measure = session.measureContextUsage ?? session.measureInputUsage;
  if (typeof measure !== 'function') return undefined;
  const tokens = await measure.call(session, input);
  return isTokens(tokens) ? tokens : undefined;
}

/** The event a session fires when it drops its oldest turns, under both names. */
export const overflowEvents = ['contextoverflow', 'quotaoverflow'] as const;

/** Room kept free in the window by default: a quarter, for one prompt's tool results and reply. */
export const defaultReserve = (contextWindow: number): number => Math.ceil(contextWindow / 4);

/**
 * The share of the window left after the reserve that the budget takes, in estimated tokens: the
 * model's tokenizer may count a third more than the package's estimate of the same text, and each
 * message costs it a few control tokens besides.
 */
const estimateShare = 0.6;

export interface ContextBudgetForOptions {
  /** Tokens of the window kept free for one prompt's tool results and reply. @default a quarter of contextWindow */
  reserveTokens?: number;
  /** As ContextBudget's: the newest results never cleared. @default 3 */
  keepRecentResults?: number;
  /**
   * As ContextBudget's. Each clearing starts a new session, so it frees much at once.
   * @default half of maxRequestTokens
   */
  clearAtLeastTokens?: number;
  /** As ContextBudget's: results of these tools are never cleared. */
  excludeTools?: readonly string[];
}

const budgetOptionNames = ['reserveTokens', 'keepRecentResults', 'clearAtLeastTokens', 'excludeTools'];

/**
 * A `contextBudget` for a model whose window is `contextWindow` tokens (a Prompt API session's
 * `contextWindow`, about 9,216 in Chrome): 60% of what the reserve leaves, so a conversation
 * fitted to it fits the window in the model's own tokens too; each clearing frees at least half of
 * it, since each starts a new session. A window too small
 * for a budget of 2,000 tokens is a RangeError saying so; unknown option names are a TypeError.
 */
export function contextBudgetFor(contextWindow: number, options: ContextBudgetForOptions = {}): ContextBudget {
  if (typeof contextWindow !== 'number' || !Number.isSafeInteger(contextWindow) || contextWindow < 1) {
    throw new RangeError(`contextBudgetFor: contextWindow must be a positive integer, got ${String(contextWindow)}`);
  }
  if (typeof options !== 'object' || options === null) {
    throw new TypeError('contextBudgetFor: options must be an object');
  }
  const unknown = Object.keys(options).filter((name) => !budgetOptionNames.includes(name));
  if (unknown.length > 0) {
    throw new TypeError(
      `contextBudgetFor: unknown option ${unknown.map((name) => JSON.stringify(name.slice(0, 80))).join(', ')}; the options are ${budgetOptionNames.join(', ')}`,
    );
  }
  const { reserveTokens = defaultReserve(contextWindow), ...budget } = options;
  if (!Number.isSafeInteger(reserveTokens) || reserveTokens < 0 || reserveTokens >= contextWindow) {
    throw new RangeError(
      `contextBudgetFor: reserveTokens must be an integer from 0 to below contextWindow (${contextWindow}), got ${String(reserveTokens)}`,
    );
  }
  const maxRequestTokens = Math.floor((contextWindow - reserveTokens) * estimateShare);
  if (maxRequestTokens < 2000) {
    throw new RangeError(
      `contextBudgetFor: a window of ${contextWindow} tokens less ${reserveTokens} reserved leaves a budget of ${maxRequestTokens}; contextBudget needs at least 2000`,
    );
  }
  // The budget's own fields are checked by ToolOutputOffload, as any contextBudget.
  return { maxRequestTokens, clearAtLeastTokens: Math.floor(maxRequestTokens / 2), ...budget };
}
