// The Prompt API adapter's edges, against the stand-in LanguageModel (explainer at 2e27365,
// 2026-06-22; fixtures/prompt-api-model.ts): the explainer's older names (inputUsage, inputQuota,
// measureInputUsage, quotaoverflow), every option checked and unknown names refused, hostile tool
// results and model arguments that never block a prompt or break the bound, a store that fails (S3),
// and a new session that cannot take the conversation. Over both stores.

import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  contextBudgetFor,
  type LanguageModelFactory,
  type OffloadSessionEvent,
  offloadSession,
} from '../../adapters/prompt-api/index.js';
import { contextLedger } from '../../lib/context.js';
import { ToolOutputOffload } from '../../lib/index.js';
import { contextStores, deleteContextStores } from './fixtures/context-stores.js';
import { brokenStore } from './fixtures/failing-stores.js';
import { type ModelScript, standInLanguageModel } from './fixtures/prompt-api-model.js';
import { codeOf, fetchPage, recallPrompt, reportReader, stepPrompt } from './fixtures/prompt-api-session.js';

afterEach(deleteContextStores);

const budgeted = (store: ToolOutputOffload['store'], contextWindow = 9216, more = {}) =>
  new ToolOutputOffload({
    ledger: contextLedger,
    store,
    thresholdTokens: 1000,
    contextBudget: contextBudgetFor(contextWindow),
    ...more,
  });

/** A script that calls one tool with `args` on the first round of each prompt, then answers with what it got. */
const calling =
  (name: string, args: unknown): ModelScript =>
  ({ turn }) => {
    const response = turn.find((entry) => entry.kind === 'tool-response');
    return response ? { text: `Got ${response.text.length} characters.` } : { toolCalls: [{ name, args }] };
  };

describe('contextBudgetFor', () => {
  it("sizes the budget from the session's window, keeping a reserve and a margin for the model's tokenizer", () => {
    expect(contextBudgetFor(9216)).toEqual({ maxRequestTokens: 4147, clearAtLeastTokens: 2073 });
    expect(contextBudgetFor(6144, { reserveTokens: 1000, keepRecentResults: 2, excludeTools: ['notes'] })).toEqual({
      maxRequestTokens: 3086,
      clearAtLeastTokens: 1543,
      keepRecentResults: 2,
      excludeTools: ['notes'],
    });
    expect(contextBudgetFor(9216, { clearAtLeastTokens: 500 }).clearAtLeastTokens).toBe(500);
  });

  it('refuses a window too small, a bad reserve and unknown option names, naming each', () => {
    expect(() => contextBudgetFor(4096)).toThrow(/a window of 4096 tokens less 1024 reserved leaves a budget of 1843/);
    expect(() => contextBudgetFor(4096, { reserveTokens: 400 })).not.toThrow();
    expect(() => contextBudgetFor(Number.NaN)).toThrow(/contextWindow must be a positive integer/);
    expect(() => contextBudgetFor(9216, { reserveTokens: 9216 })).toThrow(/reserveTokens must be an integer/);
    expect(() => contextBudgetFor(9216, { maxRequestTokens: 3000 } as never)).toThrow(
      /unknown option "maxRequestTokens"; the options are reserveTokens/,
    );
    // The budget's own fields are checked as any contextBudget.
    expect(() =>
      budgeted(undefined as never, 9216, { contextBudget: contextBudgetFor(9216, { keepRecentResults: -1 }) }),
    ).toThrow(/keepRecentResults/);
  });
});

describe('offloadSession options', () => {
  const LanguageModel = standInLanguageModel({ script: reportReader });
  const offload = () => budgeted(contextStores[0]!.open());

  it('refuses unknown names and bad values, naming each', async () => {
    const base = { threadId: 't', languageModel: LanguageModel };
    await expect(offloadSession(offload(), { ...base, tool: [] } as never)).rejects.toThrow(
      /unknown option "tool"; the options are threadId, tools/,
    );
    await expect(offloadSession(offload(), { ...base, threadId: '' })).rejects.toThrow(
      /threadId must be a non-empty string/,
    );
    await expect(offloadSession({} as never, base)).rejects.toThrow(/must be a ToolOutputOffload/);
    await expect(offloadSession(offload(), { ...base, languageModel: {} as never })).rejects.toThrow(
      /must have create/,
    );
    // Chromium has a LanguageModel of its own (without the model behind it): a page without one is stubbed.
    vi.stubGlobal('LanguageModel', undefined);
    await expect(offloadSession(offload(), { threadId: 't' })).rejects.toThrow(/there is no LanguageModel here/);
    vi.unstubAllGlobals();
    await expect(offloadSession(offload(), { ...base, reserveTokens: -1 })).rejects.toThrow(RangeError);
    await expect(offloadSession(offload(), { ...base, onEvent: 'log' as never })).rejects.toThrow(
      /onEvent must be a function/,
    );
    await expect(offloadSession(offload(), { ...base, createOptions: { tools: [] } })).rejects.toThrow(
      /pass tools as options.tools/,
    );
    await expect(
      offloadSession(offload(), {
        ...base,
        initialPrompts: [
          { role: 'user', content: 'hi' },
          { role: 'system', content: 'x' },
        ],
      }),
    ).rejects.toThrow(/a system prompt can only be the first/);
    await expect(
      offloadSession(offload(), { ...base, initialPrompts: [{ role: 'user', content: 3 as never }] }),
    ).rejects.toThrow(/content must be a string/);
    await expect(offloadSession(offload(), { ...base, tools: [{ ...fetchPage, name: 'read_file' }] })).rejects.toThrow(
      /already has a tool named "read_file"/,
    );
    await expect(offloadSession(offload(), { ...base, tools: [fetchPage, fetchPage] })).rejects.toThrow(
      /two tools are named/,
    );
    await expect(
      offloadSession(offload(), { ...base, tools: [{ ...fetchPage, execute: undefined as never }] }),
    ).rejects.toThrow(/tools\[0\].execute must be a function/);
  });

  it('needs a contextBudget that fits the window less the reserve', async () => {
    const base = { threadId: 't', languageModel: LanguageModel };
    const store = contextStores[0]!.open();
    await expect(offloadSession(new ToolOutputOffload({ ledger: contextLedger, store }), base)).rejects.toThrow(
      /needs a contextBudget/,
    );
    const tooLarge = new ToolOutputOffload({ ledger: contextLedger, store, contextBudget: { maxRequestTokens: 8000 } });
    await expect(offloadSession(tooLarge, base)).rejects.toThrow(
      /maxRequestTokens \(8000\) must fit the session's contextWindow \(9216\) less reserveTokens \(2304\); contextBudgetFor\(9216\)/,
    );
    // The session it opened to learn the window is not left open.
    expect(LanguageModel.sessions.at(-1)!.destroyed).toBe(true);
    // A result within the default threshold (20,000 tokens) would not fit Chrome's whole window.
    const defaultThreshold = new ToolOutputOffload({
      ledger: contextLedger,
      store,
      contextBudget: contextBudgetFor(9216),
    });
    await expect(offloadSession(defaultThreshold, base)).rejects.toThrow(
      /thresholdTokens \(20000 tokens\) is over reserveTokens \(2304\)/,
    );
    const wideTool = new ToolOutputOffload({
      ledger: contextLedger,
      store,
      thresholdTokens: 1000,
      tools: { fetch_page: { thresholdTokens: 5000 } },
      contextBudget: contextBudgetFor(9216),
    });
    await expect(offloadSession(wideTool, { ...base, tools: [fetchPage] })).rejects.toThrow(
      /the threshold of tool "fetch_page" \(5000 tokens\)/,
    );
    // A read tool's pages are cut to its threshold: they must fit too.
    const widePages = new ToolOutputOffload({
      ledger: contextLedger,
      store,
      thresholdTokens: 1000,
      tools: { read_file: { thresholdTokens: 3000 } },
      contextBudget: contextBudgetFor(9216),
    });
    await expect(offloadSession(widePages, base)).rejects.toThrow(/the threshold of tool "read_file" \(3000 tokens\)/);
    expect(LanguageModel.sessions.at(-1)!.destroyed).toBe(true);
  });

  it("checks each prompt's input and options", async () => {
    const conversation = await offloadSession(offload(), { threadId: 't', languageModel: LanguageModel });
    await expect(conversation.prompt(42 as never)).rejects.toThrow(/input must be a string or an array/);
    await expect(conversation.prompt([{ role: 'system', content: 'x' }])).rejects.toThrow(/input\[0\] must be/);
    await expect(conversation.prompt('hi', { signl: 1 } as never)).rejects.toThrow(/unknown option "signl"/);
    expect(await conversation.prompt([{ role: 'user', content: 'hello' }])).toBe('OK.');
    conversation.destroy();
    await expect(conversation.prompt('again')).rejects.toThrow(/destroyed/);
  });
});

describe('the Prompt API adapter', () => {
  for (const kind of contextStores) {
    it(`works with the explainer's older names (inputUsage, inputQuota, quotaoverflow) over ${kind.name}`, async () => {
      const store = kind.open();
      const contextWindow = 6144;
      const LanguageModel = standInLanguageModel({ contextWindow, script: reportReader, names: 'input' });
      const events: OffloadSessionEvent[] = [];
      const conversation = await offloadSession(budgeted(store, contextWindow), {
        threadId: 'old-names',
        tools: [fetchPage],
        languageModel: LanguageModel,
        onEvent: (event) => events.push(event),
      });
      const usage: number[] = [];
      for (let n = 1; n <= 20; n++) {
        await conversation.prompt(stepPrompt(n));
        usage.push((conversation.session as unknown as { inputUsage: number }).inputUsage);
      }
      expect(await conversation.prompt(recallPrompt(2))).toBe(`The code for page 2 is ${codeOf(2)}.`);
      expect(LanguageModel.sessions.every((session) => session.overflows === 0)).toBe(true);
      expect(events.some((event) => event.type === 'session-continued')).toBe(true);
      const ledger = await store.requests!('old-names');
      expect(ledger.slice(0, 20).map((record) => record.reported?.inputTokens)).toEqual(usage);
    });

    it(`keeps hostile tool results and model arguments from blocking a prompt or breaking the bound over ${kind.name}`, async () => {
      const store = kind.open();
      const maxTotalBytes = 64 * 1024;
      const hostile = [
        { name: 'one_line', value: 'x'.repeat(400_000) },
        { name: 'an_object', value: { rows: Array.from({ length: 3000 }, (_, i) => ({ i, text: 'row' })) } },
        { name: 'a_bigint', value: 10n ** 40n },
        { name: 'nothing', value: undefined },
      ];
      for (const { name, value } of hostile) {
        const tool = { name, description: name, inputSchema: { type: 'object' }, execute: async () => value as string };
        const LanguageModel = standInLanguageModel({ script: calling(name, {}) });
        const conversation = await offloadSession(budgeted(store, 9216, { maxTotalBytes, maxResultBytes: 32 * 1024 }), {
          threadId: 'hostile',
          tools: [tool],
          languageModel: LanguageModel,
        });
        for (let i = 0; i < 3; i++) expect(await conversation.prompt('go')).toMatch(/^Got \d+ characters\.$/);
        expect(await store.totalBytes('hostile')).toBeLessThanOrEqual(maxTotalBytes);
      }
      const [big] = await store.list('hostile');
      expect(big!.preview.length).toBeLessThan(4000 * 4);

      // Whatever the model sends the read tools is answered in words, and the prompt goes on.
      const badArgs = [
        { path: 42 },
        null,
        { path: '/large_tool_results/../x' },
        { path: `/${'a'.repeat(20_000)}` },
        'read',
      ];
      for (const args of badArgs) {
        const LanguageModel = standInLanguageModel({ script: calling('read_file', args) });
        const conversation = await offloadSession(budgeted(store), {
          threadId: 'hostile',
          languageModel: LanguageModel,
        });
        expect(await conversation.prompt('read it')).toMatch(/^Got \d+ characters\.$/);
        const response = LanguageModel.sessions[0]!.held.find((entry) => entry.kind === 'tool-response')!;
        expect(response.text.length).toBeLessThan(4000);
      }
    });

    it(`cuts a huge thrown error to the threshold and keeps it as the call's result over ${kind.name}`, async () => {
      const store = kind.open();
      const failing = {
        name: 'flaky',
        description: 'fails',
        inputSchema: { type: 'object' },
        execute: async () => {
          throw new Error(`upstream said: ${'no '.repeat(50_000)}`);
        },
      };
      const LanguageModel = standInLanguageModel({ script: calling('flaky', {}) });
      const conversation = await offloadSession(budgeted(store), {
        threadId: 'errors',
        tools: [failing],
        languageModel: LanguageModel,
      });
      const error = (await conversation.prompt('go').catch((thrown: unknown) => thrown)) as Error;
      expect(error).toBeInstanceOf(Error);
      expect(error.message.startsWith('upstream said: no no')).toBe(true);
      expect(error.message.length).toBeLessThan(5000);
      expect(error.message).toMatch(/\[Cut: this tool result has \d+ characters/);
      // The next prompt measures the conversation with the cut error in it, and goes on.
      const next = await offloadSession(budgeted(store), {
        threadId: 'errors',
        languageModel: standInLanguageModel({ script: reportReader }),
      });
      expect(await next.prompt('hello')).toBe('OK.');
    });
  }

  it("stores each of one step's concurrent calls (the browser runs them as Promise.all), and an aborted prompt leaves the next one working", async () => {
    const store = contextStores[0]!.open();
    const events: OffloadSessionEvent[] = [];
    // Three pages at once, then an answer naming how many responses came back.
    const LanguageModel = standInLanguageModel({
      script: ({ turn }) => {
        const responses = turn.filter((entry) => entry.kind === 'tool-response');
        if (responses.length > 0) return { text: `Read ${responses.length} pages.` };
        if (!turn[0]!.text.startsWith('Read three')) return { text: 'OK.' };
        return { toolCalls: [1, 2, 3].map((n) => ({ name: 'fetch_page', args: { n } })) };
      },
    });
    const conversation = await offloadSession(budgeted(store), {
      threadId: 'parallel',
      tools: [fetchPage],
      languageModel: LanguageModel,
      onEvent: (event) => events.push(event),
    });
    expect(await conversation.prompt('Read three pages.')).toBe('Read 3 pages.');
    const offloaded = events.filter((event) => event.type === 'offloaded');
    expect(offloaded).toHaveLength(3);
    expect(new Set(offloaded.map((event) => event.path)).size).toBe(3);
    expect((await store.list('parallel')).length).toBe(3);
    const aborted = new AbortController();
    aborted.abort(new Error('the user left'));
    await expect(conversation.prompt('Read three pages again.', { signal: aborted.signal })).rejects.toThrow(
      'the user left',
    );
    // An input the window cannot take is refused by the session, and not carried on.
    const huge = `Summarise: ${'all work and no play '.repeat(2000)}`;
    await expect(conversation.prompt(huge)).rejects.toThrow(/context window/);
    expect(await conversation.prompt('hello')).toBe('OK.');
    // Each prompt that reached the model was measured: its record has the three results as previews,
    // and neither the aborted prompt nor the refused one is in the conversation it measured.
    const ledger = await store.requests!('parallel');
    expect(ledger.at(-1)!.results.map((result) => result.shownAs)).toEqual(['preview', 'preview', 'preview']);
    expect(ledger.at(-1)!.parts.messages).toBeLessThan(ledger.at(-2)!.parts.messages);
  });

  it('never fails a prompt when the store fails (S3): the result is cut with a note, and the app is told', async () => {
    const store = brokenStore('reject', ['stage', 'apply', 'recordRequest', 'cleared']);
    const events: OffloadSessionEvent[] = [];
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const LanguageModel = standInLanguageModel({ script: reportReader });
    const conversation = await offloadSession(budgeted(store), {
      threadId: 'broken',
      tools: [fetchPage],
      languageModel: LanguageModel,
      onEvent: (event) => events.push(event),
    });
    expect(await conversation.prompt(stepPrompt(1))).toBe('Read page 1.');
    warn.mockRestore();
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'offload-failed',
        toolName: 'fetch_page',
        why: expect.stringMatching(/disk is on fire/),
      }),
    );
    const response = LanguageModel.sessions[0]!.held.find((entry) => entry.kind === 'tool-response')!;
    expect(response.text.length).toBeLessThan(4000 * 4);
  });

  it('goes on in the current session when a new one cannot take the conversation, and says why', async () => {
    const store = contextStores[0]!.open();
    const LanguageModel = standInLanguageModel({ script: reportReader });
    let creates = 0;
    const refusing: LanguageModelFactory = {
      create: async (options) => {
        if (creates++ > 0) throw new DOMException('The device is busy.', 'NotAllowedError');
        return LanguageModel.create(options) as never;
      },
    };
    const events: OffloadSessionEvent[] = [];
    const conversation = await offloadSession(budgeted(store), {
      threadId: 'busy',
      tools: [fetchPage],
      languageModel: refusing,
      onEvent: (event) => events.push(event),
    });
    for (let n = 1; n <= 20; n++) expect(await conversation.prompt(stepPrompt(n))).toBe(`Read page ${n}.`);
    expect(conversation.sessions).toBe(1);
    expect(events).toContainEqual({
      type: 'session-not-continued',
      threadId: 'busy',
      why: 'NotAllowedError: The device is busy.',
    });
    // The browser dropped the oldest turns, as without the adapter, and the app was told.
    expect(events.some((event) => event.type === 'context-overflow')).toBe(true);
  });
});
