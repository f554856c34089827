import type { FilePage, JsonSchema } from '../shared/content.js';
import type { Backend } from './backend.js';

/**
 * What a file tool does, apart from how a framework calls it: `fileTools` makes this package's
 * tools of them, and the offload's read tools for other frameworks use the same four read ones, so
 * both page, cap and word their errors alike.
 */
export interface FileToolSpec<A = Record<string, unknown>> {
  name: string;
  description: string;
  parameters: JsonSchema;
  /**
   * The tool's page; a BackendError (bad path, evicted, not found, bad argument) says what went wrong.
   * `signal` (the tool call's) stops a long search.
   */
  run(args: A, backend: Backend, signal?: AbortSignal): Promise<FilePage>;
}

/** What every page of the file tools is held to. */
export interface PageLimits {
  /** The most estimated tokens of a page, as the descriptions say. */
  readonly maxPageTokens: number;
  /** The characters a page's lines may take: four a token, less the room kept for its closing line. */
  readonly chars: number;
}

/** Gives `run` its argument type. */
export function defineFileTool<A>(definition: FileToolSpec<A>): FileToolSpec {
  return definition as unknown as FileToolSpec;
}

/** The JSON Schema of a tool's arguments: an object of these properties and no others. */
export function objectSchema(properties: Record<string, unknown>, required: string[]): JsonSchema {
  return { type: 'object', properties, required, additionalProperties: false };
}
