import { type FileToolSpec, pageLimits } from './file-tool.js';
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
