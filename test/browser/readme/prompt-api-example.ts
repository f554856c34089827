import { contextBudgetFor, offloadSession } from '../../../adapters/prompt-api/index.js';
import { contextLedger } from '../../../lib/context.js';
import { ToolOutputOffload } from '../../../lib/index.js';

const readPage = {
  name: 'read_page',
  description: 'Returns the text of the current page.',
  inputSchema: { type: 'object', properties: {} },
  execute: async () => document.body.textContent,
};
const offload = new ToolOutputOffload({
  ledger: contextLedger,
  thresholdTokens: 1000,
  contextBudget: contextBudgetFor(9216),
});
const chat = await offloadSession(offload, {
  threadId: 'page-chat',
  tools: [readPage],
  initialPrompts: [{ role: 'system', content: 'You answer questions about the page.' }],
});
const answer = await chat.prompt('What does this page say about pricing?');

export { answer, chat, offload };
