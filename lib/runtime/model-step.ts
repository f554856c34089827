import { callHook, errorMessage, RunFailure, untilAborted } from './failure.js';
import { randomId } from './ids.js';
import { type AssistantMessage, type ToolCall, toContent } from './messages.js';
import type { Middleware } from './middleware.js';
import type { ModelReply, ModelRequest } from './model.js';
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
    let reply: ModelReply;
    try {
      reply = await untilAborted(setup.model(req, { signal }), signal);
    } catch (e) {
      if (signal.aborted) throw e;
      throw new RunFailure(`the model call failed: ${errorMessage(e)}`);
    }
    const toolCalls = Array.isArray(reply?.toolCalls) ? reply.toolCalls.length : 0;
    const details = { step: session.turn!.step, messages: req.messages?.length, toolCalls, ms: Date.now() - started };
    session.events.runtime('model-call', details);
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
