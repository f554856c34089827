import { AIMessage, createAgent, fakeModel, tool } from 'langchain';
import { z } from 'zod';
import { offloadMiddleware } from '../../../adapters/langchain/index.js';
import { ToolOutputOffload } from '../../../lib/index.js';

const searchLogs = tool(
  ({ query }) => Array.from({ length: 4000 }, (_, i) => `10:${i % 60} INFO ${query} request ${i} served`).join('\n'),
  { name: 'search_logs', description: 'Searches the service logs.', schema: z.object({ query: z.string() }) },
);

// Any chat model that calls tools (ChatOpenAI, ChatAnthropic, …); a scripted one here, so this runs offline.
const model = fakeModel()
  .respondWithTools([{ name: 'search_logs', args: { query: 'checkout' } }])
  .respond((messages) => {
    const path = /\/large_tool_results\/\S+/.exec(messages.at(-1)!.text)![0];
    return new AIMessage({ content: '', tool_calls: [{ name: 'grep', args: { pattern: 'request 3999 ', path } }] });
  })
  .respond(new AIMessage('Checkout requests are served.'));

const offload = new ToolOutputOffload({ maxTotalBytes: 8 << 20 });
const agent = createAgent({ model, tools: [searchLogs], middleware: [offloadMiddleware(offload)] });
const result = await agent.invoke(
  { messages: [{ role: 'user', content: 'How is checkout doing?' }] },
  { configurable: { thread_id: 'chat-1' } },
);
const shown = result.messages[2]!.text; // what the model saw: a header and the first lines, not 150 KB
const found = result.messages[4]!.text; // grep's match, read from the stored result

export { found, offload, shown };
