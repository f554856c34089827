// re2js is loaded on the first grep or glob; when it cannot load, the tool says so and the run goes on.

import { expect, it, vi } from 'vitest';
import { fileTools } from '../../lib/agent/file-tools.js';
import { MemoryBackend } from '../../lib/backends/memory-backend.js';
import { successText } from '../browser/fixtures/tool-context.js';
import { toolContext } from './offload-fixtures.js';

vi.mock('re2js', () => {
  throw new Error('Failed to fetch dynamically imported module');
});

it('a grep or glob whose engine cannot load is a tool error saying so; ls and read_file still work', async () => {
  const tools = fileTools(new MemoryBackend({ '/a.txt': 'needle\n' }));
  const run = async (name: string, args: Record<string, unknown>) =>
    successText(await tools.find((t) => t.name === name)!.execute(args, toolContext()));
  for (const [name, args] of [
    ['grep', { pattern: 'needle' }],
    ['glob', { pattern: '*.txt' }],
  ] as const) {
    const outcome = await run(name, args);
    expect(outcome).toMatchObject({ type: 'error' });
    // vitest words the import's failure its own way; the tool's words around it are the library's.
    expect((outcome as { message: string }).message).toMatch(
      new RegExp(
        `^${name} could not be run: its regular-expression engine \\(re2js, loaded on the first grep or glob\\) ` +
          'failed to load: .+\\. read_file and ls still work\\.$',
      ),
    );
  }
  expect(await run('read_file', { path: '/a.txt' })).toContain('needle');
  expect(await run('ls', { path: '/' })).toContain('/a.txt');
});
