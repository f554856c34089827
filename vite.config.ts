import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

export default defineConfig({
  plugins: [preact()],
  server: { host: '127.0.0.1', port: 5173, strictPort: true },
  preview: { host: '127.0.0.1', port: 4173, strictPort: true },
  build: {
    lib: {
      entry: {
        index: 'lib/index.ts',
        agent: 'lib/agent.ts',
        context: 'lib/context.ts',
        testing: 'lib/testing.ts',
        inspector: 'inspector/index.ts',
        langchain: 'adapters/langchain/index.ts',
        'ai-sdk': 'adapters/ai-sdk/index.ts',
        'prompt-api': 'adapters/prompt-api/index.ts',
      },
      formats: ['es'],
    },
    sourcemap: true,
    rolldownOptions: {
      // Runtime and peer dependencies stay external so the app's bundler dedupes them.
      external: [
        /^preact(\/.*)?$/,
        'idb',
        're2js',
        /^@cfworker\//,
        /^@tanstack\//,
        /^ai(\/.*)?$/,
        /^langchain(\/.*)?$/,
        /^@langchain\//,
        // The testing entry's store contract runs in the app's own vitest.
        /^vitest(\/.*)?$/,
      ],
    },
  },
});
