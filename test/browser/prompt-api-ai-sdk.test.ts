// The nearest working setup through the AI SDK (docs/prompt-api.md: `@browser-ai/core` 2.1.13 needs
// `ai` 6, `withOffload` needs `ai` 7): `withOffload` with a budget sized by `contextBudgetFor` for a
// small window, over the SDK's own MockLanguageModelV4. A 12-step run of large results keeps every
// request within the budget (old results sent as pointers), over both stores.
import { generateText, stepCountIs } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { withOffload } from '../../adapters/ai-sdk/index.js';
import { contextBudgetFor } from '../../adapters/prompt-api/index.js';
import { contextLedger } from '../../lib/context.js';
import { ToolOutputOffload } from '../../lib/index.js';
import { scriptedAiModel } from './fixtures/ai-sdk-model.js';
import { emitTool, ledgerOf } from './fixtures/context-ai-sdk-session.js';
import { contextStores, deleteContextStores } from './fixtures/context-stores.js';

afterEach(deleteContextStores);

describe('withOffload with a budget for a small window (contextBudgetFor)', () => {
  for (const kind of contextStores) {
    it(`keeps a 12-step run within the budget over ${kind.name}`, async () => {
      const store = kind.open();
      const budget = contextBudgetFor(4096, { reserveTokens: 512 });
      const offload = new ToolOutputOffload({
        ledger: contextLedger,
        store,
        thresholdTokens: 1000,
        contextBudget: budget,
      });
      const { tools, system, prepareStep } = withOffload(offload, { emit: emitTool }, { threadId: 'small-window' });
      const steps = 12;
      const model = scriptedAiModel([
        ...Array.from({ length: steps }, (_, i) => ({
          toolCalls: [{ id: `call-${i}`, name: 'emit', input: { tag: `r${i}`, tokens: 3000 } }],
        })),
        { text: 'done' },
      ]);
      const result = await generateText({
        model,
        tools,
        system,
        prepareStep,
        prompt: 'go',
        stopWhen: stepCountIs(steps + 2),
      });
      expect(result.text).toBe('done');
      const ledger = await ledgerOf(store, 'small-window', steps + 1);
      expect(ledger.map((record) => record.tokens <= budget.maxRequestTokens)).toEqual(ledger.map(() => true));
      const last = ledger.at(-1)!;
      expect(last.tokensWithoutOffload).toBeGreaterThan(budget.maxRequestTokens * 2);
      expect(last.results.filter((shown) => shown.shownAs === 'pointer').length).toBeGreaterThan(steps / 2);
      expect(JSON.stringify(model.prompts.at(-1))).toContain('/large_tool_results/');
    });
  }
});
