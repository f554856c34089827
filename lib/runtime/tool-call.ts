import { quoteForMessage } from '../shared/checks.js';
import { errorMessage } from '../shared/errors.js';
import type { EventSource } from './events.js';
import { callHook, RunAborted, RunFailure, untilAborted } from './failure.js';
import type { ToolCallRequest } from './middleware.js';
import { isToolOutcome, type ToolOutcome, toOutcome } from './outcome.js';
import type { Session } from './session.js';
import { changedKeys, checkWrites } from './state.js';
import type { CallRecord } from './thread-checkpoint.js';
import type { ToolContext } from './tool.js';
import { argumentError } from './validate.js';

/**
 * Runs one tool call to its outcome. An unknown tool or arguments that fail the schema become an
 * error without reaching wrapToolCall (R5); otherwise the wrapToolCall chain (first middleware
 * outermost, R1, R4) runs around `execute`, the whole chain raced against toolTimeoutMs.
 * Throws RunFailure for a foreign write (R7) or an exception in a middleware hook.
 */
export async function runToolCall(session: Session, record: CallRecord): Promise<ToolOutcome> {
  const { setup, signal } = session;
  const { call } = record;
  const tool = setup.tools.get(call.name);
  if (!tool) {
    const available = [...setup.tools.keys()].map((n) => `"${n}"`).join(', ') || 'none';
    return { type: 'error', message: `Unknown tool "${call.name}". Available tools: ${available}.` };
  }
  const invalid = argumentError(tool, call.args);
  if (invalid) return { type: 'error', message: invalid };

  const controller = new AbortController();
  const onRunAbort = () => controller.abort(signal.reason);
  signal.addEventListener('abort', onRunAbort, { once: true });
  const state = session.state;
  const turnId = session.turn!.turnId;
  // One context per middleware layer and one for the tool, so each one's events name their emitter.
  const contextFor = (source: EventSource): ToolContext => ({
    threadId: session.threadId,
    turnId,
    idempotencyKey: record.idempotencyKey,
    approved: record.approved,
    signal: controller.signal,
    get state() {
      return state.values;
    },
    emit: session.events.emitter(source),
  });
  // Violations stay fatal even if an outer middleware catches what its `next` threw.
  const violations: Error[] = [];
  const wrappers = setup.middleware.filter((m) => m.wrapToolCall);

  const execute = async (req: ToolCallRequest): Promise<ToolOutcome> => {
    let outcome: ToolOutcome;
    try {
      outcome = toOutcome(await req.tool.execute(req.call.args, contextFor({ tool: req.tool.name })), req.tool.name);
    } catch (e) {
      return { type: 'error', message: errorMessage(e) };
    }
    const written = outcome.type === 'success' || outcome.type === 'error' ? Object.keys(outcome.update ?? {}) : [];
    if (written.length > 0) {
      const failure = new RunFailure(
        `tool "${req.tool.name}" wrote state key "${written[0]}"; only middleware may write state`,
      );
      violations.push(failure);
      throw failure;
    }
    return outcome;
  };
  const layer = async (i: number, req: ToolCallRequest): Promise<ToolOutcome> => {
    const m = wrappers[i];
    if (!m) return execute(req);
    // Every outcome `next` gave this layer: a retry may return any of them, not only the last.
    const inner: ToolOutcome[] = [];
    const next = async (r: ToolCallRequest) => {
      const outcome = await layer(i + 1, r);
      inner.push(outcome);
      return outcome;
    };
    const where = `wrapToolCall of middleware "${m.name}"`;
    const context = contextFor({ middleware: m.name });
    const returned: unknown = await callHook(where, () => m.wrapToolCall!(req, next, context), signal);
    if (!isToolOutcome(returned)) {
      throw new RunFailure(`${where} returned ${quoteForMessage(returned)}; expected a ToolOutcome`);
    }
    const outcome = toOutcome(returned, call.name);
    if (outcome.type === 'success' || outcome.type === 'error') {
      const passed = inner.flatMap((o) => ((o.type === 'success' || o.type === 'error') && o.update ? [o.update] : []));
      try {
        checkWrites(m, outcome.update, 'wrapToolCall', changedKeys(passed, outcome.update));
      } catch (e) {
        violations.push(e as Error);
        throw e;
      }
    }
    return outcome;
  };

  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<ToolOutcome>((resolve) => {
    timer = setTimeout(() => {
      const message = `Tool "${call.name}" timed out after ${setup.toolTimeoutMs} ms`;
      controller.abort(new Error(message));
      resolve({ type: 'error', message });
    }, setup.toolTimeoutMs);
  });
  try {
    const request: ToolCallRequest = { call, idempotencyKey: record.idempotencyKey, tool };
    const outcome = await untilAborted(Promise.race([layer(0, request), timeout]), signal);
    if (violations[0]) throw violations[0];
    return outcome;
  } catch (e) {
    if (signal.aborted) throw new RunAborted();
    throw violations[0] ?? e;
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onRunAbort);
  }
}
