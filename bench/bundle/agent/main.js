// The built-in agent: createAgent with an app tool and fileTools over a CompositeBackend that mounts
// the offload's backend, and the ToolOutputOffload in its middleware (the README's first example,
// without the inspector). While the entry tool-output-offload/agent is missing, measure.mjs resolves
// it to the main entry, which exports these names today.
import { ToolOutputOffload } from 'tool-output-offload';
import { CompositeBackend, createAgent, fileTools, MemoryBackend, tool } from 'tool-output-offload/agent';

const searchLogs = tool({
  name: 'search_logs',
  description: 'Search the server logs; returns every matching line.',
  parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
  execute: ({ query }) => Array.from({ length: 5000 }, (_, i) => `12:00 ${query} in request ${i}`).join('\n'),
});

// A scripted model (openAICompatibleModel(…) in a real app): calls the tool, then answers.
const model = async ({ messages }) =>
  messages.at(-1).role === 'user'
    ? { content: '', toolCalls: [{ id: 'call_1', name: 'search_logs', args: { query: 'timeout' } }] }
    : { content: 'Found the timeouts.' };

const offload = new ToolOutputOffload();
const files = new MemoryBackend();
const agent = createAgent({
  model,
  tools: [
    searchLogs,
    ...fileTools((ctx) => new CompositeBackend(files, { [ToolOutputOffload.mount]: offload.backend(ctx.threadId) })),
  ],
  middleware: [offload],
});
const result = await agent.run('Find the timeouts in the logs', { threadId: 'chat-1' });
document.body.textContent = `${result.status}`;
document.title = 'done';
