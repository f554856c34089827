import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// The figures shown are what `npm run bench` last wrote to bench/results.json. bench/README.md's
// table has every figure that has a goal, with its value, its goal and whether it is met. The
// README's weight table shows every bundle weight, what an app loads and what the first grep adds,
// and its session table what a session saves (values only: goals and misses are bench/README.md's).
// A bench run that changes a figure updates the tables in the same commit.

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

/** The README's section with the weight and session tables. */
const figuresHeading = 'What it weighs and what it saves\n';

/** The rows of the table under `## Figures` (bench/README.md), by figure name. */
function figureRows(markdown: string): Map<string, Row> {
  const section = markdown.split(/^## /m).find((part) => part.startsWith('Figures\n')) ?? '';
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

/** The rows of the README's weight table. */
function weightRows(readme: string): WeightRow[] {
  const section = readme.split(/^## /m).find((part) => part.startsWith(figuresHeading)) ?? '';
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
      `## ${figuresHeading}| the app | loads | first grep | figures |`,
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

/** The rows of the README's session table: a figure's value, by name (no goal). */
function sessionRows(readme: string): Map<string, number> {
  const section = readme.split(/^## /m).find((part) => part.startsWith(figuresHeading)) ?? '';
  const rows = new Map<string, number>();
  for (const m of section.matchAll(/^\| [^|]+ \| *([\d.]+) *\| *`([\w-]+)` *\|$/gm)) rows.set(m[2]!, Number(m[1]));
  return rows;
}

describe("the README's session table", () => {
  it('shows what a session saves, each value as bench/results.json has it', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const { results } = JSON.parse(readFileSync(join(root, 'bench/results.json'), 'utf8')) as { results: Figure[] };
    const rows = sessionRows(readme);
    expect([...rows.keys()]).toEqual(
      expect.arrayContaining(['context-tokens-vs-no-offload', 'context-tokens-budget-vs-offload']),
    );
    const byName = new Map(results.map((figure) => [figure.name, figure.value]));
    expect([...rows].filter(([name, value]) => byName.get(name) !== value)).toEqual([]);
  });

  it('the check reads each row as figure and value', () => {
    const readme = `## ${figuresHeading}| in the session | value | figure |\n| --- | --- | --- |\n| tokens | 0.0132 | \`a-vs-b\` |\n## Next`;
    expect([...sessionRows(readme)]).toEqual([['a-vs-b', 0.0132]]);
  });
});

describe("bench/README.md's figures table", () => {
  it('are those of bench/results.json: every figure with a goal, its value, goal and whether met', () => {
    const bench = readFileSync(join(root, 'bench/README.md'), 'utf8');
    const { results } = JSON.parse(readFileSync(join(root, 'bench/results.json'), 'utf8')) as { results: Figure[] };
    const rows = figureRows(bench);
    expect(rows.size).toBeGreaterThan(10);
    expect(differences(rows, results)).toEqual([]);
  });

  it('the check names each row that differs, and each figure with a goal left out', () => {
    const readme = [
      '## Figures',
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
