import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, expect, it } from 'vitest';
import { estimateTokens } from '../lib/shared/text.js';
import { estimateTokensByScript } from '../lib/tokens/estimate-by-script.js';
import { corpusClasses, corpusText } from './estimator-corpus.js';
import { type BenchResult, median, record } from './record.js';

/**
 * The token estimators against o200k (gpt-tokenizer), per class of text: the relative error of the
 * total estimate ((estimated − real) / real; negative undercounts). The texts come from seeds the
 * script estimator's weights were not fitted on (they were fitted on seeds 100–103 and 700–703).
 */
const seeds = [9001, 9002, 9003, 9004];
const charsPerText = 16_384;
const results: BenchResult[] = [];

afterAll(() => record('estimator', results));

const round = (value: number) => Math.round(value * 1000) / 1000;

/** A code unit's kind for `runsOf`: lower, upper, digit, whitespace, other ASCII, past ASCII. */
function runKindOf(code: number): number {
  if (code >= 128) return 5;
  const char = String.fromCharCode(code);
  if (/[a-z]/.test(char)) return 1;
  if (/[A-Z]/.test(char)) return 2;
  if (/\d/.test(char)) return 3;
  return /\s/.test(char) ? 4 : 6;
}
const runKinds = Uint8Array.from({ length: 0x10000 }, (_, code) => runKindOf(code));

/** How many runs of one kind of character `text` holds: the scan the estimator makes before pricing. */
function runsOf(text: string): number {
  let runs = 0;
  let kind = -1;
  for (let i = 0; i < text.length; i++) {
    const next = runKinds[text.charCodeAt(i)]!;
    if (next !== kind) runs++;
    kind = next;
  }
  return runs;
}

it('measures the estimators per class of text', () => {
  let maxScript = 0;
  let maxChars = 0;
  for (const kind of corpusClasses) {
    let real = 0;
    let script = 0;
    let chars = 0;
    for (const seed of seeds) {
      const text = corpusText(kind, seed, charsPerText);
      real += countTokens(text);
      script += estimateTokensByScript(text);
      chars += estimateTokens(text);
    }
    const scriptError = (script - real) / real;
    const charsError = (chars - real) / real;
    maxScript = Math.max(maxScript, Math.abs(scriptError));
    maxChars = Math.max(maxChars, Math.abs(charsError));
    results.push(
      {
        name: `estimator-error-${kind}`,
        value: round(scriptError),
        unit: 'fraction',
        detail: `estimateTokensByScript vs o200k on ${real} tokens (${seeds.length} texts of ${charsPerText} characters)`,
      },
      {
        name: `estimator-error-${kind}-chars4`,
        value: round(charsError),
        unit: 'fraction',
        detail: `chars/4 (estimateTokens) vs o200k on the same ${real} tokens`,
      },
    );
  }
  results.push(
    {
      name: 'estimator-max-abs-error',
      value: round(maxScript),
      unit: 'fraction',
      goal: '<= 0.15',
      detail: `largest |error| of estimateTokensByScript over the classes; chars/4: ${round(maxChars)}`,
    },
    { name: 'estimator-max-abs-error-chars4', value: round(maxChars), unit: 'fraction' },
  );
  expect(results.length).toBe(corpusClasses.length * 2 + 2);
});

it('measures the script estimator on 1 MiB', async () => {
  // Every class in turn, as a megabyte of mixed tool output.
  let text = '';
  for (let i = 0; text.length < 1 << 20; i++)
    text += corpusText(corpusClasses[i % corpusClasses.length]!, 5000 + i, 16_384);
  text = text.slice(0, 1 << 20);
  let sink = 0;
  // The estimator, the floor the machine's load sets (one charCodeAt per character and nothing
  // else) and the estimator's first half alone (the text split into runs of one kind of character,
  // a table lookup a character, nothing priced), in turn, so the load weighs on the three alike.
  const measured = { ms: [] as number[], floorMs: [] as number[], runsMs: [] as number[] };
  const parts: Array<[keyof typeof measured, () => void]> = [
    ['ms', () => (sink += estimateTokensByScript(text))],
    [
      'floorMs',
      () => {
        for (let i = 0; i < text.length; i++) sink += text.charCodeAt(i) & 1;
      },
    ],
    ['runsMs', () => (sink += runsOf(text))],
  ];
  for (let round = 0; round < 28; round++) {
    for (const [name, run] of parts) {
      const started = performance.now();
      run();
      if (round >= 3) measured[name].push(performance.now() - started);
    }
  }
  const [ms, floorMs, runsMs] = [median(measured.ms), median(measured.floorMs), median(measured.runsMs)];
  const ms2 = (value: number) => Math.round(value * 100) / 100;
  results.push({
    name: 'estimator-1mib-ms',
    value: ms2(ms),
    unit: 'ms',
    goal: '<= 5',
    detail:
      `estimateTokensByScript over 1 MiB of mixed text (median of 25), ${ms2(ms / floorMs)}x a bare charCodeAt loop ` +
      `over it, which takes ${ms2(floorMs)} ms in the same run, in turn; the text split into runs of one kind of character ` +
      `alone (a table lookup a character, nothing priced) ${ms2(runsMs)} ms`,
    unmet:
      `${ms2(ms - 5)} ms over the goal. Part by part, in this run: the bare loop over the text ${ms2(floorMs)} ms, ` +
      `the split into runs ${ms2(runsMs)} ms, the pricing of the runs about the rest (${ms2(ms - runsMs)} ms). The figure is ` +
      `in milliseconds, so it moves with the machine's load (the bare loop takes 1.5 ms on a quiet machine). Done: a ` +
      `run's end is found once (the character that ends a run starts the next; 14% less CPU time in Node). Tried ` +
      `(bench/README.md): the pricing as a switch over the run's kind, the letter-and-digit test as one range, a fast ` +
      `path for single spaces, the pricing of whitespace lines in a function of its own: none faster.`,
  });
  expect(sink).toBeGreaterThan(0);
});
