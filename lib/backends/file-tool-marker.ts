import { type Tool, tool } from '../runtime/tool.js';

/**
 * The tools `fileTools` made. A middleware that stores large results (the offload) caps these
 * instead: their results page through files, the stored results among them (O11).
 */
const fileToolSet = new WeakSet<object>();

/** Registers a tool as one of this package's file tools and returns it. */
export function markFileTool<A>(made: Tool<A>): Tool<A> {
  fileToolSet.add(made);
  return made;
}

/** Defines a tool (as `tool` does) and marks it as a file tool. */
export function fileTool<A>(definition: Tool<A>): Tool<A> {
  return markFileTool(tool(definition));
}

/** Whether `fileTools` made this tool (a copy such as `{ ...tool }` is not one). */
export function isFileTool(candidate: unknown): boolean {
  return typeof candidate === 'object' && candidate !== null && fileToolSet.has(candidate);
}
