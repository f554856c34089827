import { commands } from 'vitest/browser';

/** One measured figure. `ratio` is set when `value` compares two things measured side by side. */
export interface BenchResult {
  name: string;
  value: number;
  unit: string;
  ratio?: number;
  /** '<= n' or '>= n' against `value`; `bench/run.mjs` adds whether it is `met`. */
  goal?: string;
  detail?: string;
  /** Why the goal is out of reach and what was tried; `bench/run.mjs` keeps it only while the goal is not met. */
  unmet?: string;
}

/** Writes a bench file's results where `bench/run.mjs` collects them into bench/results.json. */
export async function record(file: string, results: BenchResult[]): Promise<void> {
  await commands.writeFile(`bench/.out/${file}.json`, JSON.stringify(results, null, 2));
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * Runs `a` and `b` alternately `runs` times (after `warmup` rounds of each) and returns the median
 * duration of each in milliseconds, so both see the same browser state and machine load.
 */
export async function interleaved(
  runs: number,
  a: () => Promise<unknown> | unknown,
  b: () => Promise<unknown> | unknown,
  warmup = 3,
): Promise<{ a: number; b: number }> {
  for (let i = 0; i < warmup; i++) {
    await a();
    await b();
  }
  const times = { a: [] as number[], b: [] as number[] };
  for (let i = 0; i < runs; i++) {
    let start = performance.now();
    await a();
    times.a.push(performance.now() - start);
    start = performance.now();
    await b();
    times.b.push(performance.now() - start);
  }
  return { a: median(times.a), b: median(times.b) };
}

/** Median duration of `runs` runs of `fn`, in milliseconds. */
export async function timed(runs: number, fn: () => Promise<unknown> | unknown, warmup = 3): Promise<number> {
  for (let i = 0; i < warmup; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  return median(times);
}
