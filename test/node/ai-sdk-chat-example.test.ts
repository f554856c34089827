// The AI SDK UI chat example's route (examples/ai-sdk-chat/route.ts) in Node, as its server runs
// it, with the page's offloadChat in front of it (a memory store: Node has no IndexedDB): the
// route's model asks for the page, is sent the preview, reads a page of it back through read_file
// (answered by the page's read tool) and answers with those lines.
import { DefaultChatTransport, readUIMessageStream, type UIMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { offloadChat } from '../../adapters/ai-sdk/index.js';
import { offloadOptions, pageTools, routeSystem } from '../../examples/ai-sdk-chat/chat-setup.js';
import { POST } from '../../examples/ai-sdk-chat/route.js';
import { ToolOutputOffload } from '../../lib/index.js';

/** One request through DefaultChatTransport (the page's offload at its boundary) to the route: the assistant message it streams back. */
async function ask(chat: ReturnType<typeof offloadChat>, messages: UIMessage[]): Promise<UIMessage> {
  const transport = new DefaultChatTransport({
    api: '/api/chat',
    fetch: async (_url, init) => POST(new Request('http://127.0.0.1/api/chat', init)),
    prepareSendMessagesRequest: chat.prepareSendMessagesRequest,
  });
  const stream = await transport.sendMessages({
    chatId: 'example',
    messages,
    trigger: 'submit-message',
    messageId: undefined,
    abortSignal: undefined,
  });
  let last: UIMessage | undefined;
  for await (const message of readUIMessageStream({ stream })) last = message;
  if (!last) throw new Error('the route streamed no message');
  return last;
}

describe('the AI SDK UI chat example', () => {
  it('its route reads the article back through the page’s read_file, sent only its preview', async () => {
    const offload = new ToolOutputOffload(offloadOptions);
    const chat = offloadChat(offload, { threadId: 'example', system: routeSystem, tools: pageTools });
    const article = Array.from({ length: 4000 }, (_, i) => `Line ${i + 1}: paragraph ${i + 1} of the article.`).join(
      '\n',
    );
    const messages: UIMessage[] = [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Around line 1000?' }] }];

    const first = await ask(chat, messages);
    const call = first.parts.find((part) => part.type === 'tool-read_page') as { toolCallId: string } | undefined;
    expect(call).toBeDefined();
    messages.push({
      ...first,
      parts: first.parts.map((part) =>
        part.type === 'tool-read_page' ? { ...part, state: 'output-available', output: article } : part,
      ) as UIMessage['parts'],
    });

    const sent = await chat.messagesToSend(messages);
    expect(JSON.stringify(sent).length).toBeLessThan(article.length / 10);
    const second = await ask(chat, messages);
    const read = second.parts.find((part) => part.type === 'tool-read_file') as
      | { toolCallId: string; input: { path: string } }
      | undefined;
    expect(read?.input.path).toMatch(/^\/large_tool_results\//);
    const answer = await new Promise<{ output?: string }>((resolve) => {
      expect(
        chat.answerReadTool(
          { toolCallId: read!.toolCallId, toolName: 'read_file', input: read!.input },
          resolve as never,
        ),
      ).toBe(true);
    });
    messages.push({
      ...second,
      parts: second.parts.map((part) =>
        part.type === 'tool-read_file' ? { ...part, state: 'output-available', output: answer.output } : part,
      ) as UIMessage['parts'],
    });

    const third = await ask(chat, messages);
    const text = third.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
    expect(text).toContain('Line 1001: paragraph 1001 of the article.');
    expect(text).toContain('Line 1005: paragraph 1005');
  });
});
