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

/**
 * An MV3 service worker cannot `import()` (the library loads re2js that way on the first grep or
 * glob; this worker never greps): the build fails if the worker or a chunk it imports does.
 */
function serviceWorkerWithoutImport(): Plugin {
  return {
    name: 'extension-service-worker-without-import',
    apply: 'build',
    generateBundle(_options, bundle) {
      const chunks = new Map(
        Object.values(bundle).flatMap((file) => (file.type === 'chunk' ? [[file.fileName, file]] : [])),
      );
      const seen = new Set<string>();
      const visit = (name: string) => {
        const chunk = chunks.get(name);
        if (!chunk || seen.has(name)) return;
        seen.add(name);
        if (chunk.dynamicImports.length > 0) {
          const which = name === 'service-worker.js' ? name : `${name} (imported by service-worker.js)`;
          this.error(`${which} imports ${chunk.dynamicImports.join(', ')} dynamically: a service worker cannot`);
        }
        for (const imported of chunk.imports) visit(imported);
      };
      visit('service-worker.js');
    },
  };
}

export default defineConfig({
  root: here,
  base: './',
  publicDir: false,
  plugins: [preact(), manifestWithVersion(`${here}manifest.json`), contentScript(), serviceWorkerWithoutImport()],
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
