import type { Message, Model, ModelReply, ModelRequest, ToolCall } from '../../lib/agent.js';
import { ToolOutputOffload } from '../../lib/index.js';
import { streamReply } from '../../lib/testing.js';

// The pieces of an offline scripted model, shared by the demo and the extension agent. Such a model
// is a pure function of the request it gets (like a real model), so a reload, a restarted service
// worker or `agent.recover` continues a turn exactly where it stopped.

type ToolMessage = Extract<Message, { role: 'tool' }>;

/** Waits like a network call would, and stops when the run is aborted. */
export function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

/** A message's text parts, joined. */
export const textOf = (message: Message) =>
  message.content
    .filter((p) => p.type === 'text')
    .map((p) => p.text)
    .join('\n');

/** The stored path named in an offloaded result's header, if the result was offloaded. */
export function storedPath(message: ToolMessage | undefined): string | undefined {
  if (!message) return undefined;
  const escaped = ToolOutputOffload.mount.replace(/[/]/g, '\\/');
  return new RegExp(`^Path: (${escaped}[A-Za-z0-9_-]+)$`, 'm').exec(textOf(message))?.[1];
}

/** Tool calls with ids call_1, call_2, … in the order given (the model makes them unique in the thread). */
export function calls(...list: Array<[string, Record<string, unknown>]>): ToolCall[] {
  return list.map(([name, args], i) => ({ id: `call_${i + 1}`, name, args }));
}

/**
 * The script's ids (call_1, call_2, … in every step) made unique in the thread, as a provider's
 * are: the store knows a result cleared from the context by its call id (C4), so an id used again
 * in a later step would find an earlier result's record. Derived from the user message and the
 * step, not random: the model stays a pure function of its request (a recovered turn replays it).
 */
function uniqueInThread(toolCalls: readonly ToolCall[], userTurns: number, step: number): ToolCall[] {
  return toolCalls.map((call) => ({ ...call, id: `${call.id}_m${userTurns}s${step}` }));
}

/** What happened in this turn so far: its tool results, by tool name. */
export class Turn {
  readonly step: number;
  readonly results: ToolMessage[];
  constructor(readonly messages: readonly Message[]) {
    this.step = messages.filter((m) => m.role === 'assistant').length;
    this.results = messages.filter((m): m is ToolMessage => m.role === 'tool');
  }
  first(toolName: string): ToolMessage | undefined {
    return this.results.find((m) => m.toolName === toolName);
  }
  last(toolName: string): ToolMessage | undefined {
    return this.results.filter((m) => m.toolName === toolName).at(-1);
  }
  get offloaded(): number {
    return this.results.filter((m) => storedPath(m) !== undefined).length;
  }
}

/** What the script is told: the turn so far, the user's message, and how many user messages the thread has. */
export interface ScriptInput {
  turn: Turn;
  question: string;
  userTurns: number;
}

/**
 * A model that "thinks" for `thinkingMs`, then replies with what `script` says for the turn it is
 * shown: whole, or streamed in small deltas (`stream`), as a streaming provider would.
 */
export function offlineScriptedModel(
  script: (input: ScriptInput) => ModelReply,
  thinkingMs: number,
  stream?: { chunkChars: number; delayMs: number },
): Model {
  const reply = async (request: ModelRequest, signal: AbortSignal): Promise<ModelReply> => {
    await delay(thinkingMs, signal);
    let lastUser = request.messages.length - 1;
    while (lastUser >= 0 && request.messages[lastUser]!.role !== 'user') lastUser--;
    if (lastUser === -1) return { content: 'Send me a message to start.' };
    const turn = new Turn(request.messages.slice(lastUser + 1));
    const userTurns = request.messages.filter((m) => m.role === 'user').length;
    const scripted = script({ turn, question: textOf(request.messages[lastUser]!), userTurns });
    return scripted.toolCalls
      ? { ...scripted, toolCalls: uniqueInThread(scripted.toolCalls, userTurns, turn.step) }
      : scripted;
  };
  return async (request, { signal }) => {
    const whole = await reply(request, signal);
    return stream ? streamReply(whole, stream, signal) : whole;
  };
}
