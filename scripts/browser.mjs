// The browser engines the tests run in (Chromium, Firefox, WebKit): where each is found, which Debian
// packages provide it, and which of them a run uses (`BROWSERS=chromium,firefox`; default: every
// installed engine). `node scripts/browser.mjs [engine…]` (the start of `npm test`) installs what is
// missing when it can (root + apt-get) and says which engines it skips and how to install them.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';

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

function fromEnv(name) {
  const path = process.env[name];
  if (path && !existsSync(path)) throw new Error(`${name} is set to ${path}, which does not exist`);
  return path || undefined;
}

/** The path of a usable Chromium, or undefined. Order: $CHROMIUM_PATH, /usr/bin/chromium, Playwright's download. */
export async function findChromium() {
  const path = fromEnv('CHROMIUM_PATH');
  if (path) return path;
  if (existsSync('/usr/bin/chromium')) return '/usr/bin/chromium';
  return playwrightChromium();
}

/**
 * The path of a Firefox that Playwright can drive over WebDriver BiDi (channel 'moz-firefox'), or
 * undefined. Order: $FIREFOX_PATH, Debian's firefox-esr, firefox.
 */
export function findFirefox() {
  return fromEnv('FIREFOX_PATH') ?? ['/usr/bin/firefox-esr', '/usr/bin/firefox'].find((path) => existsSync(path));
}

/** WebKitGTK's MiniBrowser (from libwebkit2gtk-4.1-0), found under /usr/lib/<arch>/webkit2gtk-4.x/. */
function findMiniBrowser() {
  const path = fromEnv('MINIBROWSER_PATH');
  if (path) return path;
  const lib = '/usr/lib';
  for (const dir of existsSync(lib) ? readdirSync(lib) : []) {
    for (const version of ['webkit2gtk-4.1', 'webkit2gtk-4.0']) {
      const candidate = `${lib}/${dir}/${version}/MiniBrowser`;
      if (existsSync(candidate)) return candidate;
    }
  }
  return undefined;
}

/**
 * WebKitGTK's pieces for the WebKit tests: MiniBrowser, its WebDriver and the virtual X server it
 * needs (MiniBrowser has no headless mode), or undefined when one is missing.
 */
export function findWebKit() {
  const miniBrowser = findMiniBrowser();
  const driver = ['/usr/bin/WebKitWebDriver'].find((path) => existsSync(path));
  const xvfb = ['/usr/bin/Xvfb'].find((path) => existsSync(path));
  return miniBrowser && driver && xvfb ? { miniBrowser, driver, xvfb } : undefined;
}

/** Each engine: how to find it and the Debian packages that install it. */
export const engines = {
  chromium: { find: findChromium, packages: ['chromium'] },
  firefox: { find: findFirefox, packages: ['firefox-esr'] },
  webkit: { find: findWebKit, packages: ['webkit2gtk-driver', 'xvfb'] },
};

/** The engines a run asks for: `BROWSERS` (comma-separated) or all three. */
export function requestedEngines(value = process.env.BROWSERS) {
  if (!value?.trim()) return { names: Object.keys(engines), explicit: false };
  const names = value
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  const unknown = names.filter((name) => !(name in engines));
  if (unknown.length > 0) {
    throw new Error(
      `BROWSERS names ${unknown.map((name) => `'${name}'`).join(', ')}: the engines are ${Object.keys(engines).join(', ')}`,
    );
  }
  return { names: [...new Set(names)], explicit: true };
}

export function installHint(name) {
  return `sudo apt-get install -y ${engines[name].packages.join(' ')}`;
}

/**
 * The engines this run uses (requested and installed), each with what `find` returned, and the
 * requested ones that are not installed.
 */
export async function availableEngines(value = process.env.BROWSERS) {
  const { names, explicit } = requestedEngines(value);
  const found = {};
  const missing = [];
  for (const name of names) {
    const location = await engines[name].find();
    if (location) found[name] = location;
    else missing.push(name);
  }
  return { found, missing, explicit };
}

function canInstall() {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  return isRoot && existsSync('/usr/bin/apt-get');
}

/** The lock that runs installing at once on one machine take in turn (apt allows one at a time). */
const aptLock = '/tmp/tool-output-offload-apt.lock';

function aptInstall(packages) {
  console.log(`Installing ${packages.join(' ')} with apt-get (a minute or two)…`);
  // flock: another run installing now finishes first; apt-get install then finds the packages there.
  const apt = (...args) =>
    execFileSync('flock', ['--timeout', '1800', aptLock, 'apt-get', '-o', 'DPkg::Lock::Timeout=900', ...args], {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  apt('update', '-qq');
  apt('install', '-y', '-qq', ...packages);
}

/**
 * Installs the requested engines that are missing (as root with apt-get), then reports which run and
 * which are skipped. Chromium is required (the Node-driven tests and the benches use it), and so is
 * any engine named in BROWSERS: for those a missing engine is an error, not a skip.
 */
export async function ensureEngines(value = process.env.BROWSERS) {
  let { found, missing, explicit } = await availableEngines(value);
  if (missing.length > 0 && canInstall()) {
    aptInstall(missing.flatMap((name) => engines[name].packages));
    ({ found, missing, explicit } = await availableEngines(value));
  }
  const required = missing.filter((name) => explicit || name === 'chromium');
  if (required.length > 0) {
    throw new Error(
      required
        .map((name) => `No ${name} found for the browser tests. Install it: \`${installHint(name)}\`.`)
        .join('\n') +
        (required.includes('chromium') ? ' Or set CHROMIUM_PATH to a Chromium or Chrome executable.' : ''),
    );
  }
  return { found, missing };
}

/** Finds Chromium, installing it if needed; throws with a clear message when it cannot. */
export async function ensureChromium() {
  const { found } = await ensureEngines('chromium');
  return found.chromium;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    // `npm test` starts here: on a fresh clone, install the npm dependencies first.
    const { ensureDependencies } = await import('./deps.mjs');
    ensureDependencies();
    const only = process.argv.slice(2).join(',');
    const { found, missing } = await ensureEngines(only || undefined);
    for (const [name, location] of Object.entries(found)) {
      console.log(`${name}: ${typeof location === 'string' ? location : Object.values(location).join(', ')}`);
    }
    for (const name of missing) {
      console.log(`${name}: not installed, its browser tests are skipped (install: \`${installHint(name)}\`)`);
    }
  } catch (e) {
    console.error(e.message);
    process.exit(1);
  }
}
