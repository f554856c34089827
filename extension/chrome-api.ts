/**
 * The few `chrome.*` APIs the extension uses, typed here (no @types/chrome dependency). Each part
 * of the extension takes them as an argument, so tests can hand it a fake.
 */

export interface ChromeEvent<Args extends unknown[]> {
  addListener(listener: (...args: Args) => void): void;
  removeListener(listener: (...args: Args) => void): void;
}

/** Who opened a port, as Chrome reports it. */
export interface MessageSender {
  id?: string;
  url?: string;
  frameId?: number;
  tab?: { id?: number };
}

export interface ChromePort {
  readonly name: string;
  readonly sender?: MessageSender;
  postMessage(message: unknown): void;
  disconnect(): void;
  readonly onMessage: ChromeEvent<[message: unknown, port: ChromePort]>;
  readonly onDisconnect: ChromeEvent<[port: ChromePort]>;
}

export interface RuntimeApi {
  readonly id: string;
  /** Set while an onDisconnect listener runs when the port failed (e.g. no receiving end). */
  readonly lastError?: { message?: string };
  connect(info: { name: string }): ChromePort;
  readonly onConnect: ChromeEvent<[port: ChromePort]>;
}

export interface TabsApi {
  connect(tabId: number, info: { name: string; frameId?: number }): ChromePort;
}

interface DevtoolsApi {
  inspectedWindow: { tabId: number };
  panels: { create(title: string, iconPath: string, pagePath: string, callback?: (panel: unknown) => void): void };
}

export interface ChromeApi {
  runtime: RuntimeApi;
  tabs?: TabsApi;
  devtools?: DevtoolsApi;
}

/** The global `chrome`, or an error saying this code runs outside an extension. */
export function chromeApi(where: string): ChromeApi {
  const api = (globalThis as { chrome?: Partial<ChromeApi> }).chrome;
  if (!api?.runtime?.id) throw new Error(`${where}: chrome.runtime is missing; this runs only inside the extension`);
  return api as ChromeApi;
}
