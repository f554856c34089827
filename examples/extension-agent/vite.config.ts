import { fileURLToPath } from 'node:url';
import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';
import { manifestWithVersion } from '../../extension/manifest-plugin.js';

// Builds the unpacked extension agent into dist-extension-agent/ (npm run build:extension-agent).
const here = fileURLToPath(new URL('.', import.meta.url));
const repo = fileURLToPath(new URL('../..', import.meta.url));

export default defineConfig({
  root: here,
  base: './',
  publicDir: false,
  plugins: [preact(), manifestWithVersion(`${here}manifest.json`)],
  build: {
    outDir: `${repo}dist-extension-agent`,
    emptyOutDir: true,
    // No inline preload helper: extension pages run only their own files (script-src 'self').
    modulePreload: { polyfill: false },
    rolldownOptions: {
      input: {
        sidepanel: `${here}sidepanel.html`,
        'service-worker': `${here}service-worker.ts`,
      },
      output: {
        entryFileNames: '[name].js',
        chunkFileNames: 'chunks/[name]-[hash].js',
        assetFileNames: 'assets/[name]-[hash][extname]',
      },
    },
  },
});
