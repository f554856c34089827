// Fails when a built entry grows past its gzip budget, so growth is a decision, not an accident.
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

const budgets = {
  'dist/index.js': 45_300, // streaming models and the SSE reader; token estimates (estimateTokensByScript, the measure); evictions by key; per-tool thresholds on file-tool pages; +1.1 KB: grep over stored chunks by ranges of lines, re2js loaded on first use (45 KB less in an app's initial chunk), the key hashed in slices, Backend.readLines
  'dist/inspector.js': 20_100, // +77 B when its constants became module-local: the unminified library build inlines only exported ones
  'dist/testing.js': 1_000,
  'dist/langchain.js': 2_500,
  'dist/ai-sdk.js': 2_000,
};

let over = false;
for (const [file, budget] of Object.entries(budgets)) {
  const size = gzipSync(readFileSync(file)).length;
  const ok = size <= budget;
  over ||= !ok;
  console.log(`${ok ? 'ok  ' : 'OVER'} ${file}: ${size} B gzip (budget ${budget} B)`);
}
if (over) process.exit(1);
