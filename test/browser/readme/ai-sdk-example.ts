import { generateText, stepCountIs, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { z } from 'zod';
import { withOffload } from '../../../adapters/ai-sdk/index.js';
import { ToolOutputOffload } from '../../../lib/index.js';

const searchLogs = tool({
  description: 'Searches the service logs.',
  inputSchema: z.object({ query: z.string() }),
  execute: async ({ query }) =>
    Array.from({ length: 4000 }, (_, i) => `10:${i % 60} INFO ${query} request ${i} served`).join('\n'),
});

// Any model (openai('gpt-4o-mini'), anthropic('claude-sonnet-4-5'), …); a scripted one here, so this runs offline.
const usage = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 0, text: 0, reasoning: 0 },
};
const callTool = (toolName: string, input: unknown) => ({
  content: [{ type: 'tool-call' as const, toolCallId: `call-${toolName}`, toolName, input: JSON.stringify(input) }],
  finishReason: { unified: 'tool-calls' as const, raw: undefined },
  usage,
  warnings: [],
});
const model = new MockLanguageModelV4({
  doGenerate: async ({ prompt }) => {
    const results = prompt.flatMap((m) => (m.role === 'tool' ? m.content : [])).map((part) => JSON.stringify(part));
    if (results.length === 0) return callTool('search_logs', { query: 'checkout' });
    if (results.length === 1) {
      const path = /\/large_tool_results\/[\w-]+/.exec(results[0]!)![0];
      return callTool('grep', { pattern: 'request 3999 ', path });
    }
    const text = 'Checkout requests are served.';
    return {
      content: [{ type: 'text', text }],
      finishReason: { unified: 'stop', raw: undefined },
      usage,
      warnings: [],
    };
  },
});

const offload = new ToolOutputOffload({ maxTotalBytes: 8 << 20 });
const { tools, system, prepareStep } = withOffload(
  offload,
  { search_logs: searchLogs },
  { threadId: 'chat-1', onEvent: (event) => console.log(event.type, event.threadId) },
);
const result = await generateText({
  model,
  tools,
  prepareStep,
  instructions: `You answer questions about our services.\n${system}`,
  prompt: 'How is checkout doing?',
  stopWhen: stepCountIs(5),
});
const [shown, found] = result.responseMessages
  .flatMap((m) => (m.role === 'tool' ? m.content : []))
  .map((part) => (part.type === 'tool-result' && part.output.type === 'text' ? part.output.value : ''));

// shown: what the model saw of search_logs, a header and the first lines, not 150 KB; found: grep's match.
// result.steps[0].toolResults[0].output is still the whole text, for the UI.

export { found, offload, result, shown };
