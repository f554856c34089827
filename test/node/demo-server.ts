import { type ChildProcess, spawn } from 'node:child_process';
import { type Browser, chromium } from 'playwright';
// @ts-expect-error plain ESM helper shared with the npm scripts
import { chromiumArgs, findChromium } from '../../scripts/browser.mjs';

export interface DemoServer {
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts the demo as a newcomer does (`npm run demo`), on a port the system picks, and resolves
 * with the address it prints. The server runs in its own process group so `stop` ends all of it.
 */
export function startDemo(timeoutMs = 120_000): Promise<DemoServer> {
  const child = spawn('npm', ['run', 'demo', '--', '--port', '0'], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
  });
  let output = '';
  const stop = () => stopGroup(child);
  return new Promise((resolve, reject) => {
    const fail = (why: string) => {
      clearTimeout(timer);
      void stop().then(() => reject(new Error(`npm run demo ${why}. Its output:\n${output}`)));
    };
    const timer = setTimeout(() => fail(`printed no address within ${timeoutMs} ms`), timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /demo: (http:\/\/127\.0\.0\.1:\d+\/)/.exec(output)?.[1];
      if (!url) return;
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      resolve({ url, stop });
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on('exit', (code) => fail(`exited with code ${code}`));
  });
}

function stopGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => signalGroup(child.pid!, 'SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    signalGroup(child.pid!, 'SIGTERM');
  });
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

/** Headless Chromium, found the way the browser tests find it. */
export async function launchChromium(): Promise<Browser> {
  const executablePath: string | undefined = await findChromium();
  if (!executablePath) throw new Error('No Chromium found: run `node scripts/browser.mjs` or set CHROMIUM_PATH');
  return chromium.launch({ executablePath, args: chromiumArgs });
}
