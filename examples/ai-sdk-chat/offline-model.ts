// A scripted stand-in for the route's model (the AI SDK's own MockLanguageModelV4), so the example
// runs with no key: asked about the article, it calls read_page; shown a stored result's preview,
// it reads a page of it back with read_file (the page answers); shown that page, it answers.
import { MockLanguageModelV4, simulateReadableStream } from 'ai/test';

type CallOptions = Parameters<MockLanguageModelV4['doStream']>[0];
type Prompt = CallOptions['prompt'];

const usage = {
  inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: undefined, text: undefined, reasoning: undefined },
};

/** The last tool result of the prompt, as text, if the prompt ends with one. */
function lastResult(prompt: Prompt): { toolName: string; text: string } | undefined {
  const last = prompt.at(-1);
  if (last?.role !== 'tool') return undefined;
  const part = [...last.content].reverse().find((p) => p.type === 'tool-result');
  if (part?.type !== 'tool-result') return undefined;
  const { output } = part;
  const text = output.type === 'text' || output.type === 'error-text' ? output.value : JSON.stringify(output);
  return { toolName: part.toolName, text };
}

function reply(prompt: Prompt): { text?: string; call?: { name: string; input: unknown } } {
  const result = lastResult(prompt);
  if (result === undefined) return { call: { name: 'read_page', input: {} } };
  if (result.toolName === 'read_page') {
    const path = /\/large_tool_results\/[A-Za-z0-9_-]+/.exec(result.text)?.[0];
    if (path) return { call: { name: 'read_file', input: { path, offset: 1000, limit: 5 } } };
    return { text: `The article is short: ${result.text.slice(0, 200)}` };
  }
  return { text: `Lines 1001 to 1005 of the article, read back from the page's store:\n${result.text}` };
}

export function offlineModel(): MockLanguageModelV4 {
  let calls = 0;
  return new MockLanguageModelV4({
    doStream: async (options) => {
      const next = reply(options.prompt);
      const id = `call-${Date.now()}-${calls++}`;
      const chunks = next.call
        ? [
            {
              type: 'tool-call' as const,
              toolCallId: id,
              toolName: next.call.name,
              input: JSON.stringify(next.call.input),
            },
          ]
        : [
            { type: 'text-start' as const, id },
            { type: 'text-delta' as const, id, delta: next.text ?? '' },
            { type: 'text-end' as const, id },
          ];
      return {
        stream: simulateReadableStream({
          chunks: [
            { type: 'stream-start' as const, warnings: [] },
            ...chunks,
            {
              type: 'finish' as const,
              finishReason: { unified: next.call ? ('tool-calls' as const) : ('stop' as const), raw: undefined },
              usage,
            },
          ],
        }),
      };
    },
  });
}
