// What the context budget's tests share: a store that keeps the ledger and the cleared records, and
// requests built the way a way in builds them (an assistant message with its tool calls, then the results).

import { vi } from 'vitest';
import type {
  ContextMessage,
  ContextRequest,
  FittedContext,
  ToolOutputOffload,
  WritableOffloadStore,
} from '../../lib/index.js';
import { MemoryOffloadStore } from '../../lib/index.js';
import type { ClearedResult, RecordedRequest, RequestChange, RequestRecord } from '../../lib/store/offload-store.js';

/** A store with the whole contract the budget needs (the ledger and the cleared records). */
export type ContextStore = WritableOffloadStore &
  Required<Pick<WritableOffloadStore, 'cleared' | 'requests' | 'recordRequest'>>;

/**
 * MemoryOffloadStore with `recordRequest`, `cleared` and `requests` (the store branch's, in memory,
 * until it lands on main): the step numbered per thread, a toolCallId cleared before keeping its
 * first record.
 */
class LedgerMemoryStore extends MemoryOffloadStore {
  readonly #cleared = new Map<string, ClearedResult[]>();
  readonly #requests = new Map<string, RequestRecord[]>();

  async recordRequest(change: RequestChange): Promise<RecordedRequest> {
    const records = this.#requests.get(change.threadId) ?? [];
    this.#requests.set(change.threadId, records);
    const step = (records.at(-1)?.step ?? 0) + 1;
    records.push(structuredClone({ ...change.record, threadId: change.threadId, step, at: change.at }));
    const cleared = this.#cleared.get(change.threadId) ?? [];
    this.#cleared.set(change.threadId, cleared);
    for (const result of change.cleared) {
      if (cleared.some((known) => known.toolCallId === result.toolCallId)) continue;
      cleared.push({ ...result, threadId: change.threadId, step, at: change.at });
    }
    return { step, cleared: structuredClone(cleared) };
  }

  async cleared(threadId: string): Promise<ClearedResult[]> {
    return structuredClone(this.#cleared.get(threadId) ?? []);
  }

  async requests(threadId: string): Promise<RequestRecord[]> {
    return structuredClone(this.#requests.get(threadId) ?? []);
  }
}

export function contextStore(): ContextStore {
  return new LedgerMemoryStore();
}

/** The thread's ledger once it holds `count` records (writes without a clearing are not awaited by fitContext). */
export async function ledgerOf(store: ContextStore, threadId: string, count: number): Promise<RequestRecord[]> {
  return vi.waitFor(
    async () => {
      const records = await store.requests(threadId);
      if (records.length < count) throw new Error(`${records.length} of ${count} ledger records so far`);
      return records;
    },
    { timeout: 60_000, interval: 5 },
  );
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
