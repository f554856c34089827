import type { Backend } from '../backends/backend.js';
import type { FileToolSpec } from '../backends/file-tool.js';
import { grepTool } from '../backends/file-tool-grep.js';
import { globTool, lsTool } from '../backends/file-tool-listing.js';
import { readFileTool } from '../backends/file-tool-read-file.js';
import { pageLimits } from '../backends/file-tool-specs.js';
import { quoteForMessage } from '../shared/checks.js';
import type { FilePage, JsonSchema } from '../shared/content.js';
import { errorMessage } from '../shared/errors.js';
import { cutToChars } from '../shared/text.js';
import type { TokenMeasure } from '../tokens/token-measure.js';
import { capFilePage } from './cut.js';

/** The read tools, in the order they are declared and named everywhere (the system prompt, the adapters). */
export const readToolNames = ['read_file', 'grep', 'ls', 'glob'] as const;

/** A `readTools` argument, checked: undefined (all of them) or an array of tool names; else a TypeError naming `where`. */
export function checkReadTools(readTools: unknown, where: string): readonly string[] | undefined {
  if (readTools === undefined) return undefined;
  if (!Array.isArray(readTools) || readTools.some((name) => typeof name !== 'string')) {
    throw new TypeError(`${where}: readTools must be an array of tool names, got ${quoteForMessage(readTools)}`);
  }
  return readTools;
}

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

/** The four read tools' specs, with `fileTools`' default page size (so a page reads alike in every runtime); made once, they hold no thread. */
const limits = pageLimits();
const readToolSpecs: readonly FileToolSpec[] = [
  readFileTool(limits),
  grepTool(limits, { glob: false }),
  lsTool(limits),
  globTool(limits),
];

/**
 * Runs one read tool over `backend` (one thread's stored results): arguments checked, the page cut
 * to within the tool's threshold (O11) so reading a stored result never stores another (A4).
 */
async function runReadTool(
  spec: FileToolSpec,
  args: unknown,
  backend: Backend,
  cap: (page: FilePage) => string,
  signal: AbortSignal | undefined,
): Promise<{ text: string; isError: boolean }> {
  signal?.throwIfAborted();
  const invalid = argumentError(spec, args);
  if (invalid) return { text: invalid, isError: true };
  try {
    const page = await spec.run(args as Record<string, unknown>, backend, signal);
    signal?.throwIfAborted();
    return { text: cap(page), isError: false };
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    // As the runtime turns a tool's exception into an error result (R5), whatever its kind.
    return { text: errorMessage(error), isError: true };
  }
}

/**
 * The read tools over one thread's stored results (`backendOf` gives the thread's backend), each
 * page cut to `thresholdFor(tool)` by `measure`. `threadId` undefined: each call names its thread.
 */
export function offloadReadTools(
  threadId: string | undefined,
  backendOf: (threadId: string) => Backend,
  thresholdFor: (toolName: string) => number,
  measure: TokenMeasure,
): OffloadReadTool[] {
  return readToolSpecs.map((spec) => ({
    name: spec.name,
    description: spec.description,
    parameters: spec.parameters,
    run: (args, options = {}) => {
      const thread = threadId ?? options.threadId;
      if (typeof thread !== 'string' || thread === '') {
        throw new TypeError(`${spec.name}: run needs options.threadId (the tool was made without a thread)`);
      }
      const cap = (page: FilePage) => capFilePage(page, thresholdFor(spec.name), measure);
      return runReadTool(spec, args, backendOf(thread), cap, options.signal);
    },
  }));
}

interface PropertySchema {
  type?: 'string' | 'integer';
  minimum?: number;
}

/**
 * Why `args` do not fit the read tool's schema, in the runtime's words (`args/offset (minimum): …`),
 * or undefined. The four schemas use only an object of string and integer properties, so this
 * small check replaces a JSON Schema validator in the offload's bundle.
 */
function argumentError(spec: FileToolSpec, args: unknown): string | undefined {
  const problems = argumentProblems(spec.parameters, args);
  if (problems.length === 0) return undefined;
  const raw =
    typeof args === 'string' ? ` The arguments were text, not JSON: ${JSON.stringify(cutToChars(args, 200))}.` : '';
  return `Invalid arguments for tool "${spec.name}": ${problems.join('; ')}.${raw}`;
}

function argumentProblems(schema: JsonSchema, args: unknown): string[] {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    return [
      `args (type): expected an object, got ${args === null ? 'null' : Array.isArray(args) ? 'an array' : typeof args}`,
    ];
  }
  const properties = schema.properties as Record<string, PropertySchema>;
  const problems: string[] = [];
  for (const name of schema.required as string[]) {
    if (!Object.hasOwn(args, name)) problems.push(`args (required): ${JSON.stringify(name)} is required`);
  }
  for (const [name, value] of Object.entries(args)) {
    const property = Object.hasOwn(properties, name) ? properties[name] : undefined;
    if (property === undefined) {
      problems.push(`args/${cutToChars(name, 64)} (additionalProperties): not allowed by the schema`);
    } else if (property.type === 'string' && typeof value !== 'string') {
      problems.push(`args/${name} (type): expected a string, got ${kindOf(value)}`);
    } else if (property.type === 'integer' && !Number.isSafeInteger(value)) {
      problems.push(`args/${name} (type): expected an integer, got ${kindOf(value)}`);
    } else if (property.minimum !== undefined && (value as number) < property.minimum) {
      problems.push(`args/${name} (minimum): must be at least ${property.minimum}, got ${value}`);
    }
  }
  return problems.slice(0, 8);
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number') return Number.isInteger(value) ? `${value}` : `the number ${value}`;
  return `a ${typeof value}`;
}
