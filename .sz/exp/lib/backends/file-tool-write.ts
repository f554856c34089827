import { quoteForMessage } from '../shared/checks.js';
import { BackendError } from '../shared/errors.js';
import { countLines, utf8Bytes } from '../shared/text.js';
import { defineFileTool, type FileToolSpec, objectSchema } from './file-tool.js';
import { messagePage } from './file-tool-page.js';
import { normalizePath } from './paths.js';

/** write_file: creates a file or replaces its whole content. */
export function writeFileTool(): FileToolSpec {
  return defineFileTool<{ path: string; content: string }>({
    name: 'write_file',
    description: 'Create a file, or replace its whole content.',
    parameters: objectSchema(
      {
        path: { type: 'string', description: "Absolute path, e.g. '/notes.txt'." },
        content: { type: 'string', description: 'The complete new content.' },
      },
      ['path', 'content'],
    ),
    run: async (args, backend) => {
      const file = normalizePath(args.path);
      checkText(args.content, 'content');
      await backend.write(file, args.content);
      return messagePage(`Wrote ${file} (${countLines(args.content)} lines, ${utf8Bytes(args.content)} bytes)`);
    },
  });
}

/** edit_file: replaces one exact piece of text. */
export function editFileTool(): FileToolSpec {
  return defineFileTool<{ path: string; old_text: string; new_text: string }>({
    name: 'edit_file',
    description:
      'Replace one exact piece of text in a file. old_text must occur exactly once in the file: include enough ' +
      'surrounding text to make it unique. Read the file first to copy the text exactly (without line numbers).',
    parameters: objectSchema(
      {
        path: { type: 'string', description: 'Absolute path of the file to edit.' },
        old_text: { type: 'string', minLength: 1, description: 'The exact text to replace.' },
        new_text: { type: 'string', description: 'The text to put in its place.' },
      },
      ['path', 'old_text', 'new_text'],
    ),
    run: async (args, backend) => {
      const file = normalizePath(args.path);
      checkText(args.old_text, 'old_text');
      checkText(args.new_text, 'new_text');
      if (args.old_text === '')
        throw new BackendError('invalid-argument', 'old_text is empty: give the exact text to replace');
      await backend.edit(file, args.old_text, args.new_text);
      return messagePage(`Edited ${file}: replaced 1 occurrence of old_text`);
    },
  });
}

function checkText(value: unknown, name: string): void {
  if (typeof value !== 'string') {
    throw new BackendError('invalid-argument', `${name} must be a string, got ${quoteForMessage(value)}`);
  }
}
