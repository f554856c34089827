import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { estimateTokensByScript } from '../../lib/index.js';
import { ToolOutputOffload } from '../../lib/offload/tool-output-offload.js';
import { utf8Bytes } from '../../lib/shared/text.js';
import { MemoryOffloadStore } from '../../lib/store/memory-store.js';

/**
 * Issue 22: texts a page can be made of on purpose, which a whitespace-blind estimate priced at a
 * token or two whatever their length. The estimate must never be below what o200k makes of them
 * (within the estimator's error bound) nor below one token per 128 UTF-8 bytes (o200k's longest
 * token), whatever the text.
 */
const errorBound = 0.15;
const mib = 1 << 20;

/**
 * o200k's count of `unit` repeated to `chars` characters. gpt-tokenizer's merge is quadratic in a
 * piece's length and a whitespace run is one piece (1 MiB of '\n' would take minutes), so it
 * counts 4 KiB and scales: a repeated unit tokenizes periodically, which the count of 2 KiB, half
 * of it, checks.
 */
function o200kOfRepeat(unit: string, chars: number): number {
  const sample = 1 << 12;
  const units = Math.floor(sample / unit.length / 2) * 2;
  const whole = countTokens(unit.repeat(units));
  const half = countTokens(unit.repeat(units / 2));
  // Both ends of a run may split differently: a few tokens.
  expect(Math.abs(whole - 2 * half)).toBeLessThanOrEqual(4);
  return Math.round((whole * chars) / (units * unit.length));
}

const repeated: [string, string][] = [
  ['newlines', '\n'],
  ['CRLF blank lines', '\r\n'],
  ['lines of one tab', '\t\n'],
  ['lines of one space', '\n '],
  ['lines of four spaces', '\n    '],
  ['lone low surrogates', '\udc00'],
  ['lone high surrogates', '\ud800'],
  ['control characters', '\u0001\u0002\u0003\u0004'],
  ['escape sequences', '\u001b\u0000\u007f\u000b'],
  ['carriage returns', '\r'],
  ['tabs', '\t'],
];

// o200k counts of long whitespace runs take seconds on a busy machine: a deadline only a hang misses.
describe('estimateTokensByScript on whitespace, control characters and lone surrogates', { timeout: 600_000 }, () => {
  it.each(repeated)('1 MiB of %s: at least o200k and bytes / 128', (_, unit) => {
    const text = unit.repeat(Math.floor(mib / unit.length));
    const estimate = estimateTokensByScript(text);
    expect(estimate).toBeGreaterThanOrEqual(o200kOfRepeat(unit, text.length) * (1 - errorBound));
    expect(estimate).toBeGreaterThanOrEqual(utf8Bytes(text) / 128);
  });

  it('a page of 20,000 newlines is about 1,250 tokens, as o200k counts it', () => {
    const text = '\n'.repeat(20_000);
    expect(countTokens(text)).toBe(1250);
    const estimate = estimateTokensByScript(text);
    expect(estimate).toBeGreaterThanOrEqual(1250 * (1 - errorBound));
    expect(estimate).toBeLessThanOrEqual(1250 * (1 + errorBound));
  });

  it('blank lines between text, as a fetched page has them, at least o200k', () => {
    for (const blank of ['\n', '\r\n', '\t\n', '   \n', '\n\t\t\t']) {
      const text = `<p>Sign in</p>${blank.repeat(3000)}`.repeat(4);
      expect(estimateTokensByScript(text)).toBeGreaterThanOrEqual(countTokens(text) * (1 - errorBound));
    }
  });

  it('control characters among words are a token each', () => {
    const text = 'status\u0007ok\u0000\u0000id\u001b[0m;'.repeat(500);
    expect(estimateTokensByScript(text)).toBeGreaterThanOrEqual(countTokens(text) * (1 - errorBound));
  });

  it('never below one token per 128 UTF-8 bytes', () => {
    const texts = [
      '\n'.repeat(mib),
      ' '.repeat(mib),
      'a'.repeat(mib),
      `${'\u00a0'.repeat(1000)}x`.repeat(200),
      '😀'.repeat(10_000),
    ];
    for (const text of texts) expect(estimateTokensByScript(text)).toBeGreaterThanOrEqual(utf8Bytes(text) / 128);
  });
});

describe('the offload with estimateTokens: estimateTokensByScript', () => {
  it('stores a 420 KB result of blank lines instead of passing it whole', async () => {
    // 420 KB of '\n': 26,250 o200k tokens (16 a token); of '\n ': 105,000; of '\r\n': 52,500. All over the
    // default 20,000-token threshold, and all about one token by the estimator before issue 22.
    for (const [n, unit] of ['\n', '\n ', '\r\n'].entries()) {
      const text = unit.repeat(420_000 / unit.length);
      const offload = new ToolOutputOffload({
        estimateTokens: estimateTokensByScript,
        store: new MemoryOffloadStore(),
      });
      const outcome = await offload.offloadResult({
        threadId: 't1',
        callId: `c${n}`,
        toolName: 'fetch_page',
        content: text,
      });
      expect(outcome.kind).toBe('stored');
      expect(outcome.stored).toBe(true);
      expect(estimateTokensByScript(outcome.text)).toBeLessThanOrEqual(20_000);
      const key = outcome.path!.split('/').pop();
      expect(await offload.backend('t1').read(`/${key}`)).toContain(unit.repeat(3));
    }
  });
});
