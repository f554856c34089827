// Fails when a built file grows past its gzip budget, so growth is a decision, not an accident. Every
// entry in package.json "exports" must have a budget, and every other chunk of dist/ (shared, or
// loaded by dynamic import; hashed names) must match a chunk pattern with one. `node
// scripts/size-budget.mjs [dir]` checks the package in dir (default: the current directory).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

/** The package's entries, by the file an "exports" entry names. */
const entryBudgets = {
  'dist/index.js': 44_150, // streaming models and the SSE reader; token estimates (estimateTokensByScript, the measure); evictions by key; per-tool thresholds on file-tool pages
  // The built-in agent's entry (`tool-output-offload/agent`), checked once package.json exports it or
  // it is built: at most what the main entry holds today; set from its first build after the re-cut.
  'dist/agent.js': 44_150,
  'dist/inspector.js': 20_500, // +77 B when its constants became module-local: the unminified library build inlines only exported ones; +300 B for each thread's bound from the store (issue 21)
  'dist/testing.js': 8_300, // +290 B: the store contract's test of a thread's bound (issue 21)
  'dist/langchain.js': 2_500,
  'dist/ai-sdk.js': 2_000,
};

/**
 * Chunks the build splits off (shared by entries, or loaded by dynamic import), matched by name since
 * the name ends in a hash. Dependencies stay external in this build (vite.config.ts), so a lazy
 * `import('re2js')` makes no chunk here: its weight is in the bench's `bundle-*-lazy-gzip-kb`.
 */
const chunkBudgets = [
  { pattern: /^dist\/model-stream-[\w-]+\.js$/, budget: 1_600 }, // the stream helpers the main entry and the adapters share
];

const dir = process.argv[2] ?? '.';
const exportsField = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).exports ?? {};
const exported = new Set(Object.values(exportsField).flatMap(jsTargets));
const builtFiles = existsSync(join(dir, 'dist'))
  ? readdirSync(join(dir, 'dist'))
      .filter((name) => name.endsWith('.js'))
      .map((name) => `dist/${name}`)
  : [];
const problems = [];

for (const file of exported) {
  if (!Object.hasOwn(entryBudgets, file)) {
    problems.push(`${file} is an entry in package.json "exports" with no budget: add it to entryBudgets`);
  }
}
for (const [file, budget] of Object.entries(entryBudgets)) {
  if (!existsSync(join(dir, file))) {
    if (exported.has(file)) problems.push(`${file} is in package.json "exports" but not built: run npm run build`);
    else console.log(`--   ${file}: not built and not in "exports" (no budget checked)`);
    continue;
  }
  check(file, budget);
}
for (const file of builtFiles.filter((file) => !Object.hasOwn(entryBudgets, file))) {
  const matches = chunkBudgets.filter(({ pattern }) => pattern.test(file));
  if (matches.length === 0) {
    problems.push(`${file} is a chunk of the build with no budget: add a pattern for it to chunkBudgets`);
    continue;
  }
  check(file, Math.min(...matches.map(({ budget }) => budget)));
}

function check(file, budget) {
  const size = gzipSync(readFileSync(join(dir, file))).length;
  const ok = size <= budget;
  if (!ok) problems.push(`${file} is ${size} B gzip, over its budget of ${budget} B`);
  console.log(`${ok ? 'ok  ' : 'OVER'} ${file}: ${size} B gzip (budget ${budget} B)`);
}

/** The .js files an "exports" value names (a path, or conditions such as { types, import }). */
function jsTargets(target) {
  if (typeof target === 'string') return target.endsWith('.js') ? [target.replace(/^\.\//, '')] : [];
  if (typeof target === 'object' && target !== null) return Object.values(target).flatMap(jsTargets);
  return [];
}

for (const problem of problems) console.log(`FAIL ${problem}`);
if (problems.length > 0) process.exit(1);
