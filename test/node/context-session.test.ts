// A 100-step session under a budget of 8,000 tokens (C1–C6 together): results under and over the
// threshold and file tool pages; every request fits or says why, a cleared result keeps its pointer
// to the end, and every path a pointer named reads back its result's text (or its page, by the call).

import { describe, expect, it } from 'vitest';
import { contextLedger } from '../../lib/context.js';
import { ToolOutputOffload } from '../../lib/index.js';
import { mergedCallStub, mergedStub } from '../../lib/offload/words.js';
import {
  applied,
  contextStore,
  conversation,
  ledgerOf,
  mergedShown,
  request,
  type Step,
  textOf,
} from './context-fixtures.js';

describe('a 100-step session under a budget', () => {
  it('fits every request, keeps each pointer, and every pointer reads back its result', {
    timeout: 600_000,
  }, async () => {
    const store = contextStore();
    const offload = new ToolOutputOffload({ ledger: contextLedger, store, contextBudget: { maxRequestTokens: 8000 } });
    const readFile = offload.readTools('t1').find((tool) => tool.name === 'read_file')!;
    const steps: Step[] = [];
    /** What each result was, whole, as the tool returned it. */
    const originals = new Map<string, string>();
    const storedPaths: string[] = [];
    const pointers = new Map<string, string>();
    /** How many times each result's pointer text changed: only by merging (C10). */
    const changes = new Map<string, number>();
    /** Each result's own pointer, as first sent: a merge (C10) replaces it once, by its block's listing or the stub. */
    const own = new Map<string, string>();
    let overBudget = 0;
    const isMerged = (text: string) =>
      text === mergedStub || text === mergedCallStub || /^\[Cleared from context\] \d+ tool results/.test(text);
    let lastSent: ReturnType<typeof applied> = [];
    for (let i = 0; i < 100; i++) {
      const id = `call-${i}`;
      if (i % 10 === 5 && storedPaths.length > 0) {
        // The model reads a page of a stored result back.
        const args = { path: storedPaths.at(-1)!, offset: 20, limit: 30 };
        const page = await readFile.run(args);
        originals.set(id, page.text);
        steps.push({ id, toolName: 'read_file', args, text: page.text });
      } else {
        // 100 to 415 KB over the threshold (two steps in ten), else 100 to 1,200 tokens.
        const big = i % 10 === 3 || i % 10 === 7;
        const text = textOf(big ? 25_000 + ((i * 7919) % 78_000) : 100 + ((i * 613) % 1100), `r${i}`);
        originals.set(id, text);
        const outcome = await offload.offloadResult({
          threadId: 't1',
          callId: id,
          toolName: 'fetch_orders',
          content: text,
        });
        if (outcome.path) storedPaths.push(outcome.path);
        steps.push({ id, toolName: 'fetch_orders', text: outcome.text });
      }
      const messages = conversation(steps, { answered: false });
      const fitted = await offload.fitContext(request('t1', messages));
      if (fitted.tokens! > 8000) {
        overBudget++;
        expect(fitted.events).toContainEqual({
          type: 'context-over-budget',
          threadId: 't1',
          tokens: fitted.tokens,
          budget: 8000,
        });
      }
      const sent = applied(messages, fitted);
      lastSent = sent;
      for (const [index, replacement] of fitted.replacements) {
        const message = messages[index]!;
        if (message.role !== 'tool' || replacement.shownAs !== 'pointer') continue;
        const before = pointers.get(message.toolCallId);
        // C4: the same text every request, but for the merges of its block (C10): into a block of ten, then of fifty.
        if (before !== undefined && replacement.text !== before) {
          expect(isMerged(replacement.text)).toBe(true);
          changes.set(message.toolCallId, (changes.get(message.toolCallId) ?? 0) + 1);
          expect(changes.get(message.toolCallId)).toBeLessThanOrEqual(2);
        }
        if (!own.has(message.toolCallId) && !isMerged(replacement.text)) own.set(message.toolCallId, replacement.text);
        pointers.set(message.toolCallId, replacement.text);
        expect(sent[index]).toMatchObject({ text: replacement.text });
      }
      // Once cleared, cleared in every later request.
      for (const id of pointers.keys()) {
        const at = messages.findIndex((message) => message.role === 'tool' && message.toolCallId === id);
        expect(fitted.replacements.get(at)?.shownAs).toBe('pointer');
      }
    }
    expect(overBudget).toBe(0);
    expect(pointers.size).toBeGreaterThan(80);

    // Every pointer leads back to its result: a path reads back the text, a page's call the page again.
    for (const [id, pointer] of own) {
      const original = originals.get(id)!;
      const path = /stored at (\/large_tool_results\/[A-Za-z0-9_-]+)\./.exec(pointer)?.[1];
      if (path !== undefined) {
        expect(await store.read('t1', path.slice('/large_tool_results/'.length))).toBe(original);
        continue;
      }
      const call = /To see it again, call read_file (\{.*\})\.$/.exec(pointer)![1]!;
      expect((await readFile.run(JSON.parse(call))).text).toBe(original);
    }

    // A result merged when it was first cleared has no pointer of its own: its block's listing names its path,
    // or its stub says to repeat its call, which the request still holds.
    const sentResults = lastSent.flatMap((m) =>
      m.role === 'tool' ? [{ toolCallId: m.toolCallId, text: m.text }] : [],
    );
    let mergedFirst = 0;
    for (const [id, path] of mergedShown(sentResults, mergedStub).paths) {
      if (own.has(id)) continue;
      mergedFirst++;
      expect(await store.read('t1', path.slice('/large_tool_results/'.length))).toBe(originals.get(id));
    }
    for (const { toolCallId, text } of sentResults) {
      if (text !== mergedCallStub || own.has(toolCallId)) continue;
      mergedFirst++;
      const step = steps.find((s) => s.id === toolCallId)!;
      expect((await readFile.run(step.args as { path: string })).text).toBe(originals.get(toolCallId));
    }
    expect(own.size + mergedFirst).toBe(pointers.size);

    const ledger = await ledgerOf(store, 't1', 100);
    expect(ledger.map((record) => record.step)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    for (const { parts, tokens, tokensWithoutOffload } of ledger) {
      expect(Object.values(parts).reduce((sum, part) => sum + part, 0)).toBe(tokens);
      expect(tokens).toBeLessThanOrEqual(tokensWithoutOffload);
    }
    expect(ledger.at(-1)!.tokensWithoutOffload).toBeGreaterThan(1_000_000);
  });
});
