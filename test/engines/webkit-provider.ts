import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { type WebdriverBrowserProvider, webdriverio } from '@vitest/browser-webdriverio';
import type { BrowserProviderOption } from 'vitest/node';

/** Debian's WebKitGTK pieces, as scripts/browser.mjs `findWebKit()` finds them. */
export interface WebKitPaths {
  miniBrowser: string;
  driver: string;
  xvfb: string;
}

type Capabilities = Record<string, unknown>;

/**
 * The webdriverio provider driving WebKitGTK's MiniBrowser. MiniBrowser has no headless mode, so the
 * provider starts its own Xvfb and WebKitWebDriver when the first test file opens the browser, and
 * kills both (by pid) when vitest closes the provider or exits.
 */
export function webkitGtk(paths: WebKitPaths): BrowserProviderOption {
  const options = { hostname: '127.0.0.1', port: 0, logLevel: 'silent' as const, connectionRetryCount: 1 };
  const base = webdriverio(options);
  return {
    ...base,
    providerFactory(project) {
      const provider = base.providerFactory(project) as WebdriverBrowserProvider;
      // buildCapabilities is private in the provider's types; it is what the session request is made of.
      const capabilities = provider as unknown as { buildCapabilities(): Capabilities };
      const services = new WebKitServices(paths);
      // Vitest only accepts 'safari' as a webdriverio browser name, and WebKitWebDriver only 'MiniBrowser'.
      const buildCapabilities = capabilities.buildCapabilities.bind(provider);
      capabilities.buildCapabilities = () => ({
        ...buildCapabilities(),
        browserName: 'MiniBrowser',
        // WebKitWebDriver speaks WebDriver classic only; without this webdriverio asks for BiDi and is refused.
        'wdio:enforceWebDriverClassic': true,
        'webkitgtk:browserOptions': { binary: paths.miniBrowser, args: ['--automation'] },
      });
      const openBrowser = provider.openBrowser.bind(provider);
      provider.openBrowser = async () => {
        options.port = await services.start();
        return openBrowser();
      };
      const close = provider.close.bind(provider);
      provider.close = async () => {
        try {
          await close();
        } finally {
          services.stop();
        }
      };
      return provider;
    },
  };
}

/** Xvfb on a display it picks itself, and WebKitWebDriver on a free port drawing on that display. */
class WebKitServices {
  private started?: Promise<number>;
  private readonly processes: ChildProcess[] = [];
  private readonly stopOnExit = () => this.stop();

  constructor(private readonly paths: WebKitPaths) {}

  start(): Promise<number> {
    this.started ??= this.launch();
    return this.started;
  }

  private async launch(): Promise<number> {
    process.once('exit', this.stopOnExit);
    const display = await this.startXvfb();
    const port = await freePort();
    const driver = spawn(this.paths.driver, [`--port=${port}`, '--host=local'], {
      env: { ...process.env, DISPLAY: `:${display}` },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    this.processes.push(driver);
    await waitForDriver(driver, port);
    return port;
  }

  /** Starts Xvfb with -displayfd, so it chooses a free display and reports it once it accepts clients. */
  private startXvfb(): Promise<string> {
    const xvfb = spawn(this.paths.xvfb, ['-displayfd', '3', '-screen', '0', '1280x1024x24', '-nolisten', 'tcp'], {
      stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
    });
    this.processes.push(xvfb);
    return new Promise((resolve, reject) => {
      let stderr = '';
      let fd3 = '';
      xvfb.stderr?.on('data', (chunk) => {
        stderr += chunk;
      });
      xvfb.stdio[3]?.on('data', (chunk) => {
        fd3 += chunk;
        const match = /^(\d+)\n/.exec(fd3);
        if (match) resolve(match[1]!);
      });
      xvfb.once('error', reject);
      xvfb.once('exit', (code) =>
        reject(new Error(`Xvfb exited (code ${code}) before it was ready: ${stderr.trim()}`)),
      );
    });
  }

  stop(): void {
    process.off('exit', this.stopOnExit);
    // The driver first (it takes MiniBrowser down with its session), then the X server.
    for (const child of this.processes.reverse()) {
      if (child.exitCode === null && child.signalCode === null && child.pid) {
        try {
          process.kill(child.pid, 'SIGTERM');
        } catch {
          // Already gone.
        }
      }
    }
    this.processes.length = 0;
    this.started = undefined;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** Resolves once the driver answers /status; rejects with its stderr if it exits first or never answers. */
async function waitForDriver(driver: ChildProcess, port: number): Promise<void> {
  let stderr = '';
  driver.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (driver.exitCode !== null) throw new Error(`WebKitWebDriver exited (code ${driver.exitCode}): ${stderr.trim()}`);
    try {
      const response = await fetch(`http://127.0.0.1:${port}/status`);
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`WebKitWebDriver did not answer on port ${port} within 30 s: ${stderr.trim()}`);
}
