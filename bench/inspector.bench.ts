import { expect, it } from 'vitest';
import { measureInspector10k } from './inspector-bench.js';
import { record } from './record.js';

/** The inspector over 10,000 entries (helpers in inspector-bench.ts): time to first rows, and rows in the DOM. */
const RUNS = 21;

it('inspector-10k-first-render-ms and inspector-10k-dom-rows', async () => {
  const measured = await measureInspector10k(10_000, RUNS);
  expect(measured['inspector-10k-dom-rows']).toBeGreaterThan(0);
  await record('inspector', [
    {
      name: 'inspector-10k-first-render-ms',
      value: measured['inspector-10k-first-render-ms'],
      unit: 'ms',
      goal: '<= 150',
      detail: `mountInspector to the first entry rows over a MemoryOffloadStore of 10,000 entries (its list() included), median of ${RUNS} mounts`,
    },
    {
      name: 'inspector-10k-first-render-panel-only-ms',
      value: measured['inspector-10k-first-render-panel-only-ms'],
      unit: 'ms',
      detail: `the same over a store whose reads answer at once: the panel's own cost, median of ${RUNS} mounts`,
    },
    {
      name: 'inspector-10k-dom-rows',
      value: measured['inspector-10k-dom-rows'],
      unit: 'rows',
      goal: '<= 100',
      detail: 'entry rows in the DOM after the first render of 10,000 entries (virtualized list)',
    },
  ]);
});
