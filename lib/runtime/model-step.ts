import { isRecord, quoteForMessage } from '../shared/checks.js';
import { toContent } from '../shared/content.js';
import { errorMessage } from '../shared/errors.js';
import { randomId } from '../shared/ids.js';
import { callHook, RunFailure } from './failure.js';
import type { AssistantMessage, ToolCall } from './messages.js';
import type { Middleware } from './middleware.js';
import type { ModelReply, ModelRequest, ModelStreamPart } from './model.js';
import { checkedUsage, isModelStream, modelReply, replyShape } from './model-stream.js';
import { buildSystemPrompt } from './prompt.js';
import type { Session } from './session.js';
import { checkWrites } from './state.js';

/**
 * One model step: the system prompt collected now (R3), then the wrapModelCall chain around the
 * model, first middleware outermost (R1). Each layer's `update` is taken off its reply, checked
 * against its writes (R7) and applied as that layer returns, so the innermost update commits first.
 */
export async function modelStep(session: Session): Promise<AssistantMessage> {
  const { setup, signal } = session;
  session.turn!.step += 1;
  session.modelSteps += 1;
  const messages = [...session.messages];
  const contextOf = (m: Middleware) => session.hookContext(m.name, messages);
  const systemPrompt = await buildSystemPrompt(
    setup.systemPrompt,
    setup.middleware,
    contextOf,
    signal,
    setup.maxPromptSectionTokens,
  );
  const request: ModelRequest = { systemPrompt, messages: [...messages], tools: setup.specs };
  // A foreign write stays fatal even if an outer middleware catches what its `next` threw.
  const violations: Error[] = [];
  const wrappers = setup.middleware.filter((m) => m.wrapModelCall);

  const callModel = async (req: ModelRequest): Promise<ModelReply> => {
    const started = Date.now();
    const { threadId, turn } = session;
    const step = turn!.step;
    const onStream = setup.onStream;
    let streamed = false;
    const onPart = (part: ModelStreamPart) => {
      streamed = true;
      onStream?.({ threadId, turnId: turn!.turnId, step, part });
    };
    let reply: ModelReply;
    try {
      reply = await modelReply(setup.model, req, { signal, onPart });
    } catch (e) {
      if (signal.aborted) throw e;
      throw new RunFailure(`the model call failed: ${errorMessage(e)}`);
    }
    // Usage is the provider's word: the middleware that reads it (the ledger) sees only counts it can trust.
    if (isRecord(reply) && 'usage' in reply) {
      const usage = checkedUsage(reply.usage);
      const { usage: _given, ...rest } = reply;
      reply = usage === undefined ? rest : { ...rest, usage };
    }
    const toolCalls = Array.isArray(reply?.toolCalls) ? reply.toolCalls.length : 0;
    const details = { step, messages: req.messages?.length, toolCalls, streamed, ms: Date.now() - started };
    session.events.runtime({ type: 'model-call', ...details });
    return reply;
  };
  const layer = async (i: number, req: ModelRequest): Promise<ModelReply> => {
    const m: Middleware | undefined = wrappers[i];
    if (!m) return callModel(req);
    const reply = await callHook(
      `wrapModelCall of middleware "${m.name}"`,
      () => m.wrapModelCall!(req, (r) => layer(i + 1, r), contextOf(m)),
      signal,
    );
    if (typeof reply !== 'object' || reply === null) {
      throw new RunFailure(`wrapModelCall of middleware "${m.name}" returned ${typeof reply}; expected a model reply`);
    }
    const { update, ...rest } = reply;
    try {
      checkWrites(m, update, 'wrapModelCall');
      if (update) await session.applyState(update);
    } catch (e) {
      violations.push(e as Error);
      throw e;
    }
    return rest;
  };

  let reply: ModelReply;
  try {
    reply = await layer(0, request);
  } catch (e) {
    throw violations[0] ?? e;
  }
  if (violations[0]) throw violations[0];
  return assistantMessage(reply);
}

/** The reply as a message; a malformed reply fails the run with what was wrong. */
function assistantMessage(reply: ModelReply): AssistantMessage {
  if (typeof reply !== 'object' || reply === null || Array.isArray(reply) || !('content' in reply)) {
    throw new RunFailure(`invalid model reply: expected ${replyShape}, got ${describeReply(reply)}`);
  }
  let content: AssistantMessage['content'];
  try {
    content = toContent(reply.content, 'model reply content');
  } catch (e) {
    throw new RunFailure(`invalid model reply: ${errorMessage(e)}`);
  }
  const calls = reply.toolCalls ?? [];
  if (!Array.isArray(calls)) throw new RunFailure('invalid model reply: toolCalls is not an array');
  calls.forEach(checkCall);
  return {
    role: 'assistant',
    id: randomId(),
    content,
    toolCalls: calls.map((c) => ({ id: c.id, name: c.name, args: c.args })),
  };
}

function checkCall(call: ToolCall, i: number): void {
  if (typeof call !== 'object' || call === null || typeof call.id !== 'string' || typeof call.name !== 'string') {
    throw new RunFailure(`invalid model reply: toolCalls[${i}] needs a string id and name`);
  }
}

/** What arrived instead of a reply, short: its type and a quote of it. */
function describeReply(value: unknown): string {
  if (typeof value === 'string') return `a string ${quoteForMessage(value)}`;
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return `an array ${quoteForMessage(value)}`;
  if (isModelStream(value)) return 'a stream (a middleware must return the assembled reply)';
  if (typeof value === 'object') return `an object without content: ${quoteForMessage(value)}`;
  return `${typeof value} ${quoteForMessage(value)}`;
}
