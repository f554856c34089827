import type { Progress } from '../examples/shared/progress.js';
import type { Model, Tool } from '../lib/agent.js';
import type { ToolOutputOffload } from '../lib/index.js';

// What the demo's framework runtimes (AI SDK, LangChain.js) share: what they are given, and where
// they keep a thread's history — the checkpointer database, under a key of their own, since each
// framework keeps messages in its own form.

/** Where a thread's history is kept. */
export interface HistoryStore {
  load(threadId: string): Promise<unknown>;
  save(threadId: string, checkpoint: unknown): Promise<void>;
}

/** The same model, tools, store and system prompt as the built-in runtime, and where to keep threads. */
export interface FrameworkRuntimeOptions {
  model: Model;
  tools: readonly Tool[];
  offload: ToolOutputOffload;
  systemPrompt: string;
  histories: HistoryStore;
  progress: Progress;
}

/** The saved history of a thread under `key`, or none. */
export async function loadHistory<M>(store: HistoryStore, key: string): Promise<M[]> {
  const saved = await store.load(key);
  return Array.isArray(saved) ? (saved as M[]) : [];
}
