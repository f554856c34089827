import { defineConfig } from 'vite';
export default defineConfig({
  logLevel: 'warn',
  build: {
    outDir: process.env.OUT,
    emptyOutDir: true,
    minify: true,
    rolldownOptions: {
      input: process.env.ENTRY,
      preserveEntrySignatures: 'strict',
      output: { preserveModules: true, entryFileNames: '[name].js' },
    },
  },
});
