// The readback bench's corpus: the commonest large tool outputs that are not ordinary lines of text,
// 100 KB–2 MB each, made from a seed so every run reads the same texts.
import { seeded } from './estimator-corpus.js';

const words = [
  'alpha',
  'beta',
  'gamma',
  'delta',
  'order',
  'shipped',
  'open',
  'error',
  'timeout',
  'user',
  'cart',
  'item',
];

function orders(count: number, random: () => number) {
  return Array.from({ length: count }, (_, i) => ({
    id: 100_000 + i,
    status: words[Math.floor(random() * words.length)],
    customer: { name: `Customer ${i}`, email: `c${i}@example.com`, tier: random() > 0.8 ? 'gold' : 'basic' },
    items: Array.from({ length: 1 + Math.floor(random() * 3) }, (_, j) => ({ sku: `SKU-${i}-${j}`, qty: 1 + j })),
    total: Math.round(random() * 100_000) / 100,
    note: random() > 0.7 ? 'gift wrap, leave at the door' : null,
  }));
}

/** Base64 of UTF-8 text, as an API returns a file's bytes. */
function base64Of(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** The corpus, by name: every item one text as a tool returns it. */
export function readbackCorpus(seed = 29): Record<string, string> {
  const random = seeded(seed);
  const sentence = (n: number) => Array.from({ length: n }, () => words[Math.floor(random() * words.length)]).join(' ');
  // 40 records of 50 KB each: an event log whose every line is one record.
  const ndjson = Array.from({ length: 40 }, (_, i) => {
    const payload = Array.from({ length: 800 }, () => sentence(12))
      .join('. ')
      .slice(0, 49_960);
    return JSON.stringify({ id: i, kind: 'event', payload });
  });
  return {
    'one-line JSON (2,000 orders)': JSON.stringify({ orders: orders(2000, random), page: 1, next: 'cursor-2' }),
    'pretty JSON': JSON.stringify({ orders: orders(1500, random), page: 2 }, null, 2),
    'one-line HTML': `<!doctype html><html><body>${Array.from({ length: 3000 }, (_, i) => `<div class="row" id="r${i}"><a href="/p/${i}">${sentence(6)}</a></div>`).join('')}</body></html>`,
    'minified script': Array.from(
      { length: 6000 },
      (_, i) => `function f${i}(a,b){return a*${i}+b.${words[i % words.length]}}`,
    ).join(';'),
    'NDJSON, 50 KB records': ndjson.join('\n'),
    CSV: [
      'id,name,email,city,amount,status',
      ...Array.from(
        { length: 5000 },
        (_, i) =>
          `${i},Customer ${i},c${i}@example.com,${words[i % 12]} city,${(random() * 1000).toFixed(2)},${words[(i * 7) % 12]}`,
      ),
    ].join('\n'),
    'base64 text': base64Of(Array.from({ length: 2000 }, () => sentence(8)).join('\n')),
    'CRLF logs': Array.from(
      { length: 3000 },
      (_, i) => `2026-12-02T01:${String(i % 60).padStart(2, '0')}:00Z INFO request ${i} ${sentence(10)}`,
    ).join('\r\n'),
  };
}
