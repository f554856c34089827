import { CHAT_PORT, type PanelRequest, type ThreadUpdate, type WorkerMessage } from '../chat-protocol.js';
import type { AgentChrome, ChromePort } from '../chrome.js';

/**
 * - connected: a port to the worker is open.
 * - reconnecting: the port dropped during a run (the worker was stopped); connecting again starts
 *   a new worker, which continues the run.
 * - asleep: the port dropped with no run in progress; the worker starts again at the next request.
 *   Reconnecting at once would restart a worker Chrome just stopped for being idle, again and again.
 */
export type LinkState = 'connected' | 'reconnecting' | 'asleep';

interface ConnectionHandlers {
  onUpdate(update: ThreadUpdate): void;
  onError(message: string): void;
  onState(state: LinkState): void;
}

/** Longest wait between two reconnections while the worker fails to answer. */
const maxBackoffMs = 5000;

/** The side panel's link to the service worker: one port, opened again when it drops mid-run. */
export class ChatConnection {
  #port: ChromePort | undefined;
  #threadId: string;
  #running = false;
  /** Disconnects since the worker last answered: the wait before the next attempt doubles with each. */
  #failures = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;

  constructor(
    private readonly runtime: AgentChrome['runtime'],
    threadId: string,
    private readonly handlers: ConnectionHandlers,
  ) {
    this.#threadId = threadId;
    this.#connect();
  }

  /** Shows another thread. */
  open(threadId: string): void {
    this.#threadId = threadId;
    this.#request({ type: 'open', threadId });
  }

  send(text: string): void {
    this.#request({ type: 'send', threadId: this.#threadId, text });
  }

  continueRun(): void {
    this.#request({ type: 'continue', threadId: this.#threadId });
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#port?.disconnect();
    this.#port = undefined;
  }

  #request(request: PanelRequest): void {
    if (this.#closed) return;
    // A request wakes a sleeping worker: connecting sends 'open' first, so the answer is for this thread.
    if (!this.#port) {
      this.#connect();
      if (request.type === 'open') return;
    }
    this.#port!.postMessage(request);
  }

  #connect(): void {
    clearTimeout(this.#timer);
    const port = this.runtime.connect({ name: CHAT_PORT });
    this.#port = port;
    port.onMessage.addListener((message) => this.#receive(message as WorkerMessage));
    port.onDisconnect.addListener(() => {
      if (this.#port !== port || this.#closed) return;
      this.#port = undefined;
      if (!this.#running) {
        this.handlers.onState('asleep');
        return;
      }
      this.handlers.onState('reconnecting');
      const wait = Math.min(maxBackoffMs, 50 * 2 ** this.#failures);
      this.#failures++;
      this.#timer = setTimeout(() => this.#connect(), wait);
    });
    port.postMessage({ type: 'open', threadId: this.#threadId } satisfies PanelRequest);
  }

  #receive(message: WorkerMessage): void {
    this.#failures = 0;
    this.handlers.onState('connected');
    if (message.type === 'error') {
      this.handlers.onError(message.message);
      return;
    }
    if (message.type !== 'thread' || message.threadId !== this.#threadId) return;
    this.#running = message.run.state === 'running';
    this.handlers.onUpdate(message);
  }
}
