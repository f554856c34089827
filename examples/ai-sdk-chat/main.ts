// The page: the AI SDK's own chat (AbstractChat, which useChat's Chat is) over DefaultChatTransport
// to /api/chat, with the offload at the transport's boundary (prepareSendMessagesRequest) and the
// read tools answered in onToolCall. The chat's messages are kept in localStorage, so a reload
// continues the chat: the same outputs go to the route as the same previews (A1).
import {
  AbstractChat,
  type ChatInit,
  type ChatState,
  DefaultChatTransport,
  isToolUIPart,
  lastAssistantMessageIsCompleteWithToolCalls,
  type UIMessage,
} from 'ai';
import { offloadChat } from '../../adapters/ai-sdk/index.js';
import { contextLedger } from '../../lib/context.js';
import { ToolOutputOffload } from '../../lib/index.js';
import { offloadOptions, pageTools, routeSystem } from './chat-setup.js';

const threadId = 'ai-sdk-chat-example';
const savedKey = `${threadId}:messages`;

/** The article the client tool reads: about 300 KB of numbered lines. */
function article(): string {
  const lines: string[] = [];
  for (let i = 1; lines.join('\n').length < 300_000 && i < 5000; i++) {
    lines.push(`Line ${i}: paragraph ${i} of the article, about the history of the number ${i * 7}.`);
  }
  return lines.join('\n');
}

/** A chat state that renders on every change, as a framework's reactive state would. */
function renderingState(messages: UIMessage[], render: (messages: UIMessage[]) => void): ChatState<UIMessage> {
  return {
    status: 'ready',
    error: undefined,
    messages,
    pushMessage(message) {
      this.messages = [...this.messages, message];
      render(this.messages);
    },
    popMessage() {
      this.messages = this.messages.slice(0, -1);
      render(this.messages);
    },
    replaceMessage(index, message) {
      this.messages = this.messages.map((old, i) => (i === index ? message : old));
      render(this.messages);
    },
    snapshot: (thing) => structuredClone(thing),
  };
}

class PageChat extends AbstractChat<UIMessage> {
  constructor(init: ChatInit<UIMessage>, render: (messages: UIMessage[]) => void) {
    super({ ...init, state: renderingState(init.messages ?? [], render) });
  }
}

const list = document.querySelector('#messages') as HTMLElement;
const sentLine = document.querySelector('#sent') as HTMLElement;

function render(messages: UIMessage[]): void {
  list.replaceChildren(
    ...messages.map((message) => {
      const row = document.createElement('div');
      row.textContent = `${message.role}: ${message.parts
        .map((part) => {
          if (part.type === 'text') return part.text;
          if (!isToolUIPart(part)) return '';
          const output = part.state === 'output-available' ? String(part.output) : '';
          return `\n[${part.type.slice('tool-'.length)} ${part.state}${output ? `: ${output.length} characters kept whole in the chat` : ''}]\n`;
        })
        .join('')}`;
      return row;
    }),
  );
}

// With the context ledger: each request the chat sends is measured and recorded.
const offload = new ToolOutputOffload({ ...offloadOptions, ledger: contextLedger });
const chatOffload = offloadChat(offload, {
  threadId,
  system: routeSystem,
  tools: pageTools,
  onEvent: (event) => console.info('offload', event),
  // The app's own hook sees the messages to send; here it only shows their size.
  prepareSendMessagesRequest: ({ body, id, messages, trigger, messageId }) => {
    sentLine.textContent = `Last request: ${JSON.stringify(messages).length} characters of messages sent to the route.`;
    return { body: { ...body, id, messages, trigger, messageId } };
  },
});

const saved = localStorage.getItem(savedKey);
const chat: PageChat = new PageChat(
  {
    id: threadId,
    messages: saved ? (JSON.parse(saved) as UIMessage[]) : [],
    transport: new DefaultChatTransport({
      api: '/api/chat',
      prepareSendMessagesRequest: chatOffload.prepareSendMessagesRequest,
    }),
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithToolCalls,
    onToolCall({ toolCall }) {
      if (chatOffload.answerReadTool(toolCall, chat.addToolOutput)) return;
      if (toolCall.toolName === 'read_page') {
        void chat.addToolOutput({ tool: 'read_page', toolCallId: toolCall.toolCallId, output: article() });
      }
    },
    onFinish: ({ messages }) => localStorage.setItem(savedKey, JSON.stringify(messages)),
  },
  render,
);
render(chat.messages);

document.querySelector('#ask')?.addEventListener('submit', (event) => {
  event.preventDefault();
  const input = document.querySelector('#question') as HTMLInputElement;
  void chat.sendMessage({ text: input.value });
});
document.querySelector('#clear')?.addEventListener('click', async () => {
  localStorage.removeItem(savedKey);
  await offload.store.clearThread?.(threadId);
  location.reload();
});
