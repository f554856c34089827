// A misspelled option is a mistake the app makes once and then never sees: `maxTotalByte` accepted
// silently means the bound the app asked for is not the one that holds. Every public function and
// constructor that takes an options object refuses a name it does not know, with a TypeError
// naming it (the inspector's, which need a DOM, are checked in test/browser/options-unknown.test.tsx).
import { describe, expect, it } from 'vitest';
import { withOffload } from '../../adapters/ai-sdk/index.js';
import { offloadMiddleware } from '../../adapters/langchain/index.js';
import {
  createAgent,
  fileTools,
  IndexedDbCheckpointer,
  MemoryBackend,
  type Model,
  modelReply,
  openAICompatibleModel,
  Summarization,
  tool,
} from '../../lib/agent.js';
import { IndexedDbOffloadStore, MemoryOffloadStore, OffloadBackend, ToolOutputOffload } from '../../lib/index.js';
import { scriptedModel, storeContract } from '../../lib/testing.js';

const model: Model = async () => ({ content: 'ok' });
const offload = new ToolOutputOffload({ store: new MemoryOffloadStore() });

/** Calls `call` and gives the error it throws (or rejects with), failing when it does neither. */
async function thrown(call: () => unknown): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

/** A misspelled option (on the left) beside the options the call needs, as an app would write it. */
const cases: Array<[what: string, misspelled: string, call: (extra: Record<string, unknown>) => unknown]> = [
  ['new ToolOutputOffload', 'maxTotalByte', (extra) => new ToolOutputOffload({ maxTotalBytes: 1 << 20, ...extra })],
  [
    'offload.offloadResult',
    'readTool',
    (extra) => offload.offloadResult({ threadId: 't', callId: 'c', toolName: 'x', content: 'small', ...extra }),
  ],
  ['offload.systemPrompt', 'readTool', (extra) => offload.systemPrompt({ readTools: ['read_file'], ...extra })],
  [
    'new OffloadBackend',
    'storedBefor',
    (extra) => new OffloadBackend(offload.store, 't', { storedBefore: () => false, ...extra }),
  ],
  ['createAgent', 'maxStep', (extra) => createAgent({ model, maxSteps: 3, ...extra })],
  [
    'createAgent with a ToolOutputOffload',
    'middlewares',
    (extra) => createAgent({ model, middleware: [offload], ...extra }),
  ],
  ['agent.run', 'threadID', (extra) => createAgent({ model }).run('hi', { threadId: 't', ...extra } as never)],
  ['agent.resume', 'approve', (extra) => createAgent({ model }).resume('t', { approved: true, ...extra } as never)],
  ['agent.recover', 'signl', (extra) => createAgent({ model }).recover('t', { ...extra } as never)],
  ['fileTools', 'maxPageToken', (extra) => fileTools(new MemoryBackend(), { maxPageTokens: 2000, ...extra })],
  [
    'tool',
    'parameter',
    (extra) => tool({ name: 'x', description: 'x', parameters: { type: 'object' }, execute: () => '', ...extra }),
  ],
  ['new Summarization', 'keepMessage', (extra) => new Summarization({ model, triggerTokens: 1000, ...extra })],
  [
    'openAICompatibleModel',
    'baseURL',
    (extra) => openAICompatibleModel({ baseUrl: 'https://example.com/v1', model: 'm', fetch, ...extra }),
  ],
  ['new IndexedDbCheckpointer', 'blockedTimeout', (extra) => new IndexedDbCheckpointer({ name: 'x', ...extra })],
  [
    'modelReply',
    'onParts',
    (extra) =>
      modelReply(
        model,
        { systemPrompt: '', messages: [], tools: [] },
        { signal: new AbortController().signal, ...extra },
      ),
  ],
  ['scriptedModel', 'streams', (extra) => scriptedModel([], { stream: false, ...extra })],
  ['scriptedModel, stream', 'chunkSize', (extra) => scriptedModel([], { stream: { chunkChars: 4, ...extra } })],
  ['storeContract', 'exactMessage', (extra) => storeContract(() => new MemoryOffloadStore(), { name: 'x', ...extra })],
  ['withOffload', 'onEvents', (extra) => withOffload(offload, {}, { threadId: 't', ...extra })],
  ['offloadMiddleware', 'threadID', (extra) => offloadMiddleware(offload, { onEvent: () => {}, ...extra })],
];

/** The stores' constructors. */
const storeCases: typeof cases = [
  ['new MemoryOffloadStore', 'logRetension', (extra) => new MemoryOffloadStore({ logRetention: 10, ...extra })],
  ['new IndexedDbOffloadStore', 'persists', (extra) => new IndexedDbOffloadStore({ name: 'x', ...extra })],
];

describe('an unknown option name of a store', () => {
  it.each(storeCases)('%s: is a TypeError naming it (%s)', async (_what, misspelled, call) => {
    const error = await thrown(() => call({ [misspelled]: 1 }));
    expect(error).toBeInstanceOf(TypeError);
    expect((error as TypeError).message).toContain(`"${misspelled}"`);
  });
});

describe('an unknown option name', () => {
  it.each(cases)('%s: is a TypeError naming it (%s)', async (_what, misspelled, call) => {
    const error = await thrown(() => call({ [misspelled]: 1 }));
    expect(error).toBeInstanceOf(TypeError);
    expect((error as TypeError).message).toContain(`"${misspelled}"`);
  });

  it.each(cases)('%s: the options as spelled are taken', async (_what, _misspelled, call) => {
    // The same call without the misspelling does not fail on its options (a run may still fail
    // later for its own reasons: what it is given here is enough to start).
    let error: unknown;
    try {
      await call({});
    } catch (caught) {
      error = caught;
    }
    expect(error === undefined || !/unknown option/.test(String(error))).toBe(true);
  });
});
