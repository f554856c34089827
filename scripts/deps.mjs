// Installs the project's npm dependencies when they are missing (a fresh clone), so the README's two
// commands work before anyone has run `npm ci`.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export function ensureDependencies() {
  if (existsSync('node_modules/.bin/vite') && existsSync('node_modules/.bin/vitest')) return;
  const command = existsSync('package-lock.json') ? 'ci' : 'install';
  console.log(`Installing dependencies (npm ${command})…`);
  execFileSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', [command, '--no-audit', '--no-fund'], {
    stdio: 'inherit',
  });
}
