// The inspector's options, as test/node/options-unknown.test.ts checks the rest of the package's: a
// misspelled name is a TypeError naming it, never a default used silently. Here because mounting
// needs a DOM.
import { afterEach, describe, expect, it } from 'vitest';
import { exposeToInspector, mountInspector } from '../../inspector/index.js';
import { MemoryOffloadStore } from '../../lib/index.js';

const unmounts: Array<() => void> = [];
afterEach(() => {
  for (const unmount of unmounts.splice(0)) unmount();
  document.body.replaceChildren();
});

/** The call, its result kept for cleanup when it does not throw. */
function kept(call: () => () => void): () => void {
  return () => {
    unmounts.push(call());
  };
}

const store = new MemoryOffloadStore();
const cases: Array<[what: string, misspelled: string, call: (extra: Record<string, unknown>) => () => void]> = [
  [
    'mountInspector, options',
    'popoutUrl',
    (extra) => mountInspector(document.body, { store }, { mode: 'floating', ...extra }),
  ],
  ['mountInspector, source', 'chanel', (extra) => mountInspector(document.body, { store, ...extra } as never)],
  ['exposeToInspector', 'bounds', (extra) => exposeToInspector(store, { channel: 'options-test', ...extra })],
];

describe("the inspector's unknown option names", () => {
  it.each(cases)('%s: is a TypeError naming it (%s)', (_what, misspelled, call) => {
    expect(kept(() => call({ [misspelled]: 1 }))).toThrow(TypeError);
    expect(kept(() => call({ [misspelled]: 1 }))).toThrow(`"${misspelled}"`);
  });

  it.each(cases)('%s: the options as spelled are taken', (_what, _misspelled, call) => {
    expect(kept(() => call({}))).not.toThrow();
  });
});
