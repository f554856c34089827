// C2: what the model sees for a cleared result: a pointer of at most 60 estimated tokens naming its
// path, its tool, its size and how to read it back, whatever the tool's name, the call's arguments,
// the key's length or the estimator; its media parts dropped, and said so.

import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { commitStaged, stageResult } from '../../lib/agent/offload-staging.js';
import { contextLedger } from '../../lib/context.js';
import { type EstimateTokens, estimateTokensByScript, ToolOutputOffload } from '../../lib/index.js';
import { resultKeyFor } from '../../lib/offload/result-identity.js';
import { clearedPointer, maxPointerTokens } from '../../lib/offload/words.js';
import { measureOf } from '../../lib/tokens/token-measure.js';
import {
  applied,
  type ContextStore,
  contextStore,
  conversation,
  longSystem,
  offloaded,
  request,
  textOf,
} from './context-fixtures.js';

const estimators: [string, EstimateTokens | undefined][] = [
  ['four characters a token', undefined],
  ['estimateTokensByScript', estimateTokensByScript],
  ['o200k (an exact tokenizer)', countTokens],
];

/** Tool names and arguments a hostile or careless tool could have: long, quoted, escaped, emoji, newlines. */
const hostileName = `${'"\\\u0000😀\n'.repeat(2000)}fetch`;
const hostileArgs = { path: '/large_tool_results/k', note: '"\\\u2028😀'.repeat(5000), nested: { deep: [1, 2, 3] } };
/** A key of the most characters a key may hold (64), of random characters (fixed here): the hardest path to tokenize. */
const longestKey = 'hyBJcznjmKz0TDY-qCyHfE2vqdSSfsQvn-dQaSjD6b2OPpE5BW0xoZ4iWlEJDrLD';
/** A call id as long and odd as providers send (1.5 KB): its key is the longest `offloadResult` makes (41 characters). */
const hostileCallId = `tpRNnTPPGzU5nSSPqSEhTA${'"\\😀'.repeat(400)}`;

/** A result of call `c1` stored by the built-in runtime's two steps, under a key of the caller's choosing: its preview. */
async function storedPreview(
  offload: ToolOutputOffload,
  threadId: string,
  key: string,
  toolName: string,
  text: string,
) {
  const outcome = await stageResult(offload, {
    threadId,
    turnId: 'turn-1',
    key,
    callId: 'c1',
    toolName,
    content: text,
  });
  if (!outcome.commit) throw new Error(`not stored: ${outcome.kind}`);
  await commitStaged(offload, outcome.commit);
  return outcome.text;
}

/** An offload whose budget a 1,000-token preview and a long system prompt go over, so the oldest result is cleared. */
function budgeted(store: ContextStore, estimateTokens?: EstimateTokens) {
  return new ToolOutputOffload({
    ledger: contextLedger,
    store,
    estimateTokens,
    thresholdTokens: 1000,
    contextBudget: { maxRequestTokens: 2000, keepRecentResults: 0 },
  });
}

describe('the pointer (C2)', () => {
  it('reads as the design says: tool, size, path, how to read it back', async () => {
    const store = contextStore();
    const offload = budgeted(store);
    const text = textOf(12_050, 'orders');
    const preview = await storedPreview(offload, 't1', 'call-orders-1', 'fetch_orders', text);
    const messages = conversation([{ id: 'c1', toolName: 'fetch_orders', text: preview }]);
    const fitted = await offload.fitContext(request('t1', messages, { system: longSystem }));
    expect(fitted.replacements.get(2)).toEqual({
      shownAs: 'pointer',
      text: `[Cleared from context] Result of "fetch_orders" (about ${Math.ceil(text.length / 4)} tokens), stored at /large_tool_results/call-orders-1. Read it with read_file or grep.`,
      dropMedia: true,
    });
  });

  it('names only the read tools the model has, and says so when it has none', async () => {
    const forTools = async (readTools: string[]) => {
      const store = contextStore();
      const offload = budgeted(store);
      const preview = await storedPreview(offload, 't1', 'k1', 'fetch_orders', textOf(3000, 'x'));
      const messages = conversation([{ id: 'c1', toolName: 'fetch_orders', text: preview }]);
      const fitted = await offload.fitContext(request('t1', messages, { system: longSystem, readTools }));
      return fitted.replacements.get(2)!.text;
    };
    expect(await forTools(['grep'])).toMatch(/stored at \/large_tool_results\/k1\. Read it with grep\.$/);
    expect(await forTools(['read_file', 'ls'])).toMatch(/\. Read it with read_file\.$/);
    expect(await forTools([])).toMatch(
      /stored at \/large_tool_results\/k1 for the app \(you have no tool to read it\)\.$/,
    );
  });

  it('drops the media parts of a cleared result and says how many', async () => {
    const store = contextStore();
    const offload = budgeted(store);
    const messages = conversation([
      { id: 'c1', toolName: 'screenshot', text: textOf(1200, 'page'), mediaParts: 2 },
      { id: 'c2', toolName: 'photo', text: textOf(400, 'one'), mediaParts: 1 },
    ]);
    const fitted = await offload.fitContext(request('t1', messages, { system: longSystem }));
    const [first, second] = [fitted.replacements.get(2)!, fitted.replacements.get(4)!];
    expect(first).toMatchObject({ shownAs: 'pointer', dropMedia: true });
    expect(first.text).toMatch(
      /^\[Cleared from context\] Result of "screenshot" \(about 1200 tokens; its 2 images\/files are not shown\), stored at \/large_tool_results\/c1-[A-Za-z0-9_-]{16}\./,
    );
    expect(second.text).toContain('; its 1 image/file is not shown)');
    expect(applied(messages, fitted)[2]).toMatchObject({ role: 'tool', mediaParts: 0, text: first.text });
  });

  for (const [name, estimate] of estimators) {
    it(`is at most ${maxPointerTokens} estimated tokens and names the whole path, for hostile names, arguments and the longest keys (${name})`, async () => {
      const measure = measureOf('test', estimate);
      const store = contextStore();
      const offload = budgeted(store, estimate);
      const callId = hostileCallId;
      const { text: preview, path } = await offloaded(offload, 't1', callId, textOf(3000, 'hostile'), hostileName);
      expect(path).toHaveLength('/large_tool_results/'.length + 41);
      const messages = conversation([
        { id: callId, toolName: hostileName, text: preview, mediaParts: 999_999 },
        { id: `${'"id"'.repeat(500)}`, toolName: hostileName, text: textOf(600, 'small'), mediaParts: 3 },
        { id: 'c3', toolName: 'read_file', args: hostileArgs, text: textOf(600, 'page') },
        { id: 'c4', toolName: hostileName, args: hostileArgs, text: textOf(600, 'read from the mount') },
      ]);
      const fitted = await offload.fitContext(request('t1', messages, { system: longSystem }));
      expect([...fitted.replacements.keys()]).toEqual([2, 4, 6, 8]);
      for (const { text, shownAs } of fitted.replacements.values()) {
        expect(shownAs).toBe('pointer');
        expect(measure.tokens(text)).toBeLessThanOrEqual(maxPointerTokens);
      }
      const pointers = [...fitted.replacements.values()].map((replacement) => replacement.text);
      expect(pointers[0]).toContain(path);
      expect(pointers[0]).toMatch(/999999 (images\/files are not shown|media dropped)/);
      expect(pointers[1]).toMatch(/\/large_tool_results\/_id__id__id__id__id__id_-[A-Za-z0-9_-]{16}\b/);
      expect(pointers[1]).toMatch(/3 (images\/files are not shown|media dropped)/);
      // A page (a file tool, or a call reading from the mount) names the call to repeat, not a path (O11).
      expect(pointers[2]).toMatch(
        /^\[Cleared from context\] Result of "read_file" \(.*\)\. To see it again, (call read_file \{"path":"\/large_tool_results\/k",[\s\S]*…|repeat that call)\.$/,
      );
      expect(pointers[3]).not.toContain('stored at');
    });
  }

  it('keeps every form within the bound, over a grid of facts, or makes none (then the result is not cleared)', async () => {
    const offloadsLongest = `/large_tool_results/${(await resultKeyFor(hostileCallId, 'text')).padEnd(41, '0')}`;
    const weird = (text: string) => text.length; // a token a character: the harshest an estimator plausibly is
    for (const estimate of [undefined, estimateTokensByScript, countTokens, weird]) {
      const measure = measureOf('test', estimate);
      for (const toolName of ['f', hostileName, 'x'.repeat(64)]) {
        for (const path of [undefined, '/large_tool_results/k', offloadsLongest, `/large_tool_results/${longestKey}`]) {
          for (const mediaParts of [0, 1, 12, 999_999]) {
            for (const readTools of [undefined, [], ['grep']]) {
              const facts = {
                toolName,
                tokens: 2 ** 52,
                mediaParts,
                readTools,
                path,
                args: hostileArgs,
              };
              const pointer = clearedPointer(facts, measure);
              if (pointer === undefined) {
                // Only a harsh estimator, or a key of 64 random characters (an app's own, longer than the
                // offload's keys) under a tokenizer that splits it finely, leaves no room beside the path.
                if (estimate !== weird) expect(path?.length).toBe('/large_tool_results/'.length + 64);
                continue;
              }
              expect(measure.tokens(pointer)).toBeLessThanOrEqual(maxPointerTokens);
              if (path !== undefined) expect(pointer).toContain(path);
              if (mediaParts > 0) expect(pointer).toMatch(new RegExp(`${mediaParts} (image|media)`));
            }
          }
        }
      }
    }
  });
});
