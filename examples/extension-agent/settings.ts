import type { ModelSettings } from '../shared/model-choice.js';
import type { AgentChrome } from './chrome.js';

// Where the extension keeps its settings. The API key goes to chrome.storage.session only: it is
// held in memory, gone when the browser closes, and never written to disk.

/** The offload database and the checkpoints (the worker writes them, the side panel reads them), and the worker's bound. */
export const storeName = 'extension-agent-results';
export const checkpointsName = 'extension-agent-threads';
export const maxTotalBytes = 16 * 1024 * 1024;

const keys = { model: 'model', apiKey: 'apiKey', thread: 'thread' };

export async function loadModelSettings(chrome: Pick<AgentChrome, 'storage'>): Promise<ModelSettings> {
  const saved = (await chrome.storage.local.get(keys.model))[keys.model] as
    | Partial<Record<string, unknown>>
    | undefined;
  if (saved?.kind === 'openai' && typeof saved.baseUrl === 'string' && typeof saved.model === 'string') {
    const apiKey = (await chrome.storage.session.get(keys.apiKey))[keys.apiKey];
    return {
      kind: 'openai',
      baseUrl: saved.baseUrl,
      model: saved.model,
      apiKey: typeof apiKey === 'string' ? apiKey : '',
    };
  }
  return { kind: 'offline' };
}

export async function saveModelSettings(chrome: Pick<AgentChrome, 'storage'>, settings: ModelSettings): Promise<void> {
  if (settings.kind === 'offline') {
    await chrome.storage.local.set({ [keys.model]: { kind: 'offline' } });
    await chrome.storage.session.remove(keys.apiKey);
    return;
  }
  const { apiKey, ...rest } = settings;
  await chrome.storage.local.set({ [keys.model]: rest });
  if (apiKey) await chrome.storage.session.set({ [keys.apiKey]: apiKey });
  else await chrome.storage.session.remove(keys.apiKey);
}

/** The side panel's current thread, kept so a reopened panel shows the same conversation. */
export async function savedThread(chrome: Pick<AgentChrome, 'storage'>): Promise<string | undefined> {
  const id = (await chrome.storage.local.get(keys.thread))[keys.thread];
  return typeof id === 'string' ? id : undefined;
}

export function saveThread(chrome: Pick<AgentChrome, 'storage'>, threadId: string): Promise<void> {
  return chrome.storage.local.set({ [keys.thread]: threadId });
}
