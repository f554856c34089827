// Finds a Chromium for the browser tests, installing Debian's when none is there.
// Order: $CHROMIUM_PATH, /usr/bin/chromium, Playwright's own download; else apt-get (as root).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export const chromiumArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

async function playwrightChromium() {
  try {
    const { chromium } = await import('playwright');
    const path = chromium.executablePath();
    return path && existsSync(path) ? path : undefined;
  } catch {
    return undefined;
  }
}

/** The path of a usable Chromium, or undefined. */
export async function findChromium() {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw new Error(`CHROMIUM_PATH is set to ${fromEnv}, which does not exist`);
    return fromEnv;
  }
  if (existsSync('/usr/bin/chromium')) return '/usr/bin/chromium';
  return playwrightChromium();
}

function installDebianChromium() {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const hasApt = existsSync('/usr/bin/apt-get');
  if (!isRoot || !hasApt) {
    throw new Error(
      'No Chromium found for the browser tests. Install one (e.g. `sudo apt-get install -y chromium`) ' +
        'or set CHROMIUM_PATH to a Chromium or Chrome executable.',
    );
  }
  console.log('No Chromium found: installing Debian’s chromium (about a minute)…');
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
  execFileSync('apt-get', ['install', '-y', '-qq', 'chromium'], {
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
}

/** Finds Chromium, installing it if needed; throws with a clear message when it cannot. */
export async function ensureChromium() {
  const found = await findChromium();
  if (found) return found;
  installDebianChromium();
  const installed = await findChromium();
  if (!installed) throw new Error('apt-get installed chromium, but /usr/bin/chromium is still missing');
  return installed;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    // `npm test` starts here: on a fresh clone, install the npm dependencies first.
    const { ensureDependencies } = await import('./deps.mjs');
    ensureDependencies();
    console.log(`Chromium: ${await ensureChromium()}`);
  } catch (e) {
    console.error(e.message);
    process.exit(1);
  }
}
