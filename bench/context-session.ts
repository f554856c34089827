import { expect } from 'vitest';
import {
  CompositeBackend,
  createAgent,
  fileTools,
  MemoryBackend,
  type Message,
  type ModelReply,
  type ModelRequest,
  tool,
} from '../lib/agent.js';
import { estimateTokens, ToolOutputOffload } from '../lib/index.js';

/**
 * The context session the context benches run: 100 scripted model steps whose tools return
 * results under and over the threshold (60 pages of 100–415 KB, 20 small records of 1–6 KB), with
 * read-backs of stored results, and a last step that answers.
 */
export const STEPS = 100;
export const threadId = 'context-savings';

type StepKind = 'page' | 'record' | 'read' | 'answer';
/** Every fifth step reads a stored result back, every fifth (offset) fetches a small record; the last answers. */
export function kindOf(step: number): StepKind {
  if (step === STEPS) return 'answer';
  if (step % 5 === 1 && step > 1) return 'read';
  if (step % 5 === 3) return 'record';
  return 'page';
}
export const pageChars = (step: number) => 100_000 + ((step * 7919) % 10) * 35_000;
const recordChars = (step: number) => 1000 + ((step * 104_729) % 6) * 1000;

/** Numbered lines of 100 characters, `chars` long (only the size matters here). */
const textFor = (step: number, chars: number) => {
  const line = (i: number) => `step ${step} line ${i} `.padEnd(99, 'lorem ipsum dolor sit amet ');
  const lines = Array.from({ length: Math.ceil(chars / 100) }, (_, i) => line(i));
  return `${lines.join('\n')}\n`.slice(0, chars);
};

/** A record's text: by default numbered lines; `records` makes it another text of the step's size. */
export type RecordText = (step: number, chars: number) => string;

function sessionTools(records: RecordText) {
  const fetchPage = tool<{ step: number }>({
    name: 'fetch_page',
    description: 'Fetch a page (here: a large generated text per step).',
    parameters: { type: 'object', properties: { step: { type: 'integer' } }, required: ['step'] },
    execute: ({ step }) => textFor(step, pageChars(step)),
  });
  const fetchRecord = tool<{ step: number }>({
    name: 'fetch_record',
    description: 'Fetch one record (here: a small generated text per step).',
    parameters: { type: 'object', properties: { step: { type: 'integer' } }, required: ['step'] },
    execute: ({ step }) => records(step, recordChars(step)),
  });
  return [fetchPage, fetchRecord];
}

/** The texts of a request as the budget measures them (C1), in order: system prompt, tool specs, each message's texts and tool call arguments. */
export function requestTexts(request: ModelRequest): string[] {
  const texts = [request.systemPrompt];
  for (const spec of request.tools) {
    texts.push(JSON.stringify({ name: spec.name, description: spec.description, parameters: spec.parameters }));
  }
  for (const message of request.messages) {
    for (const part of message.content) if (part.type === 'text') texts.push(part.text);
    if (message.role === 'assistant') for (const call of message.toolCalls) texts.push(JSON.stringify(call.args));
  }
  return texts;
}

/** The request as the budget measures it (C1): each part estimated on its own, summed. */
export function requestTokens(request: ModelRequest, estimate: (text: string) => number = estimateTokens): number {
  return requestTexts(request).reduce((sum, text) => sum + estimate(text), 0);
}

function lastStoredPath(messages: readonly Message[]): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role !== 'tool') continue;
    const text = message.content.map((p) => (p.type === 'text' ? p.text : '')).join('\n');
    const path = /^Path: (\/large_tool_results\/\S+)$/m.exec(text)?.[1];
    if (path) return path;
  }
  return undefined;
}

/** What one run saw: each request's tokens, and the request itself (system prompt and messages) to compare prefixes. */
export interface Seen {
  perStep: number[];
  requests: string[][];
}

/** How a run is made besides its offload. */
export interface SessionOptions {
  /** How the bench counts a request's tokens (default: as the offload's default estimator does). */
  estimate?: (text: string) => number;
  /** What the model reports each request cost (its reply's usage). */
  usage?: (request: ModelRequest) => ModelReply['usage'];
  /** The text of each small record (default: numbered lines). */
  records?: RecordText;
}

/** The scripted session: step n of the model's 100 is decided by how many it has made (a pure function of the request). */
function sessionModel(seen: Seen, options: SessionOptions) {
  return async (request: ModelRequest): Promise<ModelReply> => {
    seen.perStep.push(requestTokens(request, options.estimate));
    seen.requests.push([request.systemPrompt, ...request.messages.map((message) => JSON.stringify(message))]);
    const usage = options.usage === undefined ? {} : { usage: options.usage(request) };
    const step = request.messages.filter((m) => m.role === 'assistant').length + 1;
    const id = `call_${step}`;
    switch (kindOf(step)) {
      case 'answer':
        return { content: 'Done.', ...usage };
      case 'read': {
        // With the offload: a page of the newest stored result. Without it the text is already in the context: a small note.
        const path = lastStoredPath(request.messages) ?? '/notes.txt';
        return {
          content: '',
          toolCalls: [{ id, name: 'read_file', args: { path, offset: 500, limit: 10 } }],
          ...usage,
        };
      }
      case 'record':
        return { content: '', toolCalls: [{ id, name: 'fetch_record', args: { step } }], ...usage };
      case 'page':
        return { content: '', toolCalls: [{ id, name: 'fetch_page', args: { step } }], ...usage };
    }
  };
}

/** The share of consecutive requests whose earlier request (system prompt and messages) is an exact prefix of the later one. */
export function prefixStableShare(requests: readonly string[][]): number {
  let stable = 0;
  for (let i = 1; i < requests.length; i++) {
    const [before, after] = [requests[i - 1]!, requests[i]!];
    if (before.length <= after.length && before.every((part, j) => part === after[j])) stable++;
  }
  return stable / Math.max(1, requests.length - 1);
}

/** Runs the session through the built-in agent, with `offload` (or none). */
export async function runSession(
  offload: ToolOutputOffload | undefined,
  options: SessionOptions = {},
): Promise<Seen & { messages: Message[] }> {
  const seen: Seen = { perStep: [], requests: [] };
  const notes = new MemoryBackend({ '/notes.txt': `${'a short note\n'.repeat(600)}` });
  const backend = offload
    ? (context: { threadId: string }) =>
        new CompositeBackend(notes, { [ToolOutputOffload.mount]: offload.backend(context.threadId) })
    : notes;
  const middleware = offload ? [offload] : [];
  const agent = createAgent({
    model: sessionModel(seen, options),
    tools: [...sessionTools(options.records ?? textFor), ...fileTools(backend)],
    middleware,
    systemPrompt: 'You are a research agent. Fetch what you need and read it back when needed.',
    maxSteps: STEPS,
  });
  const result = await agent.run('Research the pages, one per step.', { threadId });
  expect(result.status).toBe('completed');
  expect(seen.perStep).toHaveLength(STEPS);
  return { ...seen, messages: result.messages };
}

export function round(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}
