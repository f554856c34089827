import { fileURLToPath } from 'node:url';
import preact from '@preact/preset-vite';
import { build, defineConfig, type Plugin } from 'vite';
import { manifestWithVersion } from './manifest-plugin.js';

// Builds the unpacked MV3 extension into dist-extension/ (npm run build:extension).
const here = fileURLToPath(new URL('.', import.meta.url));
const repo = fileURLToPath(new URL('..', import.meta.url));

/**
 * Content scripts cannot be ES modules: after the main build, the content script is built on its
 * own as one classic script (IIFE) with everything it imports inlined.
 */
function contentScript(): Plugin {
  let outDir = '';
  return {
    name: 'extension-content-script',
    apply: 'build',
    configResolved(config) {
      outDir = config.build.outDir;
    },
    async closeBundle() {
      await build({
        configFile: false,
        root: here,
        logLevel: 'warn',
        build: {
          outDir,
          emptyOutDir: false,
          copyPublicDir: false,
          lib: {
            entry: `${here}content-script.ts`,
            formats: ['iife'],
            name: 'toolOutputOffloadContentScript',
            fileName: () => 'content-script.js',
          },
        },
      });
    },
  };
}

export default defineConfig({
  root: here,
  base: './',
  publicDir: false,
  plugins: [preact(), manifestWithVersion(`${here}manifest.json`), contentScript()],
  build: {
    outDir: `${repo}dist-extension`,
    emptyOutDir: true,
    modulePreload: { polyfill: false },
    rolldownOptions: {
      input: {
        devtools: `${here}devtools.html`,
        panel: `${here}panel.html`,
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
