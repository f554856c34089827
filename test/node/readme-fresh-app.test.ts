import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { chromium } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM helper shared with the npm scripts
import { chromiumArgs, findChromium } from '../../scripts/browser.mjs';
import { eventuallyMs, hangMs } from './fixtures/deadlines.js';
import { installInApp, pack, run } from './fixtures/packed-package.js';

const root = new URL('../..', import.meta.url).pathname;
const readme = await readFile(join(root, 'README.md'), 'utf8');
const viteVersion: string = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')).devDependencies.vite;

/** The first ```ts block under `## <heading>`: the example exactly as a reader copies it. */
function readmeBlock(heading: string): string {
  const section = readme.split(/^## /m).find((part) => part.startsWith(`${heading}\n`));
  const block = section && /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error(`README has no ts block under "## ${heading}"`);
  return block;
}

describe('a fresh app that follows only the README', () => {
  let app = '';
  let server: Server | undefined;
  /** The files in the tarball, as the registry would get them. */
  let packedFiles: string[] = [];

  beforeAll(async () => {
    app = await mkdtemp(join(tmpdir(), 'readme-app-'));
    // The working tree as it is (the README being edited); test/node/package-pack.test.ts packs a clean clone.
    const packed = await pack(root, app);
    packedFiles = packed.files;
    // The README's install lines, plus Vite to build the page.
    await installInApp(app, packed.tarball, ['preact', `vite@${viteVersion}`]);
    await writeFile(join(app, 'main.ts'), readmeBlock('First example'));
    await writeFile(
      join(app, 'index.html'),
      '<!doctype html><html><body><script type="module" src="/main.ts"></script></body></html>',
    );
    await run(join(app, 'node_modules/.bin/vite'), ['build'], { cwd: app });
    server = await serve(join(app, 'dist'));
  }, 600_000);

  afterAll(async () => {
    server?.close();
    if (app) await rm(app, { recursive: true, force: true });
  });

  it('builds with Vite and runs the first example in Chromium, the inspector showing the stored result', async () => {
    const browser = await chromium.launch({ executablePath: await findChromium(), args: chromiumArgs });
    try {
      const page = await browser.newPage();
      page.setDefaultTimeout(hangMs);
      const logged: string[] = [];
      const errors: string[] = [];
      page.on('console', (message) => logged.push(message.text()));
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`http://127.0.0.1:${(server!.address() as AddressInfo).port}/`);
      await expect.poll(() => logged.join('\n'), { timeout: eventuallyMs }).toMatch(/^completed /m);
      expect(errors).toEqual([]);
      expect(logged.join('\n')).toMatch(/completed .*I was shown \d+ characters:.*Path: \/large_tool_results\//);
      await page.locator('[aria-controls="inspector-dock"]').click();
      await expect.poll(() => page.getByText('search_logs').count(), { timeout: eventuallyMs }).toBeGreaterThan(0);
      // The bound is passed once, to the offload: the thread's gauge reads it from the store.
      const gauge = page.getByRole('meter', { name: 'Thread chat-1: stored bytes' });
      await expect.poll(() => gauge.getAttribute('aria-valuetext'), { timeout: eventuallyMs }).toMatch(/ of 8\.0 MiB /);
      // The size the README says the tool returns is the one stored (whole, under maxResultBytes).
      const [, kb, kib] = /returns (\d+) KB \(the inspector shows (\d+) KiB\)/.exec(readme) ?? [];
      expect(kib, 'the README says "returns <n> KB (the inspector shows <m> KiB)"').toBeDefined();
      expect(Math.abs(Number(kib) * 1.024 - Number(kb))).toBeLessThan(1);
      await expect.poll(() => page.getByText(`${kib} KiB`, { exact: true }).count()).toBeGreaterThan(0);
    } finally {
      await browser.close();
    }
  }, 600_000);

  it('links and images in the README resolve on the npm page (absolute, or files in the tarball)', async () => {
    const files = new Set(packedFiles);
    const targets = [...readme.matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
    expect(targets.length).toBeGreaterThan(0);
    for (const target of targets) {
      expect(target, 'a relative link breaks on the npm page').toMatch(/^(https:\/\/|#)/);
      const packed = /^https:\/\/unpkg\.com\/tool-output-offload\/(.+)$/.exec(target)?.[1];
      if (packed) expect(files, `${target} is not in the tarball`).toContain(packed);
    }
    expect(files).toContain('LICENSE');
  }, 600_000);
});

const types: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' };

/** A static file server for the built app, on a free port of 127.0.0.1. */
function serve(dir: string): Promise<Server> {
  const server = createServer(async (request, response) => {
    const path = normalize(decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname));
    try {
      const body = await readFile(join(dir, path === '/' ? 'index.html' : path));
      response.writeHead(200, { 'content-type': types[extname(path) || '.html'] ?? 'application/octet-stream' });
      response.end(body);
    } catch {
      response.writeHead(404).end();
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}
