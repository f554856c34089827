import { describe, expect, it } from 'vitest';
import { createAgent } from '../../lib/agent/create-agent.js';
import { ToolOutputOffload } from '../../lib/offload/tool-output-offload.js';
import { joinText } from '../../lib/shared/content.js';
import { MemoryOffloadStore } from '../../lib/store/memory-store.js';
import { scriptedModel } from '../../lib/testing.js';
import { callTool, middlewareOf, textOf } from './offload-fixtures.js';
import { calls, emitTool, offloadAgent, reply, toolMessagesOf } from './offload-harness.js';

const big = 'row of a large result\n'.repeat(2000);

/** The system prompt of an agent with `tools`, and the header of one large result in it: what the model is sent and shown. */
async function turnWith(tools: string[]): Promise<{ system: string; header: string }> {
  const offload = new ToolOutputOffload({ thresholdTokens: 1000, store: new MemoryOffloadStore() });
  const middleware = middlewareOf(offload, tools);
  const header = textOf(await callTool(middleware, big));
  return { system: `You are helpful.\n\n${middleware.systemPrompt()}`, header };
}

describe('headers and the system prompt name only the read tools the model has', () => {
  it('both read_file and grep', async () => {
    const { system, header } = await turnWith(['fetch_page', 'read_file', 'grep', 'ls']);
    expect(header).toContain('To read more: read_file {"path":"/large_tool_results/key-1"');
    expect(header).toContain('To search: grep');
    expect(system).toContain(
      'Read more of one with read_file (path, offset and limit in lines, from 0) or search it with grep',
    );
  });

  it('read_file alone', async () => {
    const { system, header } = await turnWith(['fetch_page', 'read_file']);
    expect(header).toContain('To read more: read_file');
    expect(header).not.toContain('grep');
    expect(system).toContain('Read more of one with read_file');
    expect(system).not.toContain('grep');
  });

  it('grep alone', async () => {
    const { system, header } = await turnWith(['grep']);
    expect(header).toContain('To search: grep {"pattern":"<regex>","path":"/large_tool_results/key-1"}');
    expect(header).not.toContain('read_file');
    expect(system).toContain('Search one with grep');
    expect(system).not.toContain('read_file');
  });

  it('none: says the model cannot read it back, and the result is still stored for the app', async () => {
    const { system, header } = await turnWith(['fetch_page']);
    expect(header).toContain('You have no tool to read it: it is kept for the app and its inspector');
    expect(header).not.toMatch(/read_file|grep/);
    expect(system).toContain('You have no tool to read them back');
    expect(system).not.toMatch(/read_file|grep/);
    expect(system.startsWith('You are helpful.')).toBe(true);
  });

  it('offloadResult names the readTools it is given (default: all)', async () => {
    const offload = new ToolOutputOffload({ thresholdTokens: 1000, store: new MemoryOffloadStore() });
    const all = await offload.offloadResult({ threadId: 't', callId: 'c1', toolName: 'fetch', content: big });
    expect(all.text).toContain('To read more: read_file');
    expect(all.text).toContain('To search: grep');
    const none = await offload.offloadResult({
      threadId: 't',
      callId: 'c2',
      toolName: 'fetch',
      content: big,
      readTools: [],
    });
    expect(none.stored).toBe(true);
    expect(none.text).toContain('You have no tool to read it');
    expect(none.text).not.toMatch(/read_file|grep/);
    await expect(
      offload.offloadResult({
        threadId: 't',
        callId: 'c3',
        toolName: 'fetch',
        content: big,
        readTools: 'grep' as never,
      }),
    ).rejects.toThrow(/offloadResult: readTools must be an array of tool names/);
    expect(offload.systemPrompt({ readTools: [] })).toContain('You have no tool to read them back');
  });

  it('in a run: an agent without file tools is told so, one with them is told to use them', async () => {
    const offload = new ToolOutputOffload({ thresholdTokens: 1000, store: new MemoryOffloadStore() });
    const bare = scriptedModel([calls(['emit', { lines: 300 }]), reply()]);
    const agent = createAgent({ model: bare, tools: [emitTool], middleware: [offload] });
    await agent.run('go', { threadId: 'a' });
    const [stored] = toolMessagesOf(await agent.messages('a'));
    expect(joinText(stored!.content)).toContain('You have no tool to read it');
    expect(joinText(stored!.content)).not.toMatch(/read_file|grep/);
    expect((await offload.store.list('a')).length).toBe(1);
    expect(bare.requests[1]!.systemPrompt).toContain('You have no tool to read them back');

    const model = scriptedModel([calls(['emit', { lines: 300 }]), reply()]);
    const withFiles = offloadAgent(model);
    await withFiles.agent.run('go', { threadId: 'a' });
    const [shown] = toolMessagesOf(await withFiles.agent.messages('a'));
    expect(joinText(shown!.content)).toContain('To read more: read_file');
    expect(joinText(shown!.content)).toContain('To search: grep');
    expect(model.requests[1]!.systemPrompt).toContain('Read more of one with read_file');
  });
});
