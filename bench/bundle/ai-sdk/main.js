// An AI SDK app: generateText with one tool. Built twice by bench/bundle/measure.mjs, with OFFLOAD
// false (the app as it is) and true (withOffload added): the difference is what the adapter costs.
import { generateText, stepCountIs, tool } from 'ai';
import { ToolOutputOffload } from 'tool-output-offload';
import { withOffload } from 'tool-output-offload/ai-sdk';
import { z } from 'zod';

const searchLogs = tool({
  description: 'Searches the service logs.',
  inputSchema: z.object({ query: z.string() }),
  execute: async ({ query }) =>
    Array.from({ length: 4000 }, (_, i) => `10:${i % 60} INFO ${query} request ${i}`).join('\n'),
});

// A scripted model in the AI SDK's model contract (a provider's model in a real app): calls the tool, then answers.
const usage = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 0, text: 0, reasoning: 0 },
};
const model = {
  specificationVersion: 'v4',
  provider: 'scripted',
  modelId: 'scripted',
  supportedUrls: {},
  async doGenerate({ prompt }) {
    const called = prompt.some((message) => message.role === 'tool');
    const content = called
      ? [{ type: 'text', text: 'Checkout requests are served.' }]
      : [{ type: 'tool-call', toolCallId: 'call-1', toolName: 'search_logs', input: '{"query":"checkout"}' }];
    return { content, finishReason: { unified: called ? 'stop' : 'tool-calls', raw: undefined }, usage, warnings: [] };
  },
  doStream: () => Promise.reject(new Error('not streamed')),
};

const appTools = { search_logs: searchLogs };
// OFFLOAD: a constant the build defines (bench/bundle/measure.mjs)
const { tools, system } = OFFLOAD
  ? withOffload(new ToolOutputOffload(), appTools, { threadId: 'chat-1' })
  : { tools: appTools, system: '' };
const result = await generateText({
  model,
  tools,
  instructions: `You answer questions about our services.\n${system}`,
  prompt: 'How is checkout doing?',
  stopWhen: stepCountIs(5),
});
document.body.textContent = result.text;
document.title = 'done';
