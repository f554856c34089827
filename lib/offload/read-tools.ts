import { pageLimits } from '../backends/file-tool.js';
import {
  globDeclaration,
  grepDeclaration,
  lsDeclaration,
  readFileDeclaration,
} from '../backends/file-tool-declarations.js';
import type { FilePage, JsonSchema } from '../shared/content.js';
import { errorMessage } from '../shared/errors.js';
import type { TokenMeasure } from '../tokens/token-measure.js';
import { capFilePage } from './cut.js';
import type { OffloadBackend } from './offload-backend.js';
import { loadReadSide } from './read-side-loader.js';

/** The read tools, in the order they are declared and named everywhere (the system prompt, the adapters). */
export const readToolNames = ['read_file', 'grep', 'ls', 'glob'] as const;

/**
 * A read-only tool over the stored results, for any agent framework: its name, description and
 * JSON Schema to declare it, and `run` to call it.
 */
export interface OffloadReadTool {
  name: string;
  description: string;
  /** A JSON Schema object (draft 2020-12) of the arguments. */
  parameters: JsonSchema;
  /**
   * Runs the tool. Bad arguments, an evicted or missing path, a bad pattern: `isError` with a text
   * that says what was wrong (never a throw). Throws only the signal's reason once it is aborted.
   * `threadId` is the thread to read, for a tool made without one (`readTools()`); a tool made for
   * a thread reads only that one.
   */
  run(
    args: unknown,
    options?: { signal?: AbortSignal; threadId?: string },
  ): Promise<{ text: string; isError: boolean }>;
}

/**
 * The four read tools as declared, with `fileTools`' default page size (so a page reads alike in
 * every runtime); their code (read-side.ts) loads on the first call. Made once, they hold no thread.
 */
const limits = pageLimits();
const readToolDeclarations = [
  readFileDeclaration(limits),
  grepDeclaration({ glob: false }),
  lsDeclaration(),
  globDeclaration(),
];

/**
 * The read tools over one thread's stored results (`backendOf` gives the thread's backend), each
 * page cut to `thresholdFor(tool)` by `measure`. `threadId` undefined: each call names its thread.
 */
export function offloadReadTools(
  threadId: string | undefined,
  backendOf: (threadId: string) => OffloadBackend,
  thresholdFor: (toolName: string) => number,
  measure: TokenMeasure,
): OffloadReadTool[] {
  return readToolDeclarations.map(({ name, description, parameters }) => ({
    name,
    description,
    parameters,
    run: (args, options = {}) => {
      const thread = threadId ?? options.threadId;
      if (typeof thread !== 'string' || thread === '') {
        throw new TypeError(`${name}: run needs options.threadId (the tool was made without a thread)`);
      }
      const backend = backendOf(thread);
      const cap = (page: FilePage) => capFilePage(page, thresholdFor(name), measure);
      const { signal } = options;
      return loadReadSide(name).then(
        (side) => side.runReadTool(name, args, backend, cap, signal),
        (error: unknown) => {
          if (signal?.aborted) throw signal.reason;
          // Never a throw but the signal's: a failed load is an error result, as any failure of the tool.
          return { text: errorMessage(error), isError: true };
        },
      );
    },
  }));
}
