// Chrome's built-in model through the Prompt API's own tools, against a stand-in LanguageModel that
// follows the explainer (webmachinelearning/prompt-api README.md at 2e27365, 2026-06-22; the parts it
// models are listed in fixtures/prompt-api-model.ts), since no machine here has the model. A 30-step
// session whose every step fetches a 12 KB page: without the adapter the session overflows and drops
// its oldest turns (the first page is gone); with it, it never overflows, the conversation goes on in
// new sessions whose initial prompts carry old results as pointers, the first page's line is read back,
// and each prompt leaves a ledger record with the session's usage as reported. Over both stores.

import { afterEach, describe, expect, it } from 'vitest';
import { contextBudgetFor, type OffloadSessionEvent, offloadSession } from '../../adapters/prompt-api/index.js';
import { contextLedger } from '../../lib/context.js';
import { ToolOutputOffload } from '../../lib/index.js';
import { contextStores, deleteContextStores } from './fixtures/context-stores.js';
import { type StandInSession, standInLanguageModel } from './fixtures/prompt-api-model.js';
import { codeOf, fetchPage, recallPrompt, reportReader, stepPrompt } from './fixtures/prompt-api-session.js';

afterEach(deleteContextStores);

const contextWindow = 9216;
const steps = 30;
const system = { role: 'system' as const, content: 'You read reports page by page.' };

const usageOf = (session: StandInSession) => (session as unknown as { contextUsage: number }).contextUsage;

describe('a 30-step Prompt API session with large tool results', () => {
  it('without the adapter, overflows its window: the oldest turns are dropped and the first page is gone', async () => {
    const LanguageModel = standInLanguageModel({ contextWindow, script: reportReader });
    const session = await LanguageModel.create({ tools: [fetchPage], initialPrompts: [system] });
    let overflows = 0;
    session.addEventListener('contextoverflow', () => overflows++);
    for (let n = 1; n <= steps; n++) {
      expect(await session.prompt(stepPrompt(n))).toBe(`Read page ${n}.`);
      expect(usageOf(session)).toBeLessThanOrEqual(contextWindow);
    }
    expect(overflows).toBeGreaterThan(10);
    expect(session.droppedTurns).toBeGreaterThan(steps / 2);
    expect(await session.prompt(recallPrompt(1))).toBe('I no longer have page 1.');
  });

  for (const kind of contextStores) {
    it(`with the adapter over ${kind.name}, never overflows, reads the first page back, and records each prompt with its reported usage`, async () => {
      const store = kind.open();
      const offload = new ToolOutputOffload({
        ledger: contextLedger,
        store,
        thresholdTokens: 1000,
        contextBudget: contextBudgetFor(contextWindow),
      });
      const LanguageModel = standInLanguageModel({ contextWindow, script: reportReader });
      const events: OffloadSessionEvent[] = [];
      const conversation = await offloadSession(offload, {
        threadId: 'report',
        tools: [fetchPage],
        initialPrompts: [system],
        languageModel: LanguageModel,
        onEvent: (event) => events.push(event),
      });
      const reported: number[] = [];
      for (let n = 1; n <= steps; n++) {
        expect(await conversation.prompt(stepPrompt(n))).toBe(`Read page ${n}.`);
        reported.push(usageOf(conversation.session as unknown as StandInSession));
      }
      expect(await conversation.prompt(recallPrompt(1))).toBe(`The code for page 1 is ${codeOf(1)}.`);
      reported.push(usageOf(conversation.session as unknown as StandInSession));

      // Never overflowed, in any of the sessions the conversation went through.
      expect(LanguageModel.sessions.map((session) => session.overflows)).toEqual(LanguageModel.sessions.map(() => 0));
      expect(events.filter((event) => event.type === 'context-overflow')).toEqual([]);
      expect(Math.max(...reported)).toBeLessThanOrEqual(contextWindow - contextWindow / 4);
      // It went on in new sessions, each carrying the conversation with old results as pointers.
      const continued = events.filter((event) => event.type === 'session-continued');
      expect(continued.length).toBeGreaterThan(0);
      expect(conversation.sessions).toBe(continued.length + 1);
      expect(LanguageModel.sessions).toHaveLength(conversation.sessions);
      for (const event of continued) expect(event.carriedTokens).toBeLessThan(event.contextUsage);
      const carried = (LanguageModel.sessions.at(-1)!.createOptions.initialPrompts as { content: string }[]).map(
        (prompt) => prompt.content,
      );
      expect(carried[0]).toContain(system.content);
      expect(carried[0]).toContain('/large_tool_results/');
      const pointers = carried.filter((text) => text.startsWith('Result of fetch_page:') && !text.includes('line 0'));
      expect(pointers.length).toBeGreaterThan(steps / 2);
      // Each pointer names a path the read tools read (the oldest are merged, C10: the first of a block lists
      // its own key first): the page is there, whole.
      const key = /\/large_tool_results\/(?: \+ )?([A-Za-z0-9_-]+)/.exec(pointers[0]!)![1]!;
      expect(await store.read('report', key)).toContain(codeOf(1));
      expect(events.some((event) => event.type === 'context-cleared')).toBe(true);
      expect(events.filter((event) => event.type === 'offloaded')).toHaveLength(steps);

      // One ledger record per prompt(), each with what the session said it held after it.
      const ledger = await store.requests!('report');
      expect(ledger.map((record) => record.step)).toEqual(reported.map((_, i) => i + 1));
      expect(ledger.map((record) => record.reported)).toEqual(reported.map((inputTokens) => ({ inputTokens })));
      for (const record of ledger)
        expect(record.tokens).toBeLessThanOrEqual(contextBudgetFor(contextWindow).maxRequestTokens);
      expect(ledger.at(-1)!.results.filter((result) => result.shownAs === 'pointer').length).toBeGreaterThan(steps / 2);
      // The bound holds.
      expect(await store.totalBytes('report')).toBeLessThanOrEqual(offload.limits.maxTotalBytes);
      conversation.destroy();
    });
  }
});
