import { fileURLToPath } from 'node:url';
import preact from '@preact/preset-vite';
import { build, defineConfig, type Plugin } from 'vite';
import { manifestWithVersion } from '../../extension/manifest-plugin.js';

// Builds the unpacked extension agent into dist-extension-agent/ (npm run build:extension-agent).
const here = fileURLToPath(new URL('.', import.meta.url));
const repo = fileURLToPath(new URL('../..', import.meta.url));

/**
 * An MV3 service worker cannot `import()` (HTML forbids it in service workers), and the library
 * loads re2js that way on the first grep or glob: after the main build, the worker is built on its
 * own as one module with every dynamic import inlined, and the build fails if one is left.
 */
function serviceWorker(): Plugin {
  let outDir = '';
  return {
    name: 'extension-agent-service-worker',
    apply: 'build',
    configResolved(config) {
      outDir = config.build.outDir;
    },
    async closeBundle() {
      await build({
        configFile: false,
        root: here,
        base: './',
        publicDir: false,
        logLevel: 'warn',
        plugins: [
          preact(),
          {
            name: 'no-dynamic-import-in-service-worker',
            generateBundle(_options, bundle) {
              for (const file of Object.values(bundle)) {
                // An inlined import() names the chunk itself.
                const loaded =
                  file.type === 'chunk' ? file.dynamicImports.filter((name) => name !== file.fileName) : [];
                if (loaded.length > 0) {
                  this.error(`${file.fileName} imports ${loaded.join(', ')} dynamically: a service worker cannot`);
                }
              }
            },
          },
        ],
        build: {
          outDir,
          emptyOutDir: false,
          modulePreload: { polyfill: false },
          rolldownOptions: {
            input: { 'service-worker': `${here}service-worker.ts` },
            output: { entryFileNames: '[name].js', codeSplitting: false },
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
  plugins: [preact(), manifestWithVersion(`${here}manifest.json`), serviceWorker()],
  build: {
    outDir: `${repo}dist-extension-agent`,
    emptyOutDir: true,
    // No inline preload helper: extension pages run only their own files (script-src 'self').
    modulePreload: { polyfill: false },
    rolldownOptions: {
      // The service worker is built on its own (serviceWorker above).
      input: { sidepanel: `${here}sidepanel.html` },
      output: {
        entryFileNames: '[name].js',
        chunkFileNames: 'chunks/[name]-[hash].js',
        assetFileNames: 'assets/[name]-[hash][extname]',
      },
    },
  },
});
