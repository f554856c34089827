// Bad input to the AI SDK UI chat's way in (A5): every option of offloadChat and offloadChatRoute
// checked, unknown names refused; hostile UI messages (huge, malformed parts) sent within the
// threshold and the store's bound, never blocking the send. Also the in-page shape:
// DirectChatTransport with a ToolLoopAgent whose tools are withOffload's.
import {
  DirectChatTransport,
  isToolUIPart,
  lastAssistantMessageIsCompleteWithToolCalls,
  ToolLoopAgent,
  type UIMessage,
} from 'ai';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type OffloadEvent, offloadChat, offloadChatRoute, withOffload } from '../../adapters/ai-sdk/index.js';
import { contextLedger } from '../../lib/context.js';
import { ToolOutputOffload, type WritableOffloadStore } from '../../lib/index.js';
import { appTools, pageText, readBackSteps, TestChat } from './fixtures/ai-sdk-chat.js';
import { pathIn, scriptedAiModel, shownText } from './fixtures/ai-sdk-model.js';
import { contextStores, deleteContextStores } from './fixtures/context-stores.js';

afterEach(deleteContextStores);
afterEach(() => {
  vi.restoreAllMocks();
});

const threshold = 1000;

describe('offloadChat and offloadChatRoute check their options', () => {
  const offload = new ToolOutputOffload({ ledger: contextLedger, thresholdTokens: threshold });
  it('refuses what is not an offload, unknown option names and options of the wrong kind, naming them', () => {
    expect(() => offloadChat({} as never, { threadId: 't' })).toThrow(/first argument must be a ToolOutputOffload/);
    expect(() => offloadChat(offload, null as never)).toThrow(/options must be an object/);
    expect(() => offloadChat(offload, { threadId: 't', threadID: 'x' } as never)).toThrow(
      /unknown option "threadID"; the options are threadId, system, tools, onEvent, prepareSendMessagesRequest/,
    );
    expect(() => offloadChat(offload, {} as never)).toThrow(/options.threadId must be a non-empty string/);
    expect(() => offloadChat(offload, { threadId: '' })).toThrow(/options.threadId must be a non-empty string/);
    expect(() => offloadChat(offload, { threadId: 't', system: 3 as never })).toThrow(
      /options.system must be a string/,
    );
    expect(() => offloadChat(offload, { threadId: 't', tools: [] as never })).toThrow(
      /options.tools must be an object/,
    );
    expect(() => offloadChat(offload, { threadId: 't', onEvent: 'x' as never })).toThrow(
      /options.onEvent must be a function/,
    );
    expect(() => offloadChat(offload, { threadId: 't', prepareSendMessagesRequest: {} as never })).toThrow(
      /options.prepareSendMessagesRequest must be a function/,
    );
    expect(() =>
      offloadChat(offload, {
        threadId: 't',
        tools: { ...appTools, read_file: offloadChatRoute(offload).tools.read_file },
      }),
    ).toThrow(/already has a tool named "read_file"/);
    expect(() => offloadChatRoute({ thresholdTokens: 1000 } as never)).toThrow(
      /offloadChatRoute: the argument must be a ToolOutputOffload/,
    );
    expect(() => offloadChatRoute(undefined as never)).toThrow(/the argument must be a ToolOutputOffload/);
  });

  it('messagesToSend refuses what is not an array; answerReadTool leaves other tools to the app', async () => {
    const chat = offloadChat(offload, { threadId: 't' });
    await expect(chat.messagesToSend('hi' as never)).rejects.toThrow(/takes the chat’s messages, an array/);
    expect(chat.answerReadTool({ toolCallId: 'c', toolName: 'read_page', input: {} }, () => {})).toBe(false);
    expect(chat.answerReadTool(undefined as never, () => {})).toBe(false);
  });
});

describe('offloadChat at the transport and in onToolCall', () => {
  it('sends the transport’s usual body, or what the app’s own hook makes of the messages to send', async () => {
    const offload = new ToolOutputOffload({ ledger: contextLedger, thresholdTokens: threshold });
    const page = pageText('hook', 100_000);
    const messages = [
      {
        id: 'a',
        role: 'assistant',
        parts: [{ type: 'tool-read_page', toolCallId: 'p', state: 'output-available', input: {}, output: page }],
      },
    ] as UIMessage[];
    const request = {
      id: 'chat-9',
      messages,
      requestMetadata: undefined,
      body: { user: 'u-1' },
      credentials: undefined,
      headers: undefined,
      api: '/api/chat',
      trigger: 'submit-message' as const,
      messageId: undefined,
    };
    const plain = await offloadChat(offload, { threadId: 'hook' }).prepareSendMessagesRequest(request);
    const sent = (plain.body as { messages: UIMessage[] }).messages;
    expect(plain.body).toEqual({
      user: 'u-1',
      id: 'chat-9',
      messages: sent,
      trigger: 'submit-message',
      messageId: undefined,
    });
    const preview = (sent[0]!.parts[0] as { output: string }).output;
    expect(pathIn(preview)).toMatch(/^\/large_tool_results\//);
    const seen: UIMessage[][] = [];
    const hooked = await offloadChat(offload, {
      threadId: 'hook',
      prepareSendMessagesRequest: ({ messages: given }) => {
        seen.push(given);
        return { body: { last: given.at(-1) }, api: '/api/other' };
      },
    }).prepareSendMessagesRequest(request);
    expect((seen[0]![0]!.parts[0] as { output: string }).output).toBe(preview);
    expect(hooked).toEqual({ body: { last: seen[0]![0] }, api: '/api/other' });
    expect((messages[0]!.parts[0] as { output: string }).output).toBe(page);
  });

  it('answers a read of a path that was never stored with the error the model gets in every runtime (O4)', async () => {
    const chat = offloadChat(new ToolOutputOffload({ ledger: contextLedger, thresholdTokens: threshold }), {
      threadId: 'reads',
    });
    const answer = await new Promise<unknown>((resolve) => {
      const handled = chat.answerReadTool(
        { toolCallId: 'r', toolName: 'read_file', input: { path: '/large_tool_results/never' } },
        resolve,
      );
      expect(handled).toBe(true);
    });
    expect(answer).toMatchObject({ tool: 'read_file', toolCallId: 'r', state: 'output-error' });
    expect((answer as { errorText: string }).errorText).toMatch(/not found/);
    const bad = await new Promise<unknown>((resolve) => {
      chat.answerReadTool({ toolCallId: 'b', toolName: 'grep', input: 'not an object' }, resolve);
    });
    expect((bad as { errorText: string }).errorText).toMatch(/Invalid arguments for tool "grep"/);
  });
});

for (const kind of contextStores) {
  describe(`hostile UI messages on ${kind.name}`, () => {
    it('huge and malformed parts go within the threshold and the bound, and the chat’s messages are unchanged', async () => {
      const store: WritableOffloadStore = kind.open();
      const maxTotalBytes = 1_000_000;
      const offload = new ToolOutputOffload({
        ledger: contextLedger,
        store,
        thresholdTokens: threshold,
        maxTotalBytes,
        contextBudget: { maxRequestTokens: 4000 },
      });
      const events: OffloadEvent[] = [];
      const chat = offloadChat(offload, { threadId: 'h', onEvent: (event) => events.push(event) });
      const huge = pageText('huge', 600_000);
      const messages = [
        { id: 'u1', role: 'user', parts: [{ type: 'text', text: pageText('typed', 200_000) }] },
        {
          id: 'a1',
          role: 'assistant',
          parts: [
            { type: 'tool-read_page', toolCallId: 'big-1', state: 'output-available', input: {}, output: huge },
            {
              type: 'tool-read_page',
              toolCallId: 'big-2',
              state: 'output-available',
              input: {},
              output: { rows: huge.split('\n') },
            },
            { type: 'tool-read_page', toolCallId: 'big-3', state: 'output-available', input: {}, output: `${huge}!` },
            { type: 'tool-read_page', toolCallId: 'err-1', state: 'output-error', input: {}, errorText: huge },
            { type: 'tool-read_file', toolCallId: 'read-1', state: 'output-available', input: {}, output: huge },
            {
              type: 'dynamic-tool',
              toolName: 42,
              toolCallId: 'dyn-1',
              state: 'output-available',
              input: {},
              output: huge,
            },
            {
              type: 'tool-read_page',
              toolCallId: { not: 'a string' },
              state: 'output-available',
              input: {},
              output: huge,
            },
            { type: 'tool-read_page', toolCallId: 'undef-1', state: 'output-available', input: {} },
            null,
            'a string part',
            { type: 'tool-read_page', toolCallId: 'pending', state: 'input-available', input: { url: 'x' } },
          ],
        },
        { id: 'a2', role: 'assistant', parts: 'not an array' },
        null,
        { id: 'r', role: 'robot', parts: [{ type: 'text', text: 'beep' }] },
      ] as unknown as UIMessage[];
      const before = structuredClone(messages);
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
      const sent = await chat.messagesToSend(messages);
      expect(warn).not.toHaveBeenCalled();
      expect(messages).toEqual(before);

      const toolParts = (sent[1]!.parts as unknown[]).filter(
        (part): part is Extract<UIMessage['parts'][number], { toolCallId: unknown }> =>
          typeof part === 'object' && part !== null && isToolUIPart(part as never),
      );
      for (const part of toolParts) {
        const value = part.state === 'output-error' ? part.errorText : part.output;
        const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
        expect(offload.measure.within(text, threshold), `${String(part.toolCallId)} within the threshold`).toBe(true);
      }
      const byId = new Map(toolParts.map((part) => [part.toolCallId, part]));
      expect(byId.get('err-1')?.state).toBe('output-error');
      expect(byId.get('pending')).toEqual(before[1]!.parts[10]);
      // The read tool's page is never stored (A4), nor is a part that names no call or tool.
      const stored = await store.list('h');
      expect(stored.length).toBeGreaterThan(0);
      for (const entry of stored) expect(entry.toolName).toBe('read_page');
      // Four outputs of 600 KB or more against a 1 MB bound: the oldest were evicted to keep it (O3).
      expect((await store.evictions('h')).length).toBeGreaterThan(0);
      expect(await store.totalBytes('h')).toBeLessThanOrEqual(maxTotalBytes);
      // The user's own 200 KB text cannot be cleared: sent over the budget, and said so (C6).
      expect(events.some((event) => event.type === 'context-over-budget')).toBe(true);
      expect(sent[2]).toBe(messages[2]);
      expect(sent[3]).toBeNull();
    });

    it('a message the route could not convert (a file part with no URL) is sent unfitted, its outputs offloaded', async () => {
      const store = kind.open();
      const offload = new ToolOutputOffload({
        ledger: contextLedger,
        store,
        thresholdTokens: threshold,
        contextBudget: { maxRequestTokens: 4000 },
      });
      const chat = offloadChat(offload, { threadId: 'f' });
      const page = pageText('f', 100_000);
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
      const sent = await chat.messagesToSend([
        { id: 'u', role: 'user', parts: [{ type: 'file', mediaType: 'text/plain', url: 'not a url' }] },
        {
          id: 'a',
          role: 'assistant',
          parts: [{ type: 'tool-read_page', toolCallId: 'p', state: 'output-available', input: {}, output: page }],
        },
      ] as UIMessage[]);
      expect(warn).toHaveBeenCalledWith(
        'offloadChat: the messages could not be measured; sent unfitted',
        expect.any(TypeError),
      );
      const part = sent[1]!.parts[0] as { output: string };
      expect(pathIn(part.output)).toMatch(/^\/large_tool_results\//);
      expect(await store.requests!('f')).toEqual([]);
    });
  });
}

describe('DirectChatTransport with an in-page ToolLoopAgent: withOffload is the way in', () => {
  for (const kind of contextStores) {
    it(`a client tool's 300 KB output reaches the model as its preview and reads back in the page (${kind.name})`, async () => {
      const store = kind.open();
      const offload = new ToolOutputOffload({ ledger: contextLedger, store, thresholdTokens: threshold });
      const page = pageText('direct', 300_000);
      let readBack = '';
      const model = scriptedAiModel([
        { toolCalls: [{ id: 'page-1', name: 'read_page', input: { url: 'docs' } }] },
        ...readBackSteps('page-1', 'read-1', 41, (read) => {
          readBack = read;
        }),
      ]);
      const offloaded = withOffload(offload, appTools, { threadId: 'direct' });
      const agent = new ToolLoopAgent({
        model,
        instructions: offloaded.system,
        tools: offloaded.tools,
        prepareStep: offloaded.prepareStep,
      });
      let pending = 0;
      const chat: TestChat = new TestChat({
        id: 'direct',
        transport: new DirectChatTransport({ agent }) as unknown as ConstructorParameters<
          typeof TestChat
        >[0]['transport'],
        sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithToolCalls,
        onToolCall({ toolCall }) {
          pending++;
          void Promise.resolve(
            chat.addToolOutput({ tool: 'read_page', toolCallId: toolCall.toolCallId, output: page }),
          ).finally(() => pending--);
        },
      });
      await chat.sendMessage({ text: 'Line 42 of docs?' });
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        if (pending === 0 && chat.status === 'ready' && !lastAssistantMessageIsCompleteWithToolCalls(chat)) break;
        if (chat.status === 'error') throw chat.error;
      }
      const shown = shownText(model.prompts[1]!, 'page-1');
      expect(shown.length).toBeLessThan(page.length / 20);
      expect(readBack).toContain(page.split('\n')[41]);
      const own = chat.messages[1]!.parts.find((part) => isToolUIPart(part) && part.toolCallId === 'page-1');
      expect(own && 'output' in own ? own.output : undefined).toBe(page);
    });
  }
});
