// Fails when a built file grows past its gzip budget, so growth is a decision, not an accident. Every
// entry in package.json "exports" must have a budget, and every other chunk of dist/ (shared, or
// loaded by dynamic import; hashed names) must match a chunk pattern with one. `node
// scripts/size-budget.mjs [dir]` checks the package in dir (default: the current directory).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

/** The package's entries, by the file an "exports" entry names. */
const entryBudgets = {
  // The offload alone since the re-cut (issue 21): the core, the stores, the read tools; re2js is
  // external here and loaded on the first grep/glob. With its chunks (was 44,150 for everything).
  // +1.6 KB (issue 22): whitespace, controls and lone surrogates priced as o200k does; a foreign
  // database adopted or refused by its layout.
  // +210 B (issue 24): unknown option names of offloadResult, systemPrompt and OffloadBackend refused.
  // +6,536 B (issues 23/24, 32,321 → 38,857): the context budget (fitContext: the measure with its
  // token cache, the clearing, the pointer's words, the ledger record) and the store's ledger and
  // cleared records (recordRequest, requests, cleared, their record checks, schema 4). An app without
  // a budget loads it too: every way in measures and records each request (the ledger).
  // +53 B (issue 31, 38,885 → 38,938): warnUnfitted, the once of a way in's unfitted-call warning (C8).
  // +655 B (38,857 → 39,512): the ledger's reported usage (recordUsage, its record checks, and
  // FittedContext.reportUsage, which every way in calls when the reply arrives).
  // +2,972 B (38,857 → 41,829): every stored byte readable — JSON laid out one record a line with its
  // shape in the preview (json-layout.ts), read_file's pages in parts of a line with the exact call
  // that continues them, text in text/* files decoded and counted.
  // +559 B: what the offload replaced results by kept as data, not parsed back from the
  // model's text (shown-texts.ts: previews by thread and call, each thread listed once and then
  // read by its store events; cut texts by their original's tokens), one storeResult for every write,
  // and the budget's plan apart from its store side (context/plan.ts). Still unmet: the goal is 15 kB.
  // Measured after every branch of this round was merged (each part's figure above was on its own
  // branch): index 43,547, agent 60,676, inspector 32,765 (its one table of read ops and change
  // registry, the thread-cleared event), testing 14,120 (the contract's concurrency, ledger-only clear
  // and recordUsage tests), langchain 3,431 and ai-sdk 5,445 (reported usage), all in B gzip. Then
  // the second round (+853 B index, +907 B agent): a clearing keyed by the result it cleared (a
  // reused call id), the budget's optional copy that never evicts, the ledger by the thread's own
  // counter with its newest record read alone, an estimator's fault counted at four characters a
  // token, and the offload's words in one file.
  // −2.9 KB (43,547+853 → 41,649): the context budget and ledger's offload side (fitContext's
  // pipeline: the plan, the clearing, the pointers, the token cache, the ledger's queue, the reported
  // usage) moved to its own entry, tool-output-offload/context, loaded only by an app that passes
  // `ledger: contextLedger`. The store keeps its ledger (its operations and record checks).
  // +8 B (42,008): the runtime's shorter idempotency keys and result keys in base64url (R9, A1).
  // +412 B (42,100 → 42,512): an evicted result's preview still known after a reload (C1/C4): the
  // eviction record keeps the call's id, tokens, header-only form and the preview's digest, and
  // shown-texts.ts reads the eviction log beside the entries.
  // −1,587 B (42,512 → 40,925): weight only where used. The staged protocol (stageResult,
  // commitStaged) is the agent's (lib/agent/offload-staging.ts); the record of what was shown
  // (shown-texts.ts) is made only by the context piece or the agent; the contextBudget check is the
  // context piece's.
  'dist/index.js': 41_000,
  // The context budget and ledger (`tool-output-offload/context`): ContextFitter over the plan
  // (context/plan.ts), the store side (context/fit.ts), the reported usage (context/usage.ts) and the
  // pointer's words: 4.5 KB of its own, with the chunks it shares with the main entry (the store's
  // read errors, the read tools' words), which an app that imports it loads anyway.
  // +747 B (21,500 → 22,247 on merging): the calibration (context/calibration.ts: the factor from
  // the ledger's newest records, C9) and the oldest pointers merged (plan.ts, words.ts: C10).
  // +70 B (22,300 → 22,370): the budget fitted from the newest request as reported (C9).
  // +747 B (22,459 → 23,206): what a request changed since the newest reported one, each part priced
  // on its own (C9: changeSince, the thread's growth range), and blocks of ten and fifty with the
  // pages merged and the request measured with its old pointers merged (C10).
  // +14 B: the shared read-error chunk (the eviction record's new fields checked).
  // +1,200 B (23,400 → 24,602): no new code — shown-texts.ts and the budget's check, which the main
  // entry no longer loads, are chunks the context entry imports now (index and context together:
  // 50,213 → 50,401 B, chunk boundaries).
  'dist/context.js': 24_700,
  // The built-in agent (`tool-output-offload/agent`): the runtime, file tools, Summarization,
  // models, and the offload its chunks share with the main entry.
  // +473 B (issue 24): unknown option names refused in every constructor and call that takes options.
  // +6,999 B (issues 23/24, 48,315 → 55,314): the main entry’s context budget and ledger, which it
  // shares, and the built-in way in (lib/agent/context-fit.ts).
  // +611 B (55,314 → 55,925): the main entry's reported usage, which it shares; −68 B: one copy of each
  // of the store's rules (the IndexedDB engine's record checks by one table, the log retention by one trim).
  // +3,132 B: the main entry's read-back (JSON layout, pages in parts of a line, text files counted)
  // it shares, and errors over the threshold stored as errors.
  // +485 B: the main entry's facts as data, which it shares (above).
  // −2.9 KB (61,583 → 58,612): the context budget and ledger in their own entry (above); an agent
  // app loads them only with `ledger: contextLedger`.
  // +475 B: the main entry's evicted previews known after a reload, which it shares (above).
  'dist/agent.js': 59_600,
  // +725 B (issue 31, 31,504 → 32,229): the Context chart's scale (bars and budget; the line without the offload marked off it, its peak written out), compact y labels, steps spread over the width, the budget line's name, evicted paths marked in the step's list.
  // +909 B (issue 32, 32,858 → 33,767): the Context tab's reported marks, cached parts, calibration and thread summary, the records' reported and calibration checked.
  'dist/inspector.js': 33_900, // +777 B on merging (33,100 → 33,877): the Context tab's reported marks, cached parts, factor and thread summary (issue 32, above); +80 B: the Context tab says how an offload records a ledger (`ledger: contextLedger`) when a thread has none, and the chunks the main entry's split shares; +2,070 B (issues 23/24, 29,428 → 31,498 on main with the Context tab, which took it from 22,810 to 29,428): the cleared marks and each thread's context budget (in the entries and the evictions; 'cleared' and 'latestRequest' forwarded and checked over the channel, re-read on the store's request events), the gauges in rows that wrap, paths by their tail; +275 B (issue 24): unknown option names of mountInspector and exposeToInspector refused; +77 B when its constants became module-local; +299 B: each thread's bound read from the store, over the channel too; +326 B: forged channel messages (issue 22); +1,709 B: the pager counts lines with the main entry's splitLines, which pulls in the shared chunk it lives in (store-read-error-*.js, 2.0 KB gzip, shared with the main entry: loaded anyway by an app that imports it)
  'dist/testing.js': 14_500, // +332 B: the store contract's recordUsage test; +2,447 B (issues 23/24): the store contract's ledger and cleared-record tests, and the store chunk it shares; +233 B (issue 24): unknown option names of scriptedModel and storeContract refused; +288 B: the contract's bound test; the store contract suite and scriptedModel, with the chunks they share with the other entries
  'dist/langchain.js': 3_450, // +286 B: text in text/* file, text-plain and document blocks offloaded with the text, errors offloaded and kept errors; +510 B (issue 23): each model request in the offload's words (tool specs through @langchain/core's toJsonSchema, external and loaded by any LangChain app) and the replaced ToolMessages
  // +220 B (issue 31): a tool call with no step fitted before it says so once (context-not-fitted, C8).
  'dist/ai-sdk.js': 5_500, // +1.6 KB (issue 33): AI SDK UI chats (offloadChat: the outgoing UI messages offloaded and fitted, the read tools answered in the page; offloadChatRoute: the route's declarations); +JSON measured as the SDK sends it and stored in the most readable form that fits; +1.3 KB (issue 23): the prepareStep that fits each step's request (the step's messages and tool specs as a ContextRequest, the replacements applied to a copy)
  // Chrome's built-in model through the Prompt API's own tools: offloadSession (tools' execute wrapped,
  // the read tools, the conversation kept and carried into a new session, the thresholds checked
  // against the window's reserve), contextBudgetFor.
  'dist/prompt-api.js': 4_300,
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
/** Every chunk some entry imports statically: counted in that entry's budget. */
const staticallyLoaded = [];

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
// A chunk no entry imports statically is loaded by a dynamic import: it needs a budget of its own.
for (const file of builtFiles.filter(
  (file) => !Object.hasOwn(entryBudgets, file) && !staticallyLoaded.includes(file),
)) {
  const matches = chunkBudgets.filter(({ pattern }) => pattern.test(file));
  if (matches.length === 0) {
    problems.push(`${file} is a chunk of the build with no budget: add a pattern for it to chunkBudgets`);
    continue;
  }
  check(file, Math.min(...matches.map(({ budget }) => budget)));
}

/**
 * An entry's budget covers what importing it loads: the entry and the chunks it imports statically,
 * transitively (the build splits code the entries share into chunks), gzipped together.
 */
function check(file, budget) {
  const loaded = staticClosure(file);
  const size = gzipSync(Buffer.concat(loaded.map((f) => readFileSync(join(dir, f))))).length;
  const ok = size <= budget;
  if (!ok) problems.push(`${file} is ${size} B gzip with the chunks it imports, over its budget of ${budget} B`);
  const withChunks = loaded.length > 1 ? ` with ${loaded.slice(1).join(', ')}` : '';
  console.log(`${ok ? 'ok  ' : 'OVER'} ${file}${withChunks}: ${size} B gzip (budget ${budget} B)`);
}

/** `file` and every dist/ chunk it imports statically, transitively, in the order first reached. */
function staticClosure(file) {
  const reached = [file];
  for (let i = 0; i < reached.length; i++) {
    const source = readFileSync(join(dir, reached[i]), 'utf8');
    for (const [, specifier] of source.matchAll(
      /(?:^|[;\n])\s*(?:import|export)\b[^'"()]*?from\s*["'](\.[^"']+)["']/g,
    )) {
      const target = join(reached[i], '..', specifier).replace(/\\/g, '/');
      if (!reached.includes(target)) reached.push(target);
    }
  }
  staticallyLoaded.push(...reached);
  return reached;
}

/** The .js files an "exports" value names (a path, or conditions such as { types, import }). */
function jsTargets(target) {
  if (typeof target === 'string') return target.endsWith('.js') ? [target.replace(/^\.\//, '')] : [];
  if (typeof target === 'object' && target !== null) return Object.values(target).flatMap(jsTargets);
  return [];
}

for (const problem of problems) console.log(`FAIL ${problem}`);
if (problems.length > 0) process.exit(1);
