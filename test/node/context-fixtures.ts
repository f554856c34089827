// What the context budget's tests share: a store that keeps the ledger and the cleared records, and
// requests built the way a way in builds them (an assistant message with its tool calls, then the results).

import type {
  ContextMessage,
  ContextRequest,
  FittedContext,
  RequestRecord,
  ToolOutputOffload,
  WritableOffloadStore,
} from '../../lib/index.js';
import { MemoryOffloadStore } from '../../lib/index.js';
import { mergedCallStub } from '../../lib/offload/words.js';

/** A store the budget runs on: the built-in stores keep the ledger and the cleared records. */
export type ContextStore = WritableOffloadStore;

export function contextStore(): ContextStore {
  return new MemoryOffloadStore();
}

/**
 * The thread's ledger once it holds `count` records (fitContext writes a request without a new
 * clearing behind the model call), each as `ready` asks (default: any): read again at each of the
 * store's 'request' events (a usage added to a record tells one too).
 */
export function ledgerOf(
  store: ContextStore,
  threadId: string,
  count: number,
  ready: (record: RequestRecord) => boolean = () => true,
): Promise<RequestRecord[]> {
  return new Promise((resolve, reject) => {
    let done = false;
    const check = () =>
      store.requests(threadId).then((records) => {
        if (done || records.length < count || !records.every(ready)) return;
        done = true;
        stop();
        resolve(records);
      }, reject);
    const stop = store.subscribe((event) => {
      if (event.type === 'request' && event.threadId === threadId) void check();
    });
    void check();
  });
}

/** A tool call and its result, as one step of a conversation. */
export interface Step {
  id: string;
  toolName: string;
  args?: unknown;
  /** The result's text as the model is sent it (a preview, when the offload stored it). */
  text: string;
  mediaParts?: number;
}

/** The messages of a conversation: a user message, then for each step an assistant message calling the tool and its result. */
export function conversation(steps: readonly Step[], options: { answered?: boolean } = {}): ContextMessage[] {
  const messages: ContextMessage[] = [{ role: 'user', text: 'Look into the orders of last week.' }];
  for (const step of steps) {
    messages.push({
      role: 'assistant',
      text: `Calling ${step.toolName}.`,
      toolCalls: [{ id: step.id, name: step.toolName, args: step.args ?? { id: step.id } }],
    });
    messages.push({
      role: 'tool',
      toolCallId: step.id,
      toolName: step.toolName,
      text: step.text,
      ...(step.mediaParts === undefined ? {} : { mediaParts: step.mediaParts }),
    });
  }
  // An assistant message after the last result: the model has read them all (none is the latest step's, C5).
  if (options.answered ?? true) messages.push({ role: 'assistant', text: 'Noted.' });
  return messages;
}

export function request(
  threadId: string,
  messages: ContextMessage[],
  over: Partial<ContextRequest> = {},
): ContextRequest {
  return {
    threadId,
    system: 'You are a careful analyst.',
    tools: [{ name: 'fetch_orders', description: 'Fetches orders.', parameters: { type: 'object' } }],
    messages,
    ...over,
  };
}

/** The messages as sent: each replacement applied, as a way in applies it to its own messages. */
export function applied(messages: readonly ContextMessage[], fitted: FittedContext): ContextMessage[] {
  return messages.map((message, index) => {
    const replacement = fitted.replacements.get(index);
    if (replacement === undefined || message.role !== 'tool') return message;
    return { ...message, text: replacement.text, ...(replacement.dropMedia ? { mediaParts: 0 } : {}) };
  });
}

/** A text of about `tokens` estimated tokens (four characters a token), in lines, distinct by `seed`. */
export function textOf(tokens: number, seed: string): string {
  const line = `${seed}: order 12345 shipped to Lisbon, total 99.50 EUR.`.padEnd(79, '.');
  const lines: string[] = [];
  for (let chars = 0; chars < tokens * 4; chars += 80) lines.push(`${line.slice(0, 72)} #${lines.length}`.padEnd(79));
  return lines.join('\n');
}

/** A result stored by the offload (as the AI SDK and LangChain adapters store it): its preview text. */
export async function offloaded(
  offload: ToolOutputOffload,
  threadId: string,
  id: string,
  text: string,
  toolName = 'fetch_orders',
): Promise<{ text: string; path?: string }> {
  const outcome = await offload.offloadResult({ threadId, callId: id, toolName, content: text });
  return { text: outcome.text, path: outcome.path };
}

/** A system prompt of about 1,820 tokens: with a result or two, over a budget of 2,000. */
export const longSystem = `You are a careful analyst. ${'Check every figure twice. '.repeat(280)}`;

/** What a request's tool results named, as C10 sends them: the results merged, listed or not. */
export interface MergedShown {
  /** Results sent as a block's listing, as a stub, or as their own pointer. */
  listings: number;
  stubs: number;
  /** Results without a path sent as the stub that says to repeat their call. */
  callStubs: number;
  pointers: number;
  /** Every path named, by the result it stands for (its tool call id). */
  paths: Map<string, string>;
}

const listingPattern =
  /^\[Cleared from context\] (\d+) tool results? \(.*?\), .*? stored at (\/large_tool_results\/) \+ ([A-Za-z0-9_ -]+)\./;

/**
 * Reads the tool results a request sent, in their order (C10): each block's listing names the mount
 * once, then its keys in the order of its results — its own first, then each stub below it, up to
 * the next listing, which must come only once every key of the one before has its stub. Anything
 * else is the result's own pointer (its path taken), or the result as it is.
 */
export function mergedShown(results: ReadonlyArray<{ toolCallId: string; text: string }>, stub: string): MergedShown {
  const shown: MergedShown = { listings: 0, stubs: 0, callStubs: 0, pointers: 0, paths: new Map() };
  /** The nearest listing's keys not yet matched to their result. */
  let waiting: string[] = [];
  for (const { toolCallId, text } of results) {
    const listing = listingPattern.exec(text);
    if (listing) {
      if (waiting.length > 0)
        throw new Error(`a listing before ${toolCallId} names ${waiting.length} keys no stub took`);
      waiting = listing[3]!.split(' ');
      if (waiting.length !== Number(listing[1]))
        throw new Error(`a listing names ${waiting.length} keys, says ${listing[1]}`);
      shown.listings++;
    }
    if (text === mergedCallStub) {
      shown.callStubs++;
      continue;
    }
    if (listing || text === stub) {
      const key = waiting.shift();
      if (key === undefined) throw new Error(`result ${toolCallId} is merged, but no listing above names its path`);
      shown.paths.set(toolCallId, `/large_tool_results/${key}`);
      if (!listing) shown.stubs++;
      continue;
    }
    const path = /^\[Cleared\b.*?(\/large_tool_results\/[A-Za-z0-9_-]+)/.exec(text)?.[1];
    if (path !== undefined) {
      shown.pointers++;
      shown.paths.set(toolCallId, path);
    }
  }
  if (waiting.length > 0) throw new Error(`${waiting.length} listed paths match no result: ${waiting.slice(0, 3)}`);
  return shown;
}
