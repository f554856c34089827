import { defineConfig } from 'vite';
export default defineConfig({
  logLevel: 'warn',
  build: {
    outDir: process.env.OUT,
    emptyOutDir: true,
    minify: true,
    target: 'es2022',
    rolldownOptions: { input: process.env.ENTRY },
  },
});
