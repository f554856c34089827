import { checkInteger } from '../shared/checks.js';
import type { FileToolSpec, PageLimits } from './file-tool.js';
import { grepTool } from './file-tool-grep.js';
import { globTool, lsTool } from './file-tool-listing.js';
import { readFileTool } from './file-tool-read-file.js';
import { editFileTool, writeFileTool } from './file-tool-write.js';

export interface FileToolSpecOptions {
  /** The most estimated tokens any file tool's result may take; default 5000, at least 1000. */
  maxPageTokens?: number;
  /** Whether grep takes a `glob` argument; default true. */
  grepGlob?: boolean;
}

const defaultPageTokens = 5000;
const minPageTokens = 1000;
/** Characters kept free in a page for its closing line; closing lines never echo model-sized input. */
const noteReserve = 400;

/** The page limits of every file tool for `maxPageTokens` (default 5000, at least 1000). */
export function pageLimits(maxPageTokens: number = defaultPageTokens): PageLimits {
  checkInteger('fileTools maxPageTokens', maxPageTokens, minPageTokens);
  return { maxPageTokens, chars: maxPageTokens * 4 - noteReserve };
}

/**
 * read_file, ls, grep, glob, write_file and edit_file. Every result is a page within
 * `maxPageTokens` estimated tokens that says how to see the rest.
 */
export function fileToolSpecs(options: FileToolSpecOptions = {}): FileToolSpec[] {
  const limits = pageLimits(options.maxPageTokens);
  return [
    readFileTool(limits),
    lsTool(limits),
    grepTool(limits, { glob: options.grepGlob ?? true }),
    globTool(limits),
    writeFileTool(),
    editFileTool(),
  ];
}
