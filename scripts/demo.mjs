// `npm run demo`: installs the dependencies when they are missing, then serves demo/ with vite on
// 127.0.0.1 and prints the address. Options: --port N (default 5173; a busy port moves to the next
// free one, and --port 0 lets the system pick), --open (open a browser).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureDependencies } from './deps.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
process.chdir(root);

function option(name, fallback) {
  const index = process.argv.indexOf(name);
  if (index === -1) return fallback;
  const value = process.argv[index + 1];
  if (value === undefined || value.startsWith('--')) throw new Error(`${name} needs a value`);
  return value;
}

const port = Number(option('--port', '5173'));
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  console.error(`--port must be an integer from 0 to 65535, got ${option('--port')}`);
  process.exit(1);
}

ensureDependencies();

// Imported only now: on a fresh clone vite exists only after the install above.
const { createServer } = await import('vite');
const server = await createServer({
  configFile: join(root, 'demo/vite.config.ts'),
  server: { host: '127.0.0.1', port, strictPort: false, open: process.argv.includes('--open') },
});
await server.listen();
const address = server.resolvedUrls?.local[0] ?? `http://127.0.0.1:${server.httpServer?.address()?.port}/`;
console.log(
  `\n  tool-output-offload demo: ${address}\n  Open it in a browser and send a message. Ctrl+C stops the server.\n`,
);

const stop = async () => {
  await server.close();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
