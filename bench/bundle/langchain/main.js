// A LangChain.js app: createAgent with one tool. Built twice by bench/bundle/measure.mjs, with OFFLOAD
// false (the app as it is) and true (offloadMiddleware added): the difference is what the adapter costs.
import { AIMessage, createAgent, fakeModel, tool } from 'langchain';
import { ToolOutputOffload } from 'tool-output-offload';
import { offloadMiddleware } from 'tool-output-offload/langchain';
import { z } from 'zod';

const searchLogs = tool(
  ({ query }) => Array.from({ length: 4000 }, (_, i) => `10:${i % 60} INFO ${query} request ${i}`).join('\n'),
  { name: 'search_logs', description: 'Searches the service logs.', schema: z.object({ query: z.string() }) },
);

// A scripted model (ChatOpenAI, ChatAnthropic, … in a real app): calls the tool, then answers.
const model = fakeModel()
  .respondWithTools([{ name: 'search_logs', args: { query: 'checkout' } }])
  .respond(new AIMessage('Checkout requests are served.'));

// OFFLOAD: a constant the build defines (bench/bundle/measure.mjs)
const middleware = OFFLOAD ? [offloadMiddleware(new ToolOutputOffload())] : [];
const agent = createAgent({ model, tools: [searchLogs], middleware });
const result = await agent.invoke(
  { messages: [{ role: 'user', content: 'How is checkout doing?' }] },
  { configurable: { thread_id: 'chat-1' } },
);
document.body.textContent = result.messages.at(-1).text;
document.title = 'done';
