import { type Tool, ToolOutcome } from '../lib/agent.js';

/**
 * Runs one of the demo's package tools outside this package's agent loop (for the other runtimes):
 * its text, and whether it is an error outcome.
 */
export async function runPackageTool(
  packageTool: Tool,
  input: unknown,
  signal: AbortSignal = new AbortController().signal,
): Promise<{ text: string; isError: boolean }> {
  const result = await packageTool.execute(input, {
    threadId: '',
    turnId: '',
    idempotencyKey: '',
    approved: false,
    signal,
    state: {},
    emit: () => {},
  });
  if (typeof result === 'string') return { text: result, isError: false };
  const outcome = Array.isArray(result) ? ToolOutcome.success(result) : result;
  if (outcome.type !== 'success')
    return { text: outcome.type === 'error' ? outcome.message : outcome.reason, isError: true };
  return { text: outcome.content.map((p) => (p.type === 'text' ? p.text : '')).join('\n'), isError: false };
}
