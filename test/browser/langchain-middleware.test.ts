// The LangChain.js adapter in the browser engines: createAgent with LangChain's fakeModel(), real
// tools, and offloadMiddleware; the browser build of langchain, as an app bundled by Vite gets it.
import { Command } from '@langchain/langgraph';
import { AIMessage, createMiddleware, ToolMessage, tool, toolErrorMiddleware } from 'langchain';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type OffloadEvent, offloadMiddleware } from '../../adapters/langchain/index.js';
import { MemoryOffloadStore, ToolOutputOffload } from '../../lib/index.js';
import { estimateTokens } from '../../lib/shared/text.js';
import { failingStores, unhandledRejectionsOf } from './fixtures/failing-stores.js';
import {
  ask,
  callsFrom,
  deleteOpenedStores,
  fakeModel,
  lastToolMessage,
  linesOf,
  offloadAgent,
  pathIn,
  storeKinds,
  textOf,
  thread,
  toolMessagesOf,
} from './langchain-fixtures.js';

afterEach(deleteOpenedStores);

describe('offloadMiddleware in createAgent', () => {
  it('replaces a large ToolMessage by the header and preview, and read_file reads it back', async () => {
    const model = fakeModel()
      .respondWithTools([{ name: 'emit', args: { lines: 100 }, id: 'call_emit' }])
      .respond((messages) =>
        callsFrom(messages, (m) => [
          { name: 'read_file', args: { path: pathIn(textOf(lastToolMessage(m))), offset: 98 } },
        ]),
      )
      .respond(new AIMessage('done'));
    const { agent, store } = offloadAgent(model, { store: storeKinds[1]!.open() });
    const result = await agent.invoke(ask(), thread('chat-1'));

    const [replaced, page] = toolMessagesOf(result.messages);
    expect(replaced!.tool_call_id).toBe('call_emit');
    expect(replaced!.name).toBe('emit');
    const shown = textOf(replaced!);
    expect(shown).toContain(linesOf(100).split('\n')[0]);
    expect(shown).not.toContain(linesOf(100).split('\n')[99]);
    expect(estimateTokens(shown)).toBeLessThanOrEqual(1000);
    // What the model got at its second call is the replacement, not the 8 KB text.
    expect(textOf(toolMessagesOf(model.calls[1]!.messages)[0]!)).toBe(shown);

    const [entry] = await store.list('chat-1');
    expect(entry).toMatchObject({ path: pathIn(shown), toolName: 'emit', preview: shown });
    expect(await store.read('chat-1', entry!.key)).toBe(linesOf(100));
    const lines = linesOf(100).split('\n');
    expect(page!.status).not.toBe('error');
    expect(textOf(page!)).toBe(`    99\t${lines[98]}\n   100\t${lines[99]}`);
  });

  it('appends the offload lines to the system prompt of every model call, after the app prompt', async () => {
    const model = fakeModel()
      .respondWithTools([{ name: 'emit', args: { lines: 1 } }])
      .respond(new AIMessage('done'));
    const { agent, offload } = offloadAgent(model);
    await agent.invoke(ask(), thread('chat-1'));
    expect(model.calls).toHaveLength(2);
    for (const call of model.calls) {
      const system = call.messages[0]!;
      expect(system.type).toBe('system');
      expect(system.text.startsWith('You are a test agent.')).toBe(true);
      expect(system.text).toContain(offload.systemPrompt());
    }
  });

  it('offers the four read tools to the model, with the read tools’ JSON Schemas', async () => {
    const offered: Array<{ name: string; schema: unknown }> = [];
    const recorder = createMiddleware({
      name: 'recorder',
      wrapModelCall: (request, handler) => {
        offered.push(
          ...request.tools.map((t) => ({ name: String(t.name), schema: (t as { schema?: unknown }).schema })),
        );
        return handler(request);
      },
    });
    const model = fakeModel().respond(new AIMessage('done'));
    const { agent, offload } = offloadAgent(model, { middleware: [recorder] });
    await agent.invoke(ask(), thread('chat-1'));
    expect(offered.map((t) => t.name).sort()).toEqual(['emit', 'glob', 'grep', 'ls', 'read_file']);
    for (const spec of offload.readTools('chat-1')) {
      expect(offered.find((t) => t.name === spec.name)!.schema).toEqual(spec.parameters);
    }
  });

  it('keeps two thread_ids apart: one cannot read or list the other’s stored results', async () => {
    let pathOfA = '';
    const model = fakeModel()
      .respondWithTools([{ name: 'emit', args: { lines: 100, tag: 'a' } }])
      .respond((messages) => {
        pathOfA = pathIn(textOf(lastToolMessage(messages)));
        return new AIMessage('stored');
      })
      .respond((messages) =>
        callsFrom(messages, () => [
          { name: 'read_file', args: { path: pathOfA } },
          { name: 'ls', args: { path: '/large_tool_results/' } },
        ]),
      )
      .respond(new AIMessage('done'));
    const { agent, store } = offloadAgent(model, { store: storeKinds[1]!.open() });
    await agent.invoke(ask(), thread('chat-a'));
    const other = await agent.invoke(ask(), thread('chat-b'));

    const [read, ls] = toolMessagesOf(other.messages);
    expect(read!.status).toBe('error');
    expect(textOf(read!)).toContain('not found');
    expect(textOf(ls!)).not.toContain(pathOfA.split('/').at(-1));
    expect(await store.list('chat-a')).toHaveLength(1);
    expect(await store.list('chat-b')).toEqual([]);
  });

  it('offloads the ToolMessages in a Command’s update, keeping the rest of the Command', async () => {
    const transfer = tool(
      (_args, runtime) =>
        new Command({
          update: {
            messages: [
              new ToolMessage({
                content: linesOf(100, 80, 'cmd'),
                tool_call_id: runtime.toolCall!.id!,
                name: 'transfer',
              }),
            ],
          },
        }),
      { name: 'transfer', description: 'Hands over a large report.', schema: z.object({}) },
    );
    const model = fakeModel()
      .respondWithTools([{ name: 'transfer', args: {}, id: 'call_cmd' }])
      .respond(new AIMessage('done'));
    const { agent, store } = offloadAgent(model, { tools: [transfer] });
    const result = await agent.invoke(ask(), thread('chat-1'));

    const [message] = toolMessagesOf(result.messages);
    expect(message!.tool_call_id).toBe('call_cmd');
    expect(textOf(message!)).toContain('cmd 0 ');
    expect(textOf(message!)).not.toContain('cmd 99 ');
    const [entry] = await store.list('chat-1');
    expect(entry).toMatchObject({ toolName: 'transfer', path: pathIn(textOf(message!)) });
    expect(await store.read('chat-1', entry!.key)).toBe(linesOf(100, 80, 'cmd'));
  });

  it('keeps non-text blocks after the replaced text', async () => {
    const image = { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } };
    const shot = tool(() => [{ type: 'text', text: linesOf(100) }, image], {
      name: 'shot',
      description: 'A page and its screenshot.',
      schema: z.object({}),
    });
    const model = fakeModel()
      .respondWithTools([{ name: 'shot', args: {} }])
      .respond(new AIMessage('done'));
    const { agent } = offloadAgent(model, { tools: [shot] });
    const result = await agent.invoke(ask(), thread('chat-1'));
    const [message] = toolMessagesOf(result.messages);
    const content = message!.content as Array<{ type: string; text?: string }>;
    expect(content).toHaveLength(2);
    expect(content[0]!.type).toBe('text');
    expect(pathIn(content[0]!.text!)).toMatch(/^\/large_tool_results\//);
    expect(content[1]).toEqual(image);
  });

  it('fails a run without a thread id with an error that says how to give one, storing nothing', async () => {
    const model = fakeModel()
      .respondWithTools([{ name: 'emit', args: { lines: 100 } }])
      .respond(new AIMessage('done'));
    const { agent, store } = offloadAgent(model);
    await expect(agent.invoke(ask())).rejects.toThrow(/no thread id.*configurable: \{ thread_id \}/);
    expect(await store.list()).toEqual([]);
  });

  it('takes the thread from the threadId option when given', async () => {
    const model = fakeModel()
      .respondWithTools([{ name: 'emit', args: { lines: 100 } }])
      .respond(new AIMessage('done'));
    const { agent, store } = offloadAgent(model, {
      options: { threadId: (runtime) => `user-${(runtime.context as { userId: string }).userId}` },
    });
    await agent.invoke(ask(), { context: { userId: '7' } });
    expect((await store.list()).map((entry) => entry.threadId)).toEqual(['user-7']);
  });

  it('refuses an app tool named like one of the read tools, which would shadow it', async () => {
    const grep = tool(() => 'app grep', { name: 'grep', description: 'The app’s own grep.', schema: z.object({}) });
    const model = fakeModel().respond(new AIMessage('done'));
    const { agent } = offloadAgent(model, { tools: [grep] });
    await expect(agent.invoke(ask(), thread('chat-1'))).rejects.toThrow(
      /adds the tools read_file, .*another tool named "grep": rename it/,
    );
  });

  it('says what is wrong with a bad thread id or option', async () => {
    const offload = new ToolOutputOffload({ thresholdTokens: 1000 });
    expect(() => offloadMiddleware({} as ToolOutputOffload)).toThrow(/needs a ToolOutputOffload/);
    expect(() => offloadMiddleware(offload, { threadId: 'chat-1' as never })).toThrow(/threadId must be a function/);
    expect(() => offloadMiddleware(offload, { onEvent: 'log' as never })).toThrow(/onEvent must be a function/);
    expect(() => offloadMiddleware(offload, 'chat-1' as never)).toThrow(/options must be an object/);
    expect(() => offloadMiddleware(offload, { thread_id: 'chat-1' } as never)).toThrow(TypeError);
    expect(() => offloadMiddleware(offload, { thread_id: 'chat-1' } as never)).toThrow(
      'offloadMiddleware: unknown option "thread_id"; the options are threadId, onEvent',
    );
    const model = fakeModel().respond(new AIMessage('done'));
    const { agent } = offloadAgent(model, { options: { threadId: () => '' } });
    await expect(agent.invoke(ask())).rejects.toThrow(/threadId option returned an empty string/);
  });
});

describe('offloadMiddleware events', () => {
  it('tells onEvent of each result stored, with its path; a result kept whole is no event', async () => {
    const events: OffloadEvent[] = [];
    const model = fakeModel()
      .respondWithTools([
        { name: 'emit', args: { lines: 100 }, id: 'call_big' },
        { name: 'emit', args: { lines: 3 }, id: 'call_small' },
      ])
      .respond(new AIMessage('done'));
    const { agent, store } = offloadAgent(model, { options: { onEvent: (event) => events.push(event) } });
    await agent.invoke(ask(), thread('chat-1'));
    const [entry] = await store.list('chat-1');
    expect(events).toEqual([
      { type: 'offloaded', threadId: 'chat-1', toolName: 'emit', toolCallId: 'call_big', path: entry!.path },
    ]);
  });

  it('logs a listener that throws, and the run goes on', async () => {
    const model = fakeModel()
      .respondWithTools([{ name: 'emit', args: { lines: 100 } }])
      .respond(new AIMessage('done'));
    const { agent, store } = offloadAgent(model, {
      options: {
        onEvent: () => {
          throw new Error('listener bug');
        },
      },
    });
    const result = await agent.invoke(ask(), thread('chat-1'));
    expect(result.messages.at(-1)!.text).toBe('done');
    expect(await store.list('chat-1')).toHaveLength(1);
  });
});

describe.each(failingStores)('offloadMiddleware over $name', (failing) => {
  it('the run completes: the result is cut with a note saying why, and onEvent says it could not be stored', async () => {
    const { store, cleanup } = await failing.open();
    try {
      const events: OffloadEvent[] = [];
      const model = fakeModel()
        .respondWithTools([{ name: 'emit', args: { lines: 100 }, id: 'call_emit' }])
        .respond(new AIMessage('done'));
      const { agent } = offloadAgent(model, { store, options: { onEvent: (event) => events.push(event) } });
      let result: Awaited<ReturnType<typeof agent.invoke>> | undefined;
      const unhandled = await unhandledRejectionsOf(async () => {
        result = await agent.invoke(ask(), thread('chat-1'));
      });
      expect(unhandled).toEqual([]);
      expect(result!.messages.at(-1)!.text).toBe('done');
      const shown = textOf(toolMessagesOf(result!.messages)[0]!);
      expect(shown.startsWith(linesOf(100).slice(0, 200))).toBe(true);
      expect(shown).toMatch(/It could not be stored \(/);
      expect(shown).toMatch(failing.why);
      expect(shown).not.toContain('/large_tool_results/');
      expect(estimateTokens(shown)).toBeLessThanOrEqual(1000);
      expect(events).toEqual([
        {
          type: 'offload-failed',
          threadId: 'chat-1',
          toolName: 'emit',
          toolCallId: 'call_emit',
          why: expect.stringMatching(failing.why),
        },
      ]);
    } finally {
      await cleanup();
    }
  });
});

describe('errors through offloadMiddleware', () => {
  it('answers evicted, missing and malformed reads with error ToolMessages, and the run goes on', async () => {
    let firstPath = '';
    const model = fakeModel()
      .respondWithTools([{ name: 'emit', args: { lines: 100, tag: 'old' } }])
      .respond((messages) => {
        firstPath = pathIn(textOf(lastToolMessage(messages)));
        return callsFrom(messages, () => [{ name: 'emit', args: { lines: 100, tag: 'new' } }]);
      })
      .respond((messages) =>
        callsFrom(messages, () => [
          { name: 'read_file', args: { path: firstPath } },
          { name: 'read_file', args: { path: '/large_tool_results/never-stored' } },
          { name: 'read_file', args: { path: 42, offset: -1 } },
        ]),
      )
      .respond(new AIMessage('done'));
    // Room for one result: the second evicts the first.
    const { agent } = offloadAgent(model, { maxTotalBytes: 9000 });
    const result = await agent.invoke(ask(), thread('chat-1'));
    const [evicted, missing, malformed] = toolMessagesOf(result.messages).slice(2);
    expect(evicted!.status).toBe('error');
    expect(textOf(evicted!)).toContain('evicted');
    expect(textOf(evicted!)).toContain(firstPath);
    expect(missing!.status).toBe('error');
    expect(textOf(missing!)).toContain('not found');
    expect(malformed!.status).toBe('error');
    expect(textOf(malformed!)).toMatch(/path/);
    expect(textOf(malformed!)).not.toMatch(/at .*\.js/); // the read tool's own message, not a stack trace
    expect(result.messages.at(-1)!.text).toBe('done');
  });

  it('cuts a result the store cannot take, with a note, and names no path (S3)', async () => {
    class FullStore extends MemoryOffloadStore {
      override async stage(): Promise<void> {
        throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
      }
    }
    const store = new FullStore();
    const model = fakeModel()
      .respondWithTools([{ name: 'emit', args: { lines: 100 } }])
      .respond(new AIMessage('done'));
    const { agent } = offloadAgent(model, { store });
    const result = await agent.invoke(ask(), thread('chat-1'));
    const shown = textOf(toolMessagesOf(result.messages)[0]!);
    expect(shown).toContain('could not be stored (QuotaExceededError');
    expect(shown).not.toContain('/large_tool_results/');
    expect(shown.startsWith(linesOf(100).slice(0, 200))).toBe(true);
    expect(estimateTokens(shown)).toBeLessThanOrEqual(1000);
    expect(await store.list('chat-1')).toEqual([]);
    expect(result.messages.at(-1)!.text).toBe('done');
  });

  it('passes an app tool’s thrown error through unchanged (LangChain then ends the run)', async () => {
    const failure = new RangeError('the upstream API said no');
    const failing = tool(
      () => {
        throw failure;
      },
      { name: 'failing', description: 'Always fails.', schema: z.object({}) },
    );
    const model = fakeModel()
      .respondWithTools([{ name: 'failing', args: {} }])
      .respond(new AIMessage('done'));
    const { agent } = offloadAgent(model, { tools: [failing] });
    await expect(agent.invoke(ask(), thread('chat-1'))).rejects.toBe(failure);
  });

  it('lets toolErrorMiddleware turn an app tool’s error into an error ToolMessage', async () => {
    const failing = tool(
      () => {
        throw new RangeError('the upstream API said no');
      },
      { name: 'failing', description: 'Always fails.', schema: z.object({}) },
    );
    const model = fakeModel()
      .respondWithTools([{ name: 'failing', args: {} }])
      .respond(new AIMessage('done'));
    const { agent } = offloadAgent(model, {
      tools: [failing],
      middleware: [toolErrorMiddleware({ onError: (error) => `Tool failed: ${(error as Error).message}` })],
    });
    const result = await agent.invoke(ask(), thread('chat-1'));
    const [message] = toolMessagesOf(result.messages);
    expect(message!.status).toBe('error');
    expect(textOf(message!)).toBe('Tool failed: the upstream API said no');
  });

  it('offloads a large error ToolMessage of an app tool, which stays an error (O16)', async () => {
    const big = linesOf(100, 80, 'err');
    const erring = tool(
      (_args, runtime) => new ToolMessage({ content: big, tool_call_id: runtime.toolCall!.id!, status: 'error' }),
      {
        name: 'erring',
        description: 'Returns an error result.',
        schema: z.object({}),
      },
    );
    const model = fakeModel()
      .respondWithTools([{ name: 'erring', args: {} }])
      .respond(new AIMessage('done'));
    const { agent, store } = offloadAgent(model, { tools: [erring] });
    const result = await agent.invoke(ask(), thread('chat-1'));
    const [shown] = toolMessagesOf(result.messages);
    expect(shown!.status).toBe('error');
    expect(textOf(shown!)).toContain('[Stored tool result]');
    const [entry] = await store.list('chat-1');
    expect(await store.read('chat-1', entry!.key)).toBe(big);
  });
});
