import { defineConfig } from 'vite';

// A page that talks to Chrome's built-in model through tool-output-offload/prompt-api:
// `npx vite -c examples/prompt-api-page/vite.config.ts`, then open it in a Chrome with the model.
// It imports ../../lib, ../../adapters and ../../inspector from source: vite allows them (same package root).
export default defineConfig({
  root: decodeURIComponent(new URL('.', import.meta.url).pathname),
  server: { host: '127.0.0.1' },
  cacheDir: '../../node_modules/.vite-prompt-api-page',
  optimizeDeps: { include: ['preact', 'preact/hooks', 'preact/jsx-runtime', 'idb', '@tanstack/virtual-core'] },
  clearScreen: false,
});
