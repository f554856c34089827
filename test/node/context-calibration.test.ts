// C9: the budget calibrated to what the provider reports. The factor from the ledger's records
// (median, small requests ignored, never enlarging), the budget it makes (from the newest reported
// request when it is one to trust), the event when it moves,
// and fitContext over a store: a reported 1.3× the estimate shrinks what is sent, `calibrate: false`
// does not, a new offload over the same store calibrates alike, a damaged factor is unreadable (S2).

import { describe, expect, it, vi } from 'vitest';
import { contextLedger } from '../../lib/context.js';
import { MemoryOffloadStore, type RequestRecord, ToolOutputOffload } from '../../lib/index.js';
import {
  calibratedBudget,
  calibrationEvent,
  calibrationFactor,
  changeSince,
  minCalibrationTokens,
  newestReported,
  previousFactor,
  type ReportedRequest,
} from '../../lib/offload/context/calibration.js';
import { resolveContextBudget } from '../../lib/offload/context/request.js';
import { requestProblem } from '../../lib/store/record-checks.js';
import { applied, conversation, ledgerOf, request, textOf } from './context-fixtures.js';

const parts = { system: 0, messages: 0, whole: 0, previews: 0, pointers: 0, cut: 0 };
/** A ledger record of `tokens` estimated, with `reported` input tokens when given. */
const recordOf = (step: number, tokens: number, reported?: number, calibration?: number): RequestRecord => ({
  threadId: 't',
  step,
  at: step,
  tokens,
  tokensWithoutOffload: tokens,
  parts: { ...parts, messages: tokens },
  results: [],
  ...(reported === undefined ? {} : { reported: { inputTokens: reported } }),
  ...(calibration === undefined ? {} : { calibration }),
});

describe('calibrationFactor', () => {
  it('is the median ratio of reported to estimated tokens, robust to one odd reply', () => {
    const records = [recordOf(1, 1000, 1300), recordOf(2, 2000, 2600), recordOf(3, 1000, 9000)];
    expect(calibrationFactor(records)).toBe(1.3);
    // An even count: the mean of the two middle ratios (1.3 and 1.4 of 1.2, 1.3, 1.4, 9).
    const even = [recordOf(1, 1000, 1200), recordOf(2, 1000, 1300), recordOf(3, 1000, 1400), recordOf(4, 1000, 9000)];
    expect(calibrationFactor(even)).toBe(1.35);
  });

  it('needs three requests of at least 500 estimated tokens with reported usage', () => {
    expect(calibrationFactor([recordOf(1, 1000, 1300), recordOf(2, 1000, 1300)])).toBeUndefined();
    // A request too small to tell (a provider's framing dominates it) and one not reported do not count.
    const small = [
      recordOf(1, 1000, 1300),
      recordOf(2, 1000, 1300),
      recordOf(3, minCalibrationTokens - 1, 2000),
      recordOf(4, 2000),
    ];
    expect(calibrationFactor(small)).toBeUndefined();
    expect(calibrationFactor([...small, recordOf(5, minCalibrationTokens, minCalibrationTokens * 1.3)])).toBe(1.3);
  });

  it('never enlarges the budget, never shrinks it past a tenth, and reads only the newest 12 records', () => {
    const fewer = [1, 2, 3].map((step) => recordOf(step, 1000, 700));
    expect(calibrationFactor(fewer)).toBe(1);
    const absurd = [1, 2, 3].map((step) => recordOf(step, 1000, 1_000_000));
    expect(calibrationFactor(absurd)).toBe(10);
    const old = Array.from({ length: 20 }, (_, i) => recordOf(i + 1, 1000, 2000));
    const recent = Array.from({ length: 12 }, (_, i) => recordOf(i + 21, 1000, 1100));
    // Handed in any order (a custom store may answer with more than asked): the newest by step.
    expect(calibrationFactor([...recent, ...old].reverse())).toBe(1.1);
  });
});

describe('the calibrated budget and its event', () => {
  const budget = resolveContextBudget({ maxRequestTokens: 8000 })!;

  it('divides maxRequestTokens and clearAtLeastTokens by the factor; 1 leaves the budget as it is', () => {
    expect(calibratedBudget(budget, 1)).toBe(budget);
    expect(calibratedBudget(budget, 1.6)).toMatchObject({ maxRequestTokens: 5000, clearAtLeastTokens: 1250 });
  });

  it('starts from the newest request as the provider counted it: only what changed since is a guess', () => {
    // The newest request: 5000 estimated, reported 7000 (1.4, above the factor 1.3, say for a record in another script).
    const reported = newestReported([recordOf(1, 4000, 5200), recordOf(2, 5000, 7000)])!;
    // It grew by 1000 estimated tokens that cost 1800: what it adds is priced so (the next test); here, none.
    expect(reported).toEqual({
      tokens: 5000,
      inputTokens: 7000,
      system: 0,
      messages: 5000,
      results: [],
      growth: { most: 1.8, least: 1.8 },
    });
    const { growth: _, ...newest } = reported;
    const same = { system: 0, messages: 5000, results: [] };
    // 5000 + (8000 - 7000) / 1.3: smaller than 8000 / 1.3 = 6153, so it is the budget.
    expect(calibratedBudget(budget, 1.3, newest, same)).toMatchObject({
      maxRequestTokens: 5769,
      clearAtLeastTokens: 1538,
    });
    // A newest request counted lower than the factor says never enlarges the budget past maxRequestTokens / factor.
    const lower = { ...newest, inputTokens: 5000 };
    expect(calibratedBudget(budget, 1.3, lower, same).maxRequestTokens).toBe(6153);
    // One odd reply (more than 1.5 times the factor either way) is not a base: the factor alone holds.
    expect(calibratedBudget(budget, 1.3, { ...newest, inputTokens: 20_000 }, same).maxRequestTokens).toBe(6153);
    // A newest request over the budget as reported: the next one is fitted below it, never below 0.
    const over = { ...newest, tokens: 6500, inputTokens: 9000, messages: 6500 };
    expect(calibratedBudget(budget, 1.3, over, { ...same, messages: 6500 }).maxRequestTokens).toBe(5730);
    expect(newestReported([recordOf(1, 5000, 7000), recordOf(2, 5000)])).toBeUndefined();
    expect(newestReported([recordOf(1, minCalibrationTokens - 1, 700)])).toBeUndefined();
  });

  it('prices what a request adds at the most the thread’s growth cost, and what it drops at the least', () => {
    // Growth from consecutive reported steps: +1000 estimated cost 1200 (prose), +1000 cost 1600 (CJK); +100 tells too little.
    const records = [
      recordOf(1, 2000, 2600),
      recordOf(2, 3000, 3800),
      recordOf(3, 4000, 5400),
      recordOf(4, 4100, 5600),
    ];
    expect(newestReported(records)?.growth).toEqual({ most: 1.6, least: 1.2 });
    const newest: ReportedRequest = {
      tokens: 5000,
      inputTokens: 7000,
      system: 1000,
      messages: 1000,
      results: [{ toolCallId: 'a', shownAs: 'whole', tokens: 3000 }],
      growth: { most: 1.6, least: 1.2 },
    };
    // The prose result cleared to a 50-token pointer, a 1500-token CJK record added, 50 tokens of messages.
    const request = {
      system: 1000,
      messages: 1050,
      results: [
        { toolCallId: 'a', shownAs: 'pointer' as const, tokens: 50 },
        { toolCallId: 'b', shownAs: 'whole' as const, tokens: 1500 },
      ],
    };
    expect(changeSince(newest, request)).toEqual({ added: 1600, dropped: 3000 });
    // Expected: 7000 + 1.6 × 1600 − 1.2 × 3000 = 5960; the request (3600) may grow by (8000 − 5960) / 1.6 = 1275.
    expect(calibratedBudget(budget, 1.3, newest, request).maxRequestTokens).toBe(4875);
    // Nothing dropped and 1550 added: 7000 + 1.6 × 1550 = 9480 is over by 1480, which is 1234 estimated at 1.2 to drop.
    const grown = { ...request, results: [newest.results[0]!, request.results[1]!] };
    expect(calibratedBudget(budget, 1.3, newest, grown).maxRequestTokens).toBe(6550 - 1234);
    // The same request again: only its room is priced, at the most.
    expect(calibratedBudget(budget, 1.3, newest, newest).maxRequestTokens).toBe(5000 + Math.floor(1000 / 1.6));
    // A result shown the same way twice under one id (a reused id) is matched once each.
    const twice = { ...newest, results: [newest.results[0]!, newest.results[0]!] };
    expect(changeSince(newest, twice)).toEqual({ added: 3000, dropped: 0 });
    expect(changeSince(twice, newest)).toEqual({ added: 0, dropped: 3000 });
  });

  it('is told when the effective budget moves by more than 10% from the previous request’s', () => {
    expect(calibrationEvent('t', budget, 1, 1.3)).toEqual({
      type: 'context-calibrated',
      threadId: 't',
      factor: 1.3,
      effectiveBudget: 6153,
    });
    expect(calibrationEvent('t', budget, 1.3, 1.35)).toBeUndefined();
    expect(calibrationEvent('t', budget, 1, 1.1)).toBeUndefined();
    expect(calibrationEvent('t', budget, 1.6, 1)).toMatchObject({ factor: 1, effectiveBudget: 8000 });
    expect(previousFactor([recordOf(2, 10, undefined, 1.3), recordOf(1, 10, undefined, 2)])).toBe(1.3);
    expect(previousFactor([recordOf(1, 10)])).toBe(1);
  });
});

describe('fitContext with a calibrating budget', () => {
  /** Step n's conversation: n results of about 700 estimated tokens each, every one answered. */
  const stepsOf = (n: number) =>
    Array.from({ length: n }, (_, i) => ({ id: `c${i + 1}`, toolName: 'fetch_orders', text: textOf(700, `r${i}`) }));

  /** Runs `steps` requests, each reported as `ratio` times its estimate; what each fitting sent and told. */
  async function session(offload: ToolOutputOffload, steps: number, ratio: number, from = 1) {
    const sent: { tokens: number; events: string[] }[] = [];
    for (let n = from; n < from + steps; n++) {
      const fitted = await offload.fitContext(request('t', conversation(stepsOf(n))));
      sent.push({ tokens: fitted.tokens!, events: fitted.events.map((event) => event.type) });
      await fitted.reportUsage({ inputTokens: Math.round(fitted.tokens! * ratio) });
    }
    return sent;
  }

  it('keeps every request from the fifth on within maxRequestTokens as reported; calibrate: false does not', async () => {
    const maxRequestTokens = 4000;
    const store = new MemoryOffloadStore();
    const offload = new ToolOutputOffload({
      ledger: contextLedger,
      store,
      contextBudget: { maxRequestTokens, keepRecentResults: 1 },
    });
    const sent = await session(offload, 12, 1.3);
    expect(sent.slice(4).every(({ tokens }) => tokens * 1.3 <= maxRequestTokens)).toBe(true);
    expect(sent.flatMap(({ events }) => events).filter((type) => type === 'context-calibrated')).toHaveLength(1);
    const ledger = await ledgerOf(store, 't', 12);
    expect(ledger.slice(0, 3).every((record) => record.calibration === undefined)).toBe(true);
    expect(ledger.slice(3).map((record) => record.calibration)).toEqual(Array(9).fill(1.3));
    // The estimate stays the estimate: what was sent, as measured.
    expect(ledger.map((record) => record.tokens)).toEqual(sent.map(({ tokens }) => tokens));

    const plain = new ToolOutputOffload({
      ledger: contextLedger,
      store: new MemoryOffloadStore(),
      contextBudget: { maxRequestTokens, keepRecentResults: 1, calibrate: false },
    });
    const uncalibrated = await session(plain, 12, 1.3);
    expect(uncalibrated.slice(4).some(({ tokens }) => tokens * 1.3 > maxRequestTokens)).toBe(true);
    expect(uncalibrated.flatMap(({ events }) => events)).not.toContain('context-calibrated');
  });

  it('holds when the provider’s ratio rises mid-session: the next request starts from what the newest was reported', async () => {
    const maxRequestTokens = 4000;
    const offload = new ToolOutputOffload({
      ledger: contextLedger,
      store: new MemoryOffloadStore(),
      contextBudget: { maxRequestTokens, keepRecentResults: 1 },
    });
    // Six requests at 1.2, then the provider counts 1.45 (results in another script, say): the median lags.
    const before = await session(offload, 6, 1.2);
    const after = await session(offload, 8, 1.45, 7);
    expect(before.slice(4).every(({ tokens }) => tokens * 1.2 <= maxRequestTokens)).toBe(true);
    // The first request at the new ratio was fitted before any reply said so; every one after it holds.
    expect(after.slice(1).every(({ tokens }) => tokens * 1.45 <= maxRequestTokens)).toBe(true);
  });

  it('holds when a request drops prose and adds a text the provider counts higher: each change is priced on its own', async () => {
    const maxRequestTokens = 4000;
    const estimate = (text: string) => Math.ceil(text.length / 4);
    const offload = new ToolOutputOffload({
      ledger: contextLedger,
      store: new MemoryOffloadStore(),
      estimateTokens: estimate,
      // Clearing no more than it must, so requests are fitted close to the budget.
      contextBudget: { maxRequestTokens, keepRecentResults: 1, clearAtLeastTokens: 1 },
    });
    // The provider counts 1.3 an estimated token, and 1.6 for a record in another script (every third step, marked here).
    const other = (text: string) => text.startsWith('CJK');
    const stepOf = (i: number) =>
      i % 3 === 2
        ? { id: `c${i}`, toolName: 'fetch_record', text: `CJK ${textOf(1100, `k${i}`)}` }
        : { id: `c${i}`, toolName: 'fetch_page', text: textOf(500, `p${i}`) };
    const reported: number[] = [];
    for (let n = 1; n <= 24; n++) {
      const messages = conversation(Array.from({ length: n }, (_, i) => stepOf(i)));
      const fitted = await offload.fitContext(request('t', messages));
      const inOther = applied(messages, fitted).reduce(
        (sum, m) => sum + (m.role === 'tool' && other(m.text) ? estimate(m.text) : 0),
        0,
      );
      const inputTokens = Math.round(fitted.tokens! * 1.3 + inOther * 0.3);
      reported.push(inputTokens);
      await fitted.reportUsage({ inputTokens });
    }
    expect(Math.max(...reported.slice(4))).toBeLessThanOrEqual(maxRequestTokens);
  });

  it('changes nothing without reported usage', async () => {
    const store = new MemoryOffloadStore();
    const budget = { maxRequestTokens: 4000, keepRecentResults: 1 };
    const calibrating = new ToolOutputOffload({ ledger: contextLedger, store, contextBudget: budget });
    const plain = new ToolOutputOffload({
      ledger: contextLedger,
      store: new MemoryOffloadStore(),
      contextBudget: { ...budget, calibrate: false },
    });
    for (let n = 1; n <= 8; n++) {
      const [a, b] = [
        await calibrating.fitContext(request('t', conversation(stepsOf(n)))),
        await plain.fitContext(request('t', conversation(stepsOf(n)))),
      ];
      expect(a.tokens).toBe(b.tokens);
      expect(a.events).toEqual(b.events);
    }
    expect((await ledgerOf(store, 't', 8)).some((record) => 'calibration' in record)).toBe(false);
  });

  it('fits to the estimate alone when the ledger cannot be read (S3), and never fails the request', async () => {
    const store = new MemoryOffloadStore();
    const offload = new ToolOutputOffload({
      ledger: contextLedger,
      store,
      contextBudget: { maxRequestTokens: 4000, keepRecentResults: 1 },
    });
    await session(offload, 6, 1.3);
    const failing = vi.spyOn(store, 'requests').mockRejectedValue(new DOMException('gone', 'InvalidStateError'));
    const fitted = await offload.fitContext(request('t', conversation(stepsOf(7))));
    failing.mockRestore();
    expect(fitted.tokens).toBeLessThanOrEqual(4000);
    const ledger = await ledgerOf(store, 't', 7);
    expect(ledger[6]!.calibration).toBeUndefined();
    expect(ledger[5]!.calibration).toBe(1.3);
  });

  it('holds across a new offload over the same store (the factor is the ledger’s), told once', async () => {
    const store = new MemoryOffloadStore();
    const contextBudget = { maxRequestTokens: 4000, keepRecentResults: 1 };
    const first = await session(new ToolOutputOffload({ ledger: contextLedger, store, contextBudget }), 5, 1.3);
    const again = await session(new ToolOutputOffload({ ledger: contextLedger, store, contextBudget }), 5, 1.3, 6);
    expect(again.every(({ tokens }) => tokens * 1.3 <= 4000)).toBe(true);
    expect([...first, ...again].flatMap(({ events }) => events).filter((t) => t === 'context-calibrated')).toEqual([
      'context-calibrated',
    ]);
  });
});

describe('a ledger record’s calibration read back (S2)', () => {
  it('is a finite number of at least 1, or absent', () => {
    expect(requestProblem(recordOf(1, 10, 13, 1.3))).toBeUndefined();
    expect(requestProblem(recordOf(1, 10))).toBeUndefined();
    for (const bad of [0.5, Number.NaN, Number.POSITIVE_INFINITY, '1.3', null]) {
      expect(requestProblem({ ...recordOf(1, 10), calibration: bad })).toMatch(/^calibration /);
    }
  });
});
