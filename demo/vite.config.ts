import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

// The demo app (`npm run demo`, scripts/demo.mjs); the root vite.config.ts builds the library.
// The app imports ../lib and ../inspector from source: vite allows them (same package root).
export default defineConfig({
  root: decodeURIComponent(new URL('.', import.meta.url).pathname),
  plugins: [preact()],
  // Transformed while the server starts, so the first visit does not wait for it.
  server: { host: '127.0.0.1', warmup: { clientFiles: ['./main.tsx'] } },
  // Its own cache, so the demo and the test runners do not re-optimize each other's dependencies.
  cacheDir: '../node_modules/.vite-demo',
  // Pre-bundled at start-up: a dependency found only on first load would make vite reload the page.
  optimizeDeps: {
    include: [
      'preact',
      'preact/hooks',
      'preact/jsx-runtime',
      'idb',
      '@cfworker/json-schema',
      '@tanstack/virtual-core',
      'ai',
      'langchain',
      '@langchain/core/language_models/chat_models',
      '@langchain/core/utils/json_schema',
    ],
  },
  clearScreen: false,
});
