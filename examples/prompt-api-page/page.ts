import {
  contextBudgetFor,
  type LanguageModelFactory,
  type OffloadSession,
  offloadSession,
} from '../../adapters/prompt-api/index.js';
import { mountInspector } from '../../inspector/index.js';
import { contextLedger } from '../../lib/context.js';
import { ToolOutputOffload, type WritableOffloadStore } from '../../lib/index.js';

// A chat with Chrome's built-in model about a long report (about 60 KB, far over its window): the
// model reads it with a tool, the offload stores it and the model gets its first lines, and reads
// the rest back with read_file and grep. The inspector below shows what was stored, and the Context
// tab each prompt's tokens, estimated and as the session reported them.

/** The report the tool returns: 600 lines of figures, one region a line. */
function reportText(): string {
  const regions = ['Lisbon', 'Porto', 'Madrid', 'Lyon', 'Milan', 'Krakow'];
  return Array.from({ length: 600 }, (_, i) => {
    const region = regions[i % regions.length]!;
    return `Line ${i + 1}: ${region} store ${Math.floor(i / 6) + 1} sold ${(i * 37) % 900} units, returns ${(i * 11) % 40}.`;
  }).join('\n');
}

const readReport = {
  name: 'read_report',
  description: "Returns this quarter's sales report, one store a line.",
  inputSchema: { type: 'object', properties: {} },
  execute: async () => reportText(),
};

/**
 * Mounts the page into `root`: a question box, the answers, and the inspector. `languageModel`
 * is where sessions come from (default: the browser's LanguageModel); without one, the page says so.
 * `store`: where results are kept (default: the offload's, IndexedDB).
 */
export async function startPage(
  root: HTMLElement,
  options: { languageModel?: LanguageModelFactory; threadId?: string; store?: WritableOffloadStore } = {},
): Promise<{ ask(question: string): Promise<string>; chat: OffloadSession } | undefined> {
  const languageModel = options.languageModel ?? (globalThis as { LanguageModel?: LanguageModelFactory }).LanguageModel;
  const status = document.createElement('p');
  const log = document.createElement('ol');
  const form = document.createElement('form');
  const question = document.createElement('input');
  question.name = 'question';
  question.value = 'Which store in Porto sold the most units?';
  question.size = 60;
  const send = document.createElement('button');
  send.textContent = 'Ask';
  form.append(question, send);
  const panel = document.createElement('section');
  root.append(status, form, log, panel);

  const offload = new ToolOutputOffload({
    thresholdTokens: 1000,
    ledger: contextLedger,
    contextBudget: contextBudgetFor(9216),
    ...(options.store ? { store: options.store } : {}),
  });
  mountInspector(panel, { store: offload.store });
  if (typeof languageModel?.create !== 'function') {
    status.textContent =
      "This page needs Chrome's built-in model (the Prompt API's LanguageModel), which this browser does not have.";
    send.disabled = true;
    return undefined;
  }
  status.textContent = 'Starting a session…';
  const chat = await offloadSession(offload, {
    threadId: options.threadId ?? 'report-chat',
    tools: [readReport],
    languageModel,
    initialPrompts: [
      { role: 'system', content: 'You answer questions about the sales report. Read it with read_report.' },
    ],
    onEvent: (event) => {
      if (event.type === 'session-continued')
        status.textContent = `Continued in a new session (${event.carriedTokens} tokens carried).`;
    },
  });
  status.textContent = `Ready: a window of ${chat.session.contextWindow ?? chat.session.inputQuota} tokens.`;
  const ask = async (text: string) => {
    const item = document.createElement('li');
    item.textContent = `You: ${text}`;
    log.append(item);
    const answer = await chat.prompt(text);
    const reply = document.createElement('li');
    reply.textContent = `Model: ${answer}`; // text, never HTML: the model's words are the model's
    log.append(reply);
    return answer;
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    send.disabled = true;
    ask(question.value)
      .catch((error: unknown) => {
        status.textContent = `The prompt failed: ${String(error)}`;
      })
      .finally(() => {
        send.disabled = false;
      });
  });
  return { ask, chat };
}
