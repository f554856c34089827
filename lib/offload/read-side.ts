// The offload's read side, loaded on the first read (read-side-loader.ts): what OffloadBackend does
// and what the read tools run, apart from their declarations, which the offload gives at once.
import type { Backend } from '../backends/backend.js';
import { type FileToolSpec, pageLimits } from '../backends/file-tool.js';
import { grepTool } from '../backends/file-tool-grep.js';
import { globTool, lsTool } from '../backends/file-tool-listing.js';
import { readFileTool } from '../backends/file-tool-read-file.js';
import type { FilePage, JsonSchema } from '../shared/content.js';
import { errorMessage } from '../shared/errors.js';
import { cutToChars } from '../shared/text.js';
import { MountedOffloadBackend } from './mounted-backend.js';

export { OffloadFiles } from './offload-files.js';

/** The four read tools' specs, with `fileTools`' default page size (so a page reads alike in every runtime); made once, they hold no thread. */
const limits = pageLimits();
const readToolSpecs: readonly FileToolSpec[] = [
  readFileTool(limits),
  grepTool(limits, { glob: false }),
  lsTool(limits),
  globTool(limits),
];

/**
 * Runs the read tool `name` over `backend` (one thread's stored results, seen at its mount as the
 * read tools take paths): arguments checked, the page cut to within the tool's threshold by `cap`
 * (O11) so reading a stored result never stores another (A4).
 */
export async function runReadTool(
  name: string,
  args: unknown,
  backend: Required<Backend>,
  cap: (page: FilePage) => string,
  signal: AbortSignal | undefined,
): Promise<{ text: string; isError: boolean }> {
  signal?.throwIfAborted();
  const spec = readToolSpecs.find((candidate) => candidate.name === name);
  if (spec === undefined) throw new TypeError(`runReadTool: ${JSON.stringify(name)} is not a read tool`);
  const invalid = argumentError(spec, args);
  if (invalid) return { text: invalid, isError: true };
  try {
    const page = await spec.run(args as Record<string, unknown>, new MountedOffloadBackend(backend), signal);
    signal?.throwIfAborted();
    return { text: cap(page), isError: false };
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    // As the runtime turns a tool's exception into an error result (R5), whatever its kind.
    return { text: errorMessage(error), isError: true };
  }
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
