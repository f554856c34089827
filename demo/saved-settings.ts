import { type Budget, isRuntimeName, type ModelSettings, type RuntimeName } from './agent-setup.js';

// What the page remembers between loads. The API key lives in sessionStorage only: it is gone when
// the tab closes and is never written to localStorage or IndexedDB.

const prefix = 'tool-output-offload-demo:';
const keys = {
  thread: `${prefix}thread`,
  running: `${prefix}running`,
  model: `${prefix}model`,
  apiKey: `${prefix}api-key`,
  runtime: `${prefix}runtime`,
  budget: `${prefix}budget`,
};

/** The budget switch: a small model's budget only when it was switched on. */
export function loadBudget(): Budget {
  return localStorage.getItem(keys.budget) === 'small' ? 'small' : 'whole';
}

export function saveBudget(budget: Budget): void {
  localStorage.setItem(keys.budget, budget);
}

/** The runtime the page runs the agent with; built-in unless another was chosen. */
export function loadRuntime(): RuntimeName {
  const saved = localStorage.getItem(keys.runtime);
  return isRuntimeName(saved) ? saved : 'built-in';
}

export function saveRuntime(runtime: RuntimeName): void {
  localStorage.setItem(keys.runtime, runtime);
}

function newThreadId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(4));
  return `chat-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/** The current thread's id, created on first use. */
export function currentThread(): string {
  let id = localStorage.getItem(keys.thread);
  if (!id) {
    id = newThreadId();
    localStorage.setItem(keys.thread, id);
  }
  return id;
}

/** Starts a new thread and returns its id. */
export function startNewThread(): string {
  const id = newThreadId();
  localStorage.setItem(keys.thread, id);
  return id;
}

/**
 * Set while a run is in progress and cleared when it ends, so a page loaded after a reload or a
 * closed tab knows the thread's last run was interrupted and continues it with `agent.recover`.
 */
export const runMarker = {
  set: (threadId: string) => localStorage.setItem(keys.running, threadId),
  clear: () => localStorage.removeItem(keys.running),
  interrupted: (threadId: string) => localStorage.getItem(keys.running) === threadId,
};

export function loadModelSettings(): ModelSettings {
  try {
    const saved = JSON.parse(localStorage.getItem(keys.model) ?? 'null') as Partial<{
      kind: string;
      baseUrl: string;
      model: string;
    }> | null;
    if (saved?.kind === 'openai' && saved.baseUrl && saved.model) {
      return {
        kind: 'openai',
        baseUrl: saved.baseUrl,
        model: saved.model,
        apiKey: sessionStorage.getItem(keys.apiKey) ?? '',
      };
    }
  } catch {
    // A corrupt entry: fall back to the offline model.
  }
  return { kind: 'offline' };
}

export function saveModelSettings(settings: ModelSettings): void {
  if (settings.kind === 'offline') {
    localStorage.setItem(keys.model, JSON.stringify({ kind: 'offline' }));
    sessionStorage.removeItem(keys.apiKey);
    return;
  }
  const { apiKey, ...rest } = settings;
  localStorage.setItem(keys.model, JSON.stringify(rest));
  if (apiKey) sessionStorage.setItem(keys.apiKey, apiKey);
  else sessionStorage.removeItem(keys.apiKey);
}
