/**
 * The `chrome.*` APIs the extension agent uses, typed here (no @types/chrome dependency). The
 * worker and the side panel take them as arguments, so each part says what it needs.
 */
import type { ChromeEvent, ChromePort } from '../../extension/chrome-api.js';

export type { ChromePort };

export interface TabInfo {
  id?: number;
  windowId?: number;
  url?: string;
  title?: string;
  active?: boolean;
  /** When the tab was last made active (Chrome 121+). */
  lastAccessed?: number;
  /** 'loading' until the page's load event, then 'complete'. */
  status?: string;
}

export interface StorageArea {
  get(keys: string | string[] | null): Promise<Record<string, unknown>>;
  set(items: Record<string, unknown>): Promise<void>;
  remove(keys: string | string[]): Promise<void>;
}

export interface AgentChrome {
  runtime: {
    readonly id: string;
    connect(info: { name: string }): ChromePort;
    readonly onConnect: ChromeEvent<[port: ChromePort]>;
    readonly onStartup: ChromeEvent<[]>;
  };
  tabs: {
    query(info: { active?: boolean; lastFocusedWindow?: boolean }): Promise<TabInfo[]>;
    get(tabId: number): Promise<TabInfo>;
    readonly onUpdated: ChromeEvent<[tabId: number, change: { status?: string }, tab: TabInfo]>;
  };
  scripting: {
    executeScript<Args extends unknown[], Result>(injection: {
      target: { tabId: number };
      func: (...args: Args) => Result | Promise<Result>;
      args: Args;
    }): Promise<Array<{ result?: Result }>>;
  };
  storage: { local: StorageArea; session: StorageArea };
  sidePanel?: { setPanelBehavior(behavior: { openPanelOnActionClick: boolean }): Promise<void> };
}

/** The global `chrome`, or an error saying this code runs outside the extension. */
export function agentChrome(where: string): AgentChrome {
  const api = (globalThis as { chrome?: Partial<AgentChrome> }).chrome;
  if (!api?.runtime?.id || !api.storage) {
    throw new Error(`${where}: chrome.runtime is missing; this runs only inside the extension agent`);
  }
  return api as AgentChrome;
}
