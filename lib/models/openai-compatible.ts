import type { Message, ToolCall } from '../runtime/messages.js';
import type { ModelOutput, ModelReply, ModelRequest, ToolSpec } from '../runtime/model.js';
import { checkOptionNames } from '../shared/checks.js';
import { type ContentPart, isTextPart, joinText } from '../shared/content.js';
import { errorMessage } from '../shared/errors.js';
import { cutToChars } from '../shared/text.js';
import { openAIStreamParts, parseArgs, usageOf } from './openai-stream.js';

/** The options of `openAICompatibleModel(options)`. */
export interface OpenAICompatibleModelOptions {
  /** The API root, e.g. 'https://api.openai.com/v1'; requests go to `${baseUrl}/chat/completions`. */
  baseUrl: string;
  /** The model name sent with each request, e.g. 'gpt-4o-mini'. */
  model: string;
  /** Sent as `Authorization: Bearer <apiKey>` when given. */
  apiKey?: string;
  /**
   * The fetch the requests go through.
   * @default globalThis.fetch
   */
  fetch?: typeof fetch;
  /** Extra request headers (they override the defaults). */
  headers?: Record<string, string>;
  /**
   * Stream the reply (server-sent events, with `stream_options.include_usage`): text deltas as they
   * arrive, tool calls assembled from their deltas.
   * @default false
   */
  stream?: boolean;
}

type WireContent = string | Array<{ type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } }>;
interface WireToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}
type WireMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: WireContent }
  | { role: 'assistant'; content: string | null; tool_calls?: WireToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

/** A model that always answers with a promise (of a whole reply, or of a stream when `stream` is on). */
type PromisedModel = (request: ModelRequest, options: { signal: AbortSignal }) => Promise<ModelOutput>;

const who = 'openAICompatibleModel';
/** How much of a reply body an error message quotes. */
const excerptChars = 300;

/**
 * A Model for any endpoint that speaks the OpenAI Chat Completions API (OpenAI, Azure-style proxies,
 * Ollama, LM Studio, vLLM, OpenRouter …), over fetch; with `stream: true` it streams. Every failure throws an
 * Error naming what was wrong (HTTP status and body, a reply that is not JSON, no choices, a tool
 * call without a name); the runtime turns it into a failed run and keeps the thread as it was.
 */
export function openAICompatibleModel(options: OpenAICompatibleModelOptions): PromisedModel {
  const { url, model, headers, fetchImpl, stream } = resolve(options);
  return async (request: ModelRequest, { signal }: { signal: AbortSignal }): Promise<ModelOutput> => {
    const body = JSON.stringify({
      model,
      messages: toWireMessages(request),
      ...(request.tools.length > 0 ? { tools: request.tools.map(toWireTool) } : {}),
      ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
    });
    let response: Response;
    try {
      response = await fetchImpl(url, { method: 'POST', headers, body, signal });
    } catch (error) {
      if (signal.aborted) throw error;
      // fetch says little (e.g. "Failed to fetch" for a CORS refusal); name the URL so the cause can be found.
      throw new Error(
        `${who}: could not reach ${url}: ${errorMessage(error)} (is the server up, and does it allow CORS?)`,
      );
    }
    const type = response.headers.get('content-type') ?? '';
    if (stream && response.ok && response.body && type.includes('text/event-stream')) {
      return openAIStreamParts(response.body, who, excerpt);
    }
    // A server that ignores `stream` answers whole: read as such.
    const text = await response.text();
    if (!response.ok) {
      const status = `${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
      const hint = response.status === 401 || response.status === 403 ? ' (check the API key)' : '';
      throw new Error(`${who}: ${url} answered HTTP ${status}${hint}: ${excerpt(text)}`);
    }
    let reply: unknown;
    try {
      reply = JSON.parse(text);
    } catch {
      throw new Error(`${who}: ${url} answered with a body that is not JSON: ${excerpt(text)}`);
    }
    return fromWireReply(reply, text);
  };
}

function resolve(options: OpenAICompatibleModelOptions) {
  if (typeof options !== 'object' || options === null) throw new TypeError(`${who}: options must be an object`);
  checkOptionNames(who, options, ['baseUrl', 'model', 'apiKey', 'fetch', 'headers', 'stream']);
  const { baseUrl, model, apiKey } = options;
  if (typeof baseUrl !== 'string' || baseUrl.trim() === '') {
    throw new TypeError(`${who}: baseUrl must be a non-empty string, e.g. 'https://api.openai.com/v1'`);
  }
  if (typeof model !== 'string' || model.trim() === '') throw new TypeError(`${who}: model must be a non-empty string`);
  if (apiKey !== undefined && typeof apiKey !== 'string') throw new TypeError(`${who}: apiKey must be a string`);
  if (options.stream !== undefined && typeof options.stream !== 'boolean') {
    throw new TypeError(`${who}: stream must be true or false`);
  }
  const fetchImpl = options.fetch ?? globalThis.fetch?.bind(globalThis);
  if (typeof fetchImpl !== 'function') throw new TypeError(`${who}: no fetch here; pass options.fetch`);
  let url: string;
  try {
    // A relative baseUrl ('/api/v1', e.g. a proxy on the page's own origin) resolves against the page.
    url = new URL(`${baseUrl.trim().replace(/\/+$/, '')}/chat/completions`, globalThis.location?.href).href;
  } catch {
    throw new TypeError(`${who}: baseUrl is not a URL: ${JSON.stringify(baseUrl)}`);
  }
  const stream = options.stream === true;
  const accept = stream ? 'text/event-stream, application/json' : 'application/json';
  const headers: Record<string, string> = { 'content-type': 'application/json', accept };
  if (apiKey) headers.authorization = `Bearer ${apiKey}`;
  return { url, model: model.trim(), headers: { ...headers, ...options.headers }, fetchImpl, stream };
}

function toWireTool(spec: ToolSpec) {
  return {
    type: 'function',
    function: { name: spec.name, description: spec.description, parameters: spec.parameters },
  };
}

/** The request's messages in the Chat Completions shape, the system prompt first. */
function toWireMessages(request: Pick<ModelRequest, 'systemPrompt' | 'messages'>): WireMessage[] {
  const wire: WireMessage[] = request.systemPrompt ? [{ role: 'system', content: request.systemPrompt }] : [];
  // Images in tool results cannot go in a 'tool' message: they follow the step's tool messages as a user message.
  let pendingImages: ContentPart[] = [];
  const flushImages = () => {
    if (pendingImages.length === 0) return;
    wire.push({
      role: 'user',
      content: userContent([{ type: 'text', text: 'Images from the tool results above:' }, ...pendingImages]),
    });
    pendingImages = [];
  };
  for (const message of request.messages) {
    if (message.role !== 'tool') flushImages();
    wire.push(toWireMessage(message));
    if (message.role === 'tool') pendingImages.push(...message.content.filter((p) => p.type === 'image'));
  }
  flushImages();
  return wire;
}

function toWireMessage(message: Message): WireMessage {
  switch (message.role) {
    case 'user':
      return { role: 'user', content: userContent(message.content) };
    case 'assistant': {
      const text = textWithNotes(message.content, false);
      return message.toolCalls.length > 0
        ? { role: 'assistant', content: text || null, tool_calls: message.toolCalls.map(toWireCall) }
        : { role: 'assistant', content: text };
    }
    case 'tool': {
      const text = textWithNotes(message.content, true);
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.isError ? `Error: ${text}` : text };
    }
  }
}

function toWireCall(call: ToolCall): WireToolCall {
  return { id: call.id, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.args ?? {}) } };
}

/** Text and images as parts; audio and files as a note, which this API cannot take in a user message. */
function userContent(content: readonly ContentPart[]): WireContent {
  if (content.every(isTextPart)) return joinText(content);
  return content.map((part) =>
    part.type === 'image'
      ? { type: 'image_url' as const, image_url: { url: `data:${part.mimeType};base64,${part.data}` } }
      : { type: 'text' as const, text: isTextPart(part) ? part.text : mediaNote(part, 'not sent: unsupported here') },
  );
}

/** The text parts, with a note in place of each media part (images in tool results are sent after them). */
function textWithNotes(content: readonly ContentPart[], imagesFollow: boolean): string {
  return content
    .map((part) => {
      if (isTextPart(part)) return part.text;
      return mediaNote(part, imagesFollow && part.type === 'image' ? 'sent in the next message' : 'not sent');
    })
    .join('\n');
}

function mediaNote(part: Exclude<ContentPart, { type: 'text' }>, what: string): string {
  return `[${part.type}${part.name ? ` ${part.name}` : ''} (${part.mimeType}): ${what}]`;
}

/** `choices[0].message` as a ModelReply, tool call arguments parsed; anything unexpected throws naming it. */
function fromWireReply(reply: unknown, raw = JSON.stringify(reply)): ModelReply {
  const message = (reply as { choices?: Array<{ message?: unknown }> } | null)?.choices?.[0]?.message;
  if (typeof message !== 'object' || message === null) {
    const error = (reply as { error?: { message?: unknown } } | null)?.error?.message;
    const why = typeof error === 'string' ? `the reply is an error: ${error}` : `the reply has no choices[0].message`;
    throw new Error(`${who}: ${why}: ${excerpt(raw)}`);
  }
  const { content, refusal, tool_calls } = message as { content?: unknown; refusal?: unknown; tool_calls?: unknown };
  const text = replyText(content) || (typeof refusal === 'string' ? refusal : '');
  const usage = usageOf((reply as { usage?: unknown }).usage);
  const reported = usage === undefined ? {} : { usage };
  if (tool_calls === undefined || tool_calls === null) return { content: text, ...reported };
  if (!Array.isArray(tool_calls)) throw new Error(`${who}: choices[0].message.tool_calls is not an array`);
  return { content: text, toolCalls: tool_calls.map(fromWireCall), ...reported };
}

function replyText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (content === undefined || content === null) return '';
  // Some servers answer with content parts rather than a string.
  if (Array.isArray(content)) {
    return content.map((p) => (typeof p?.text === 'string' ? p.text : '')).join('');
  }
  throw new Error(`${who}: choices[0].message.content is neither a string nor null (${typeof content})`);
}

function fromWireCall(call: unknown, index: number): ToolCall {
  const fn = (call as { function?: { name?: unknown; arguments?: unknown } } | null)?.function;
  const name = fn?.name;
  if (typeof name !== 'string' || name === '') {
    throw new Error(`${who}: tool_calls[${index}] has no function name: ${excerpt(JSON.stringify(call))}`);
  }
  const id = (call as { id?: unknown }).id;
  return { id: typeof id === 'string' && id !== '' ? id : `call_${index}`, name, args: parseArgs(fn?.arguments) };
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat === '') return '(empty body)';
  return flat.length > excerptChars ? `${cutToChars(flat, excerptChars)}… (${flat.length} characters)` : flat;
}
