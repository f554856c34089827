import { type Backend, isBackend } from '../backends/backend.js';
import { printPage } from '../backends/file-tool-page.js';
import { type FileToolSpecOptions, fileToolSpecs } from '../backends/file-tool-specs.js';
import { ToolOutcome } from '../runtime/outcome.js';
import { type Tool, type ToolContext, tool } from '../runtime/tool.js';
import { checkOptionNames } from '../shared/checks.js';
import { BackendError } from '../shared/errors.js';

/** The options of `fileTools(backend, options)`. */
export interface FileToolsOptions {
  /**
   * The most estimated tokens any file tool's result may take; at least 1000.
   * @default 5000
   */
  maxPageTokens?: number;
}

/**
 * The file tools over a backend, or over a backend chosen per call (e.g. per thread):
 * read_file, ls, grep, glob, write_file and edit_file. Every result stays within `maxPageTokens`
 * estimated tokens and says how to see the rest. A result is one text part, and its outcome carries the page
 * as data (`page`), so the offload cuts it by its lines rather than storing it (O11), whatever object
 * runs the tool (a `{ ...tool }` copy too). A BackendError becomes an error tool result with its message;
 * any other exception propagates.
 */
export function fileTools(
  backend: Backend | ((context: ToolContext) => Backend),
  options: FileToolsOptions = {},
): Tool[] {
  if (typeof backend !== 'function' && !isBackend(backend)) {
    throw new TypeError('fileTools needs a Backend or a function (context) => Backend');
  }
  checkOptionNames('fileTools', options, ['maxPageTokens']);
  const specs = fileToolSpecs({ maxPageTokens: options.maxPageTokens } satisfies FileToolSpecOptions);
  const backendFor = (context: ToolContext): Backend => {
    const chosen = typeof backend === 'function' ? backend(context) : backend;
    if (!isBackend(chosen)) throw new TypeError('fileTools: the backend function did not return a Backend');
    return chosen;
  };
  return specs.map(({ run, ...spec }) =>
    tool<Record<string, unknown>>({
      ...spec,
      async execute(args, context): Promise<ToolOutcome> {
        try {
          const page = await run(args, backendFor(context), context.signal);
          return { type: 'success', content: [{ type: 'text', text: printPage(page) }], page };
        } catch (error) {
          if (error instanceof BackendError) return ToolOutcome.error(error.message);
          throw error;
        }
      },
    }),
  );
}
