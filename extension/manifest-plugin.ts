import { readFileSync } from 'node:fs';
import type { Plugin } from 'vite';

const packageJson = new URL('../package.json', import.meta.url);

/** Emits the extension's manifest.json (at `manifestPath`) with the package's version. */
export function manifestWithVersion(manifestPath: string): Plugin {
  return {
    name: 'extension-manifest',
    generateBundle() {
      const { version } = JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string };
      const json = JSON.parse(readFileSync(manifestPath, 'utf8')) as Record<string, unknown>;
      this.emitFile({
        type: 'asset',
        fileName: 'manifest.json',
        source: `${JSON.stringify({ ...json, version }, null, 2)}\n`,
      });
    },
  };
}
