// A tool's LangGraph Command through offloadMiddleware: every shape LangGraph's messages reducer
// takes in `update.messages` (an array, one message, a message-like object, the serialized form),
// also in the [channel, value] tuple form of an update.
import { Command } from '@langchain/langgraph';
import { AIMessage, type BaseMessage, ToolMessage, tool } from 'langchain';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ask,
  deleteOpenedStores,
  fakeModel,
  linesOf,
  offloadAgent,
  pathIn,
  storeKinds,
  textOf,
  thread,
  toolMessagesOf,
} from './langchain-fixtures.js';

afterEach(deleteOpenedStores);

/** About 8 KB: over the 1000-token threshold of `offloadAgent`. */
const report = linesOf(100, 80, 'cmd');

type Shape = { name: string; messages: (toolCallId: string) => unknown; tuple?: boolean };

const shapes: Shape[] = [
  {
    name: 'an array of one ToolMessage',
    messages: (id) => [new ToolMessage({ content: report, tool_call_id: id, name: 'transfer' })],
  },
  {
    name: 'one ToolMessage',
    messages: (id) => new ToolMessage({ content: report, tool_call_id: id, name: 'transfer' }),
  },
  { name: "a { role: 'tool' } object", messages: (id) => ({ role: 'tool', content: report, tool_call_id: id }) },
  { name: "a { type: 'tool' } object", messages: (id) => ({ type: 'tool', content: report, tool_call_id: id }) },
  {
    name: 'an array of message-like objects',
    messages: (id) => [{ role: 'tool', content: [{ type: 'text', text: report }], tool_call_id: id, name: 'transfer' }],
  },
  {
    name: 'a serialized ToolMessage',
    messages: (id) => new ToolMessage({ content: report, tool_call_id: id, name: 'transfer' }).toJSON(),
  },
  {
    name: 'one ToolMessage in the [channel, value] tuple form',
    messages: (id) => new ToolMessage({ content: report, tool_call_id: id, name: 'transfer' }),
    tuple: true,
  },
];

describe.each(storeKinds)('a Command’s messages through offloadMiddleware on $name', (kind) => {
  it.each(shapes)('$name: stored, and the model and the state get the header', async (shape) => {
    const transfer = tool(
      (_args, runtime) => {
        const messages = shape.messages(runtime.toolCall!.id!);
        return new Command({ update: shape.tuple ? [['messages', messages]] : { messages } });
      },
      { name: 'transfer', description: 'Hands over a large report.', schema: z.object({}) },
    );
    let seenByModel: BaseMessage[] = [];
    const model = fakeModel()
      .respondWithTools([{ name: 'transfer', args: {}, id: 'call_cmd' }])
      .respond((messages) => {
        seenByModel = messages;
        return new AIMessage('done');
      });
    const { agent, store } = offloadAgent(model, { tools: [transfer], store: kind.open() });
    const result = await agent.invoke(ask(), thread('chat-1'));

    const [entry] = await store.list('chat-1');
    expect(entry).toMatchObject({ toolName: 'transfer' });
    expect(await store.read('chat-1', entry!.key)).toBe(report);
    for (const messages of [seenByModel, result.messages]) {
      const [message] = toolMessagesOf(messages);
      expect(message!.tool_call_id).toBe('call_cmd');
      expect(textOf(message!)).toContain('[Stored tool result]');
      expect(pathIn(textOf(message!))).toBe(entry!.path);
      expect(textOf(message!)).not.toContain('cmd 99 ');
    }
    expect(result.messages.at(-1)!.text).toBe('done');
  });
});

describe('a Command that carries no large tool result', () => {
  it('is passed on as it is when its tool message is small', async () => {
    const small = tool(
      (_args, runtime) =>
        new Command({
          update: { messages: { role: 'tool', content: 'fine', tool_call_id: runtime.toolCall!.id! } },
        }),
      { name: 'small', description: 'Hands over a short note.', schema: z.object({}) },
    );
    const model = fakeModel()
      .respondWithTools([{ name: 'small', args: {}, id: 'call_small' }])
      .respond(new AIMessage('done'));
    const { agent, store } = offloadAgent(model, { tools: [small] });
    const result = await agent.invoke(ask(), thread('chat-1'));
    expect(textOf(toolMessagesOf(result.messages)[0]!)).toBe('fine');
    expect(await store.list('chat-1')).toEqual([]);
  });
});
