import type { Backend } from '../backends/backend.js';
import { fileToolSpecs, readToolNames } from '../backends/file-tool-specs.js';
import type { JsonSchema } from '../runtime/model.js';
import { argumentError } from '../runtime/validate.js';
import { errorMessage } from '../shared/errors.js';
import { charsPerTokenMeasure } from '../tokens/token-measure.js';
import { capFilePage } from './page-cap.js';

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
   */
  run(args: unknown, options?: { signal?: AbortSignal }): Promise<{ text: string; isError: boolean }>;
}

/**
 * read_file, grep, ls and glob over `backend`, paged and worded as `fileTools` does. A page is also
 * cut to within its tool's threshold (O11): reading a stored result never stores another (A4).
 */
export function offloadReadTools(
  backend: Backend,
  thresholdFor: (toolName: string) => number,
  measure = charsPerTokenMeasure,
): OffloadReadTool[] {
  const specs = fileToolSpecs({ grepGlob: false }).filter((spec) => readToolNames.includes(spec.name));
  return specs.map((spec) => ({
    name: spec.name,
    description: spec.description,
    parameters: spec.parameters,
    async run(args, options = {}) {
      const { signal } = options;
      signal?.throwIfAborted();
      const invalid = argumentError(spec, args);
      if (invalid) return { text: invalid, isError: true };
      try {
        const page = await spec.run(args as Record<string, unknown>, backend);
        signal?.throwIfAborted();
        return { text: capFilePage(page, thresholdFor(spec.name), measure), isError: false };
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        // As the runtime turns a tool's exception into an error result (R5), whatever its kind.
        return { text: errorMessage(error), isError: true };
      }
    },
  }));
}
