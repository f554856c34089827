// O14: a JSON result stored to be read, and its preview's shape. The layout is valid JSON with the
// text's own tokens; the preview names every top-level key and each array's length; hostile JSON
// (huge depth, huge numbers of keys) is laid out or left as text, never a stack overflow.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { layoutJson } from '../../lib/offload/json-layout.js';
import { ToolOutputOffload } from '../../lib/offload/tool-output-offload.js';
import { estimateTokens } from '../../lib/shared/text.js';
import { MemoryOffloadStore } from '../../lib/store/memory-store.js';

const mb = 1_048_576;

async function previewOf(text: string, options: { thresholdTokens?: number; maxResultBytes?: number } = {}) {
  const offload = new ToolOutputOffload({ store: new MemoryOffloadStore(), thresholdTokens: 1000, ...options });
  const shown = await offload.offloadResult({ threadId: 't', callId: 'c', toolName: 'api', content: text });
  const stored = shown.path === undefined ? undefined : await offload.store.read('t', shown.path.split('/').pop()!);
  return { shown, stored };
}

describe('layoutJson', () => {
  it('lays out any JSON object or array as valid JSON of the same value, one large container member a line', () => {
    fc.assert(
      fc.property(fc.oneof(fc.array(fc.jsonValue()), fc.dictionary(fc.string(), fc.jsonValue())), (value) => {
        const text = JSON.stringify(value);
        const json = layoutJson(text, mb)!;
        expect(json.layout).toBe('records');
        expect(JSON.parse(json.text)).toEqual(JSON.parse(text));
        for (const line of json.text.split('\n')) expect(line.length).toBeLessThanOrEqual(2000 + 200 + 64);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps numbers and escapes as written, and pretty JSON comes out the same as compact', () => {
    const records = Array.from({ length: 300 }, (_, i) => `{"id":12345678901234567890${i},"s":"a\\u00e9\\n${i}"}`);
    const compact = `{"items":[${records.join(',')}]}`;
    const laid = layoutJson(compact, mb)!.text;
    expect(laid.split('\n')).toEqual([
      '{',
      ' "items": [',
      ...records.map((r, i) => `  ${r}${i < 299 ? ',' : ''}`),
      ' ]',
      '}',
    ]);
    const pretty = JSON.stringify(JSON.parse(compact), null, 2);
    expect(layoutJson(`\n  ${compact.replaceAll(',', ', ')}  \n`, mb)!.text).toBe(laid);
    expect(layoutJson(pretty, mb)!.layout).toBe('records');
  });

  it('packs runs of small array elements on shared lines', () => {
    const numbers = Array.from({ length: 5000 }, (_, i) => i);
    const laid = layoutJson(JSON.stringify(numbers), mb)!.text;
    expect(laid.split('\n').length).toBeLessThan(5000 / 20);
    expect(JSON.parse(laid)).toEqual(numbers);
  });

  it('is compact when the laid-out form is over maxResultBytes, and nothing for text that is not an object or array', () => {
    const text = JSON.stringify(Array.from({ length: 2000 }, (_, i) => ({ id: i, name: `n${i}` })));
    expect(layoutJson(text, text.length)).toMatchObject({ layout: 'compact', text });
    for (const notJson of ['"a string"', '42', 'null', '{"a":1', '[1,2,', 'not json {', '{} trailing']) {
      expect(layoutJson(notJson, mb)).toBeUndefined();
    }
  });

  it('survives hostile JSON: 100,000 levels deep and 200,000 keys, never overflowing the stack', () => {
    const deep = `${'['.repeat(100_000)}1${']'.repeat(100_000)}`;
    const laid = layoutJson(deep, 10 * mb);
    // Laid out a few levels, the rest compact; or left as text when the engine cannot parse it.
    if (laid !== undefined) expect(laid.text.replace(/\s/g, '')).toBe(deep);
    const wide = JSON.stringify(Object.fromEntries(Array.from({ length: 200_000 }, (_, i) => [`k${i}`, i])));
    const wideLaid = layoutJson(wide, 10 * mb)!;
    expect(wideLaid.text.split('\n')).toHaveLength(200_002);
  });
});

describe('the preview of a JSON result (O14)', () => {
  it('says it is JSON and how it was laid out; names every top-level key and each array length, nested', async () => {
    const value = {
      users: Array.from({ length: 700 }, (_, i) => ({
        id: i,
        tags: ['a', 'b'],
        address: { city: `c${i}`, zip: 1000 + i },
      })),
      total: 700,
      cursor: null,
      meta: { pages: [1, 2, 3], source: 'api' },
    };
    const { shown, stored } = await previewOf(JSON.stringify(value));
    expect(shown.text).toContain('Format: JSON, stored one record a line');
    expect(shown.text).toContain('Shape: an object of 4 keys:');
    expect(shown.text).toContain(
      '  "users": array(700) of object {"id": number, "tags": array(2) of string, "address": object {"city": string, "zip": number}}',
    );
    expect(shown.text).toContain('  "total": number');
    expect(shown.text).toContain('  "cursor": null');
    expect(shown.text).toContain('  "meta": object {"pages": array(3) of number, "source": string}');
    expect(shown.text).toMatch(/First \d+ of 707 lines:\n\{\n "users": \[\n {2}\{"id":0,/);
    expect(estimateTokens(shown.text)).toBeLessThanOrEqual(1000);
    expect(JSON.parse(stored!)).toEqual(value);
  });

  it('wide: every top-level key is named, with its array lengths', async () => {
    const value = Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`field_${i}`, Array(i).fill(i)]));
    const { shown } = await previewOf(JSON.stringify(value), { thresholdTokens: 5000 });
    for (let i = 0; i < 150; i++) expect(shown.text).toContain(`"field_${i}": array(${i})`);
  });

  it('deep: the top-level keys and array lengths, however deep the value', async () => {
    let deep: unknown = { leaf: 'x'.repeat(5000) };
    for (let i = 0; i < 500; i++) deep = { [`level${i}`]: [deep, deep] };
    const value = { root: deep, list: Array.from({ length: 3 }, () => 'y'.repeat(3000)) };
    const { shown } = await previewOf(JSON.stringify({ ...value, root: { level: 'z'.repeat(10_000) } }));
    expect(shown.text).toContain('"root": object {"level": string}');
    expect(shown.text).toContain('"list": array(3) of string');
  });

  it('an array at the top: its length and element shape; empty containers are said to be empty', async () => {
    const { shown } = await previewOf(
      JSON.stringify(Array.from({ length: 900 }, (_, i) => ({ n: i, s: 'v'.repeat(20) }))),
    );
    expect(shown.text).toContain('Shape: an array of 900 elements:\n  array(900) of object {"n": number, "s": string}');
    const empty = await previewOf(`{"empty": [], "none": {}, "pad": "${'p'.repeat(5000)}"}`);
    expect(empty.shown.text).toContain('"empty": array(0)');
    expect(empty.shown.text).toContain('"none": object {}');
  });

  it('JSON that is not an object or array, and text that only looks like JSON, are stored as text', async () => {
    for (const text of [JSON.stringify('s'.repeat(6000)), `{"broken": ${'1'.repeat(6000)}`]) {
      const { shown, stored } = await previewOf(text);
      expect(shown.kind).toBe('stored');
      expect(shown.text).not.toContain('Format: JSON');
      expect(stored).toBe(text);
    }
  });

  it('a JSON result within the threshold is unchanged', async () => {
    const text = JSON.stringify({ a: [1, 2, 3], b: 'small' });
    const { shown } = await previewOf(text);
    expect(shown).toMatchObject({ kind: 'kept', text });
  });

  it('laid out over maxResultBytes: stored compact, then cut, and the header says so', async () => {
    const text = JSON.stringify(Array.from({ length: 3000 }, (_, i) => ({ id: i, name: `name ${i}` })));
    const { shown, stored } = await previewOf(text, { maxResultBytes: 20_000 });
    expect(shown.text).toContain('Format: JSON, stored compact on one line');
    expect(shown.text).toContain('the text was cut to the maxResultBytes limit');
    expect(stored).toBe(text.slice(0, 20_000));
  });
});

describe('the tail marker', () => {
  it('appears only when lines were left out', async () => {
    const offload = new ToolOutputOffload({
      store: new MemoryOffloadStore(),
      thresholdTokens: 5000,
      previewLines: 5,
      previewTailLines: 5,
    });
    // Ten long lines: each shown cut, all ten shown.
    const ten = Array.from({ length: 10 }, (_, i) => `line ${i} ${'x'.repeat(5000)}`).join('\n');
    const shown = await offload.offloadResult({ threadId: 't', callId: 'c', toolName: 'emit', content: ten });
    expect(shown.kind).toBe('stored');
    expect(shown.text).toContain('line 9 x');
    expect(shown.text).not.toMatch(/\[… \d+ lines? not shown …\]/);
    const twenty = Array.from({ length: 20 }, (_, i) => `line ${i} ${'x'.repeat(2000)}`).join('\n');
    const more = await offload.offloadResult({ threadId: 't', callId: 'd', toolName: 'emit', content: twenty });
    expect(more.text).toMatch(/\[… \d+ lines not shown …\]/);
    expect(more.text).not.toContain('[… 0 lines');
  });
});
