// Runs every bench/*.bench.ts in one headless Chromium session and writes bench/results.json.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { chromium } from 'playwright';
import { chromiumArgs, ensureChromium } from '../scripts/browser.mjs';

const out = 'bench/.out';
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const only = process.argv.length > 2 ? process.argv.slice(2) : ['bench/'];
// The bundle figures are app builds measured from Node (bench/bundle/measure.mjs), not a bench file:
// `npm run bench -- bench/bundle` measures them alone.
const isBundle = (arg) => /^(\.\/)?bench\/bundle(\/|$)/.test(arg);
const benchFiles = only.filter((arg) => !isBundle(arg));
const bundles = only.some((arg) => isBundle(arg) || /^(\.\/)?bench\/?$/.test(arg));
if (benchFiles.length > 0) {
  execFileSync('node_modules/.bin/vitest', ['run', '--config', 'vitest.bench.config.ts', ...benchFiles], {
    stdio: 'inherit',
  });
}
if (bundles) {
  const { measureBundles } = await import('./bundle/measure.mjs');
  writeFileSync(`${out}/bundle.json`, JSON.stringify(await measureBundles(), null, 2));
}

const executablePath = await ensureChromium();
const browser = await chromium.launch({ executablePath, args: chromiumArgs });
const version = `Chromium ${browser.version()}`;
await browser.close();

const previous = existsSync('bench/results.json') ? JSON.parse(readFileSync('bench/results.json', 'utf8')).results : [];
const fresh = readdirSync(out).flatMap((f) => JSON.parse(readFileSync(`${out}/${f}`, 'utf8')));
const names = new Set(fresh.map((r) => r.name));
// A partial run (`npm run bench -- bench/x.bench.ts`) keeps the figures it did not measure.
const results = [...previous.filter((r) => !names.has(r.name)), ...fresh]
  .map(withVerdict)
  .sort((a, b) => a.name.localeCompare(b.name));
const machine = `${process.platform} ${process.arch}, ${(await import('node:os')).cpus().length} cores, Node ${process.version}`;
writeFileSync('bench/results.json', `${JSON.stringify({ browser: version, machine, results }, null, 2)}\n`);
rmSync(out, { recursive: true, force: true });
console.table(results.map(({ name, value, unit, ratio, goal, met }) => ({ name, value, unit, ratio, goal, met })));

/** A figure with a goal says whether it is met; `unmet` (why not, what was tried) stays only while it is not. */
function withVerdict(result) {
  const { met: _met, unmet, ...rest } = result;
  if (rest.goal === undefined) return rest;
  const [, sign, bound] = /^([<>]=) (-?[\d.]+)$/.exec(rest.goal) ?? [];
  if (sign === undefined)
    throw new Error(`bench: ${rest.name}: goal ${JSON.stringify(rest.goal)} is not '<= n' or '>= n'`);
  const met = sign === '<=' ? rest.value <= Number(bound) : rest.value >= Number(bound);
  return met || unmet === undefined ? { ...rest, met } : { ...rest, met, unmet };
}
