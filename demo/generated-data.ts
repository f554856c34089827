// The demo's offline "world": a day of service logs and a small web of documentation pages,
// generated deterministically from seeds so the repository carries no megabytes of fixtures.

/** A small fast PRNG (mulberry32): the same seed gives the same data on every machine. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a: a seed from a string (a query, a URL). */
function seedOf(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

const pick = <T>(next: () => number, items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
const hex = (next: () => number, digits: number) =>
  Math.floor(next() * 16 ** digits)
    .toString(16)
    .padStart(digits, '0');

// ---------- logs ----------

const services = ['checkout', 'payments', 'inventory', 'auth', 'search', 'gateway'] as const;
const messages: Record<'INFO' | 'WARN' | 'ERROR' | 'DEBUG', readonly string[]> = {
  INFO: [
    'request completed status=200 duration_ms={ms}',
    'cache hit key=cart:{id}',
    'order {id} placed items={n} total_cents={cents}',
    'health check ok upstreams={n}',
    'session refreshed user={id}',
  ],
  WARN: [
    'slow upstream payments-api duration_ms={ms} threshold_ms=800',
    'retrying payment capture attempt={n}/3 order={id}',
    'connection pool near limit used={n}/64',
    'deprecated header X-Client-Version from client {id}',
  ],
  ERROR: [
    'payment gateway timeout after 30000 ms order={id} attempt={n}/3',
    'database deadlock detected table=orders tx={id}',
    'upstream 503 from inventory-api path=/v2/stock/{id}',
    'failed to publish event order.created: broker unavailable',
    'card declined code=do_not_honor order={id}',
  ],
  DEBUG: ['feature flag checkout_v2 evaluated to {flag} for user {id}'],
};

function fill(template: string, next: () => number): string {
  return template
    .replace('{ms}', String(Math.floor(next() * 4000)))
    .replace('{id}', hex(next, 8))
    .replace('{n}', String(1 + Math.floor(next() * 9)))
    .replace('{cents}', String(Math.floor(next() * 50_000)))
    .replace('{flag}', next() < 0.5 ? 'true' : 'false');
}

/** Log lines of one day, oldest first: `<ISO time> <LEVEL> <service>-<pod> [req=<id>] <message>`. */
function* logLines(seed = 20250314): Generator<string> {
  const next = random(seed);
  let time = Date.UTC(2025, 2, 14);
  while (true) {
    time += Math.floor(next() * 900);
    const roll = next();
    const level = roll < 0.02 ? 'DEBUG' : roll < 0.74 ? 'INFO' : roll < 0.9 ? 'WARN' : 'ERROR';
    const service = pick(next, services);
    yield `${new Date(time).toISOString()} ${level.padEnd(5)} ${service}-${hex(next, 4)} [req=${hex(next, 8)}] ${fill(pick(next, messages[level]), next)}`;
  }
}

interface LogSearch {
  text: string;
  matches: number;
  scanned: number;
}

/**
 * The lines matching `pattern` (case-insensitive), scanning at most `maxScan` lines and returning at
 * most about `maxBytes` of them. Throws a SyntaxError naming the pattern when it is not a regex.
 */
export function searchLogs(pattern: string, maxBytes = 600_000, maxScan = 60_000): LogSearch {
  let regex: RegExp;
  try {
    regex = new RegExp(pattern, 'i');
  } catch {
    throw new SyntaxError(`search_logs: ${JSON.stringify(pattern)} is not a valid regular expression`);
  }
  const found: string[] = [];
  let bytes = 0;
  let scanned = 0;
  for (const line of logLines()) {
    if (scanned === maxScan || bytes >= maxBytes) break;
    scanned++;
    if (!regex.test(line)) continue;
    found.push(line);
    bytes += line.length + 1;
  }
  const header = `${found.length} lines matching /${pattern}/i among ${scanned} scanned (all services, 2025-03-14 UTC)`;
  return { text: `${header}\n${found.join('\n')}`, matches: found.length, scanned };
}

// ---------- pages ----------

/** Pages the scenario fetches, and their approximate sizes; any other URL gets a page sized by its hash. */
export const knownPages: Record<string, { title: string; bytes: number; kind: 'changelog' | 'reference' }> = {
  'https://docs.example.com/releases/full-changelog': { title: 'Full changelog', bytes: 2_300_000, kind: 'changelog' },
  'https://docs.example.com/api/reference': { title: 'API reference', bytes: 800_000, kind: 'reference' },
};

const areas = ['checkout', 'payments', 'inventory', 'auth', 'search', 'webhooks', 'SDK', 'dashboard'] as const;
const verbs = ['Fixed', 'Added', 'Changed', 'Improved', 'Deprecated', 'Security'] as const;
const things = [
  'retry policy for payment capture',
  'timeout handling in the gateway client',
  'pagination of order listings',
  'idempotency keys on POST /v2/orders',
  'rate limit headers',
  'webhook signature verification',
  'currency rounding for JPY',
  'stock reservation expiry',
  'session token rotation',
  'search ranking for partial SKUs',
] as const;

function changelogLines(next: () => number, maxBytes: number): string[] {
  const lines: string[] = [];
  let bytes = 0;
  let major = 9;
  let minor = 40;
  let patch = 3;
  let day = Date.UTC(2025, 2, 10);
  while (bytes < maxBytes) {
    const release = [`## v${major}.${minor}.${patch} (${new Date(day).toISOString().slice(0, 10)})`, ''];
    const items = 8 + Math.floor(next() * 14);
    for (let i = 0; i < items; i++) {
      const breaking = next() < 0.0008;
      const verb = breaking ? 'BREAKING' : pick(next, verbs);
      release.push(`- ${verb}: ${pick(next, areas)}: ${pick(next, things)} (#${10_000 + Math.floor(next() * 90_000)})`);
    }
    release.push('');
    for (const line of release) bytes += line.length + 1;
    lines.push(...release);
    day -= (1 + Math.floor(next() * 6)) * 86_400_000;
    if (patch > 0) patch--;
    else if (minor > 0) [minor, patch] = [minor - 1, 9];
    else [major, minor, patch] = [major - 1, 40, 9];
  }
  return lines;
}

function referenceLines(next: () => number, maxBytes: number): string[] {
  const lines: string[] = [];
  let bytes = 0;
  for (let n = 0; bytes < maxBytes; n++) {
    const area = pick(next, areas).toLowerCase();
    const section = [
      `### ${pick(next, ['GET', 'POST', 'PATCH', 'DELETE'])} /v2/${area}/${hex(next, 4)}`,
      `Operation ${n + 1}. Requires scope ${area}:write. Responds 200 with the ${area} object, 404 when it does not exist.`,
      `Parameters: limit (integer, default 20), cursor (string), expand (array of strings). Timeout: ${1 + Math.floor(next() * 30)} s.`,
      '',
    ];
    for (const line of section) bytes += line.length + 1;
    lines.push(...section);
  }
  return lines;
}

/** The text of a page of the offline web, as a fetch tool would extract it from the HTML. */
export function pageText(url: string): string {
  const known = knownPages[url];
  const next = random(seedOf(url));
  const bytes = known?.bytes ?? 150_000 + Math.floor(next() * 750_000);
  const title = known?.title ?? `Search results for ${new URL(url).searchParams.get('q') ?? url}`;
  const body = known?.kind === 'reference' ? referenceLines(next, bytes) : changelogLines(next, bytes);
  return [`Title: ${title}`, `URL: ${url}`, '', `# ${title}`, '', ...body].join('\n');
}
