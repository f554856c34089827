import type { Message, RunResult } from '../../lib/agent.js';

// What the side panel and the service worker say to each other over a chrome.runtime port.

/** The port's name: the worker answers only ports of this name, from the extension's own pages. */
export const CHAT_PORT = 'extension-agent-chat';

/** Longest message the panel may send (characters). */
export const maxInputChars = 20_000;

export type PanelRequest =
  /** Show this thread: the worker answers with a ThreadUpdate now and after every change. */
  | { type: 'open'; threadId: string }
  | { type: 'send'; threadId: string; text: string }
  /** Continue the thread's unfinished run (one that failed, or stalled after repeated worker deaths). */
  | { type: 'continue'; threadId: string };

export type RunView =
  | { state: 'idle' }
  /** `recovered`: this worker continued a run that an earlier (stopped) worker had started. */
  | { state: 'running'; tools: string[]; recovered: boolean }
  | { state: 'ended'; status: RunResult['status']; reason: string }
  /** The worker was stopped during this run more often than it retries; "Continue" tries again. */
  | { state: 'stalled'; reason: string };

export interface ThreadUpdate {
  type: 'thread';
  threadId: string;
  /** A random id per worker start: the panel shows it, so a restart can be seen. */
  workerId: string;
  messages: Message[];
  run: RunView;
}

interface ErrorNotice {
  type: 'error';
  message: string;
}

export type WorkerMessage = ThreadUpdate | ErrorNotice;

const threadIdPattern = /^[A-Za-z0-9_-]{1,64}$/;

/** A request from the panel, checked; anything else throws an Error naming what was wrong. */
export function parseRequest(value: unknown): PanelRequest {
  if (typeof value !== 'object' || value === null) throw new Error('a request must be an object');
  const { type, threadId, text } = value as Record<string, unknown>;
  if (type !== 'open' && type !== 'send' && type !== 'continue') {
    throw new Error(`unknown request type ${JSON.stringify(type)}`);
  }
  if (typeof threadId !== 'string' || !threadIdPattern.test(threadId)) {
    throw new Error('threadId must be 1 to 64 characters of A-Z, a-z, 0-9, _ and -');
  }
  if (type !== 'send') return { type, threadId };
  if (typeof text !== 'string' || text.trim() === '') throw new Error('send needs a non-empty text');
  if (text.length > maxInputChars) throw new Error(`a message may have at most ${maxInputChars} characters`);
  return { type, threadId, text };
}

/** A new thread id. */
export function newThreadId(): string {
  return `chat-${crypto.randomUUID().slice(0, 8)}`;
}
