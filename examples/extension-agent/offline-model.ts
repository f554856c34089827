import type { Model, ModelReply } from '../../lib/agent.js';
import { calls, offlineScriptedModel, type ScriptInput, storedPath, textOf } from '../shared/offline-turn.js';

// The extension's default model: offline and scripted. Each message gets the same turn: list the
// tabs and read the active page (stored: pages are large), read the stored text back, then answer.

const thinkingMs = 300;
/** Lines read back with read_file. */
const readLines = 12;

/** What to grep for: the first quoted phrase of the message, else its longest word (regex characters escaped). */
function searchTerm(question: string): string {
  const quoted = /["“']([^"”']{1,40})["”']/.exec(question)?.[1]?.trim();
  const words = question.match(/[\p{L}\p{N}_]{3,}/gu) ?? [];
  const term = quoted || words.reduce((longest, w) => (w.length > longest.length ? w : longest), '') || 'the';
  return term.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
}

/** A header line of read_active_tab's result ("Title: …"), for the answer. */
const header = (text: string, name: string) => new RegExp(`^${name}: (.*)$`, 'm').exec(text)?.[1] ?? '';

function answer({ turn, question }: ScriptInput): ModelReply {
  const page = turn.first('read_active_tab');
  if (turn.step === 0 || !page) {
    return {
      content: "I'll list your tabs and read the page you are looking at.",
      toolCalls: calls(['list_tabs', {}], ['read_active_tab', {}]),
    };
  }
  const pageText = textOf(page);
  if (page.isError) return { content: `I could not read the page: ${pageText}` };
  const path = storedPath(page);
  if (!path) {
    return {
      content: `The page was small enough to read whole (${pageText.length} characters); it starts: ${pageText.slice(0, 200)}`,
    };
  }
  const term = searchTerm(question);
  if (turn.step === 1) {
    return {
      content: `The page was too large for my context, so it was stored at ${path}. Reading its first lines and searching it for "${term}":`,
      toolCalls: calls(['read_file', { path, offset: 0, limit: readLines }], ['grep', { pattern: term, path }]),
    };
  }
  const read = turn.last('read_file');
  const grep = turn.last('grep');
  const title = header(pageText, 'Title') || 'untitled';
  const chars = header(pageText, 'Characters');
  const firstLine = read && !read.isError ? /^\s*1\t(.*)$/m.exec(textOf(read))?.[1] : undefined;
  const hits =
    grep && !grep.isError
      ? textOf(grep)
          .split('\n')
          .filter((line) => line.startsWith(path))
      : [];
  return {
    content: [
      `The page "${title}" has ${chars} characters: too large for my context, so it was stored at ${path} and I was shown a preview.`,
      firstLine === undefined
        ? 'Reading it back failed.'
        : `I read lines 1–${readLines} back with read_file; line 1 is "${firstLine}".`,
      hits.length > 0
        ? `grep found ${hits.length} lines matching "${term}", the first: ${hits[0]}`
        : `grep found no line matching "${term}".`,
      'The Inspector tab shows the stored text and exactly the preview I saw.',
    ].join('\n\n'),
  };
}

/** The extension's offline model (no network, no key). */
export function offlineModel(): Model {
  return offlineScriptedModel(answer, thinkingMs);
}
