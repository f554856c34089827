import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// The README's benchmark table shows what `npm run bench` last wrote to bench/results.json: every
// figure that has a goal, with its value, its goal and whether it is met. Its weight table ("What it
// weighs") shows every bundle weight, what an app loads and what the first grep adds. A bench run
// that changes a figure updates both tables in the same commit.

const root = new URL('../..', import.meta.url).pathname;

interface Figure {
  name: string;
  value: number;
  goal?: string;
  met?: boolean;
}

interface Row {
  value: number;
  goal: string;
  met: string;
}

/** The rows of the README's table under `## Benchmarks`, by figure name. */
function figureRows(readme: string): Map<string, Row> {
  const section = readme.split(/^## /m).find((part) => part.startsWith('Benchmarks\n')) ?? '';
  const rows = new Map<string, Row>();
  for (const m of section.matchAll(/^\| `([\w-]+)` *\| *([^|]*?) *\| *([^|]*?) *\| *([^|]*?) *\|$/gm)) {
    rows.set(m[1]!, { value: Number.parseFloat(m[2]!), goal: m[3]!, met: m[4]! });
  }
  return rows;
}

/** How the README writes a goal: `<= 1.5` as `≤ 1.5`. */
function shownGoal(goal: string | undefined): string {
  return (goal ?? '').replace('<=', '≤').replace('>=', '≥');
}

/** Every difference between the README's rows and the figures, as `name: what`. */
function differences(rows: Map<string, Row>, figures: readonly Figure[]): string[] {
  const byName = new Map(figures.map((figure) => [figure.name, figure]));
  const found: string[] = [];
  for (const figure of figures) {
    if (figure.goal !== undefined && !rows.has(figure.name)) found.push(`${figure.name}: has a goal but no row`);
  }
  for (const [name, row] of rows) {
    const figure = byName.get(name);
    if (!figure) {
      found.push(`${name}: not in bench/results.json`);
      continue;
    }
    if (row.value !== figure.value) found.push(`${name}: the README shows ${row.value}, results.json ${figure.value}`);
    if (row.goal !== shownGoal(figure.goal)) {
      found.push(`${name}: the README's goal is "${row.goal}", results.json's "${figure.goal ?? ''}"`);
    }
    const met = figure.met === undefined ? '' : figure.met ? 'yes' : 'no';
    if (row.met !== met) found.push(`${name}: the README says met "${row.met}", results.json "${met}"`);
  }
  return found;
}

/** A row of the weight table: what it shows, loaded and on the first grep, and the two figures it names. */
interface WeightRow {
  loads: string;
  lazy: string;
  figures: [string, string];
}

/** The rows of the README's table under `## What it weighs`. */
function weightRows(readme: string): WeightRow[] {
  const section = readme.split(/^## /m).find((part) => part.startsWith('What it weighs\n')) ?? '';
  return [...section.matchAll(/^\| [^|]+ \| *([^|]*?) *\| *([^|]*?) *\| *`([\w-]+)`, `([\w-]+)` *\|$/gm)].map((m) => ({
    loads: m[1]!,
    lazy: m[2]!,
    figures: [m[3]!, m[4]!],
  }));
}

/** How the weight table writes a figure: kB, with a "+" for what the package adds (an increment, a lazy chunk). */
function shownWeight(figure: Figure, added: boolean): string {
  return `${added ? '+' : ''}${figure.value} kB`;
}

/** Every difference between the weight table and the figures: each bundle weight has a row, and each row its figures' values. */
function weightDifferences(rows: readonly WeightRow[], figures: readonly Figure[]): string[] {
  const byName = new Map(figures.map((figure) => [figure.name, figure]));
  const found: string[] = [];
  const shown = new Set(rows.map((row) => row.figures[0]));
  for (const figure of figures) {
    if (/^bundle-.*-gzip-kb$/.test(figure.name) && !figure.name.endsWith('-lazy-gzip-kb') && !shown.has(figure.name)) {
      found.push(`${figure.name}: no row in the weight table`);
    }
  }
  for (const {
    loads,
    lazy,
    figures: [initial, lazyName],
  } of rows) {
    const loaded = byName.get(initial);
    const onGrep = byName.get(lazyName);
    if (!loaded || !onGrep) {
      found.push(`${initial}, ${lazyName}: not both in bench/results.json`);
      continue;
    }
    if (lazyName !== initial.replace(/-gzip-kb$/, '-lazy-gzip-kb'))
      found.push(`${initial}: its lazy figure is ${lazyName}`);
    const expected = shownWeight(loaded, initial.includes('-increment-'));
    if (loads !== expected) found.push(`${initial}: the weight table shows "${loads}", results.json "${expected}"`);
    if (lazy !== shownWeight(onGrep, true)) {
      found.push(`${lazyName}: the weight table shows "${lazy}", results.json "${shownWeight(onGrep, true)}"`);
    }
  }
  return found;
}

describe("the README's weight table", () => {
  it('shows every bundle weight of bench/results.json, loaded and on the first grep', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const { results } = JSON.parse(readFileSync(join(root, 'bench/results.json'), 'utf8')) as { results: Figure[] };
    const rows = weightRows(readme);
    expect(rows.map((row) => row.figures[0])).toEqual(
      expect.arrayContaining(['bundle-offload-gzip-kb', 'bundle-agent-gzip-kb', 'bundle-inspector-increment-gzip-kb']),
    );
    expect(weightDifferences(rows, results)).toEqual([]);
  });

  it('the check names each row that differs, and each bundle weight left out', () => {
    const readme = [
      '## What it weighs',
      '| the app | loads | first grep | figures |',
      '| --- | --- | --- | --- |',
      '| offload | 27.91 kB | +45.17 kB | `bundle-a-gzip-kb`, `bundle-a-lazy-gzip-kb` |',
      '| adapter | 28.8 kB | +45.17 kB | `bundle-b-increment-gzip-kb`, `bundle-b-increment-lazy-gzip-kb` |',
      '| gone | 1 kB | +0 kB | `bundle-gone-gzip-kb`, `bundle-gone-lazy-gzip-kb` |',
      '## Why',
    ].join('\n');
    const figures: Figure[] = [
      { name: 'bundle-a-gzip-kb', value: 27.91 },
      { name: 'bundle-a-lazy-gzip-kb', value: 45.17 },
      { name: 'bundle-b-increment-gzip-kb', value: 28.82 },
      { name: 'bundle-b-increment-lazy-gzip-kb', value: 45.17 },
      { name: 'bundle-c-gzip-kb', value: 3 },
      { name: 'bundle-c-lazy-gzip-kb', value: 0 },
      { name: 'bundle-offload-eval-ms', value: 77 },
    ];
    expect(weightDifferences(weightRows(readme), figures)).toEqual([
      'bundle-c-gzip-kb: no row in the weight table',
      'bundle-b-increment-gzip-kb: the weight table shows "28.8 kB", results.json "+28.82 kB"',
      'bundle-gone-gzip-kb, bundle-gone-lazy-gzip-kb: not both in bench/results.json',
    ]);
  });
});

describe("the README's benchmark figures", () => {
  it('are those of bench/results.json: every figure with a goal, its value, goal and whether met', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const { results } = JSON.parse(readFileSync(join(root, 'bench/results.json'), 'utf8')) as { results: Figure[] };
    const rows = figureRows(readme);
    expect(rows.size).toBeGreaterThan(10);
    expect(differences(rows, results)).toEqual([]);
  });

  it('the check names each row that differs, and each figure with a goal left out', () => {
    const readme = [
      '## Benchmarks',
      '| figure | value | goal | met |',
      '| --- | --- | --- | --- |',
      '| `a-ms` | 3.8 ms | ≤ 10 | yes |',
      '| `b-vs-c` | 2.24× | ≤ 1.25 | no |',
      '| `d-ms` | 0.6 ms | | |',
      '| `gone` | 1 | | |',
      '## API in brief',
      '| `e-ms` | 1 ms | ≤ 2 | yes |',
    ].join('\n');
    const figures: Figure[] = [
      { name: 'a-ms', value: 3.8, goal: '<= 10', met: true },
      { name: 'b-vs-c', value: 3.08, goal: '<= 1.5', met: false },
      { name: 'd-ms', value: 0.6 },
      { name: 'e-ms', value: 1, goal: '<= 2', met: true },
    ];
    expect(differences(figureRows(readme), figures)).toEqual([
      'e-ms: has a goal but no row',
      'b-vs-c: the README shows 2.24, results.json 3.08',
      'b-vs-c: the README\'s goal is "≤ 1.25", results.json\'s "<= 1.5"',
      'gone: not in bench/results.json',
    ]);
  });
});
