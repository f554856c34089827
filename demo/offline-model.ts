import { calls, offlineScriptedModel, storedPath, type Turn, textOf } from '../examples/shared/offline-turn.js';
import type { Model, ModelReply } from '../lib/agent.js';
import { ToolOutputOffload } from '../lib/index.js';
import { knownPages } from './generated-data.js';

// The default model of the demo: offline and scripted, yet a pure function of the request it gets
// (like a real model), so a reload or `agent.recover` continues a turn exactly where it stopped.

const [changelogUrl, referenceUrl] = Object.keys(knownPages) as [string, string];
const thinkingMs = 200;

/** The first turn of a thread: large results in parallel, read back, then enough to hit the bound. */
function firstTurn(turn: Turn): ModelReply {
  const logPath = storedPath(turn.first('search_logs'));
  const pagePath = storedPath(turn.first('fetch_page'));
  switch (turn.step) {
    case 0:
      return {
        content: "I'll search the day's logs and fetch the full changelog at the same time.",
        toolCalls: calls(['search_logs', { pattern: 'ERROR|WARN' }], ['fetch_page', { url: changelogUrl }]),
      };
    case 1:
      if (!logPath || !pagePath) break;
      return {
        content:
          'Both results were too large for my context, so I only got previews. Reading a page of the logs and searching the changelog:',
        toolCalls: calls(
          ['read_file', { path: logPath, offset: 2000, limit: 12 }],
          ['grep', { pattern: 'BREAKING', path: pagePath }],
        ),
      };
    case 2:
      return {
        content: 'Now the API reference, for the timeout settings.',
        toolCalls: calls(['fetch_page', { url: referenceUrl }]),
      };
    case 3:
      if (!logPath) break;
      return {
        content: 'Let me check the first log matches again.',
        toolCalls: calls(['read_file', { path: logPath, offset: 0, limit: 5 }]),
      };
  }
  return { content: firstSummary(turn) };
}

function firstSummary(turn: Turn): string {
  const read = turn.first('read_file');
  const reread = turn.last('read_file');
  const grep = turn.last('grep');
  const breaking = grep
    ? textOf(grep)
        .split('\n')
        .filter((line) => line.includes('BREAKING')).length
    : 0;
  const evicted = reread !== read && reread?.isError && /evicted/i.test(textOf(reread));
  const paragraphs = [
    `Done. ${turn.offloaded} tool results were too large for the context: each was stored under ${ToolOutputOffload.mount} and I was shown a header and the first lines instead.`,
  ];
  if (read && !read.isError && grep) {
    paragraphs.push(
      `I read lines 2001–2012 of the log search back with read_file and found ${breaking} BREAKING entries in the changelog with grep, without loading either whole text.`,
    );
  }
  if (evicted) {
    paragraphs.push(
      'The API reference pushed the store over its 3 MiB bound, so the oldest result (the log search) was evicted: reading it again is now an error that says so. Run the search again if you need it.',
    );
  }
  paragraphs.push('The inspector shows every stored result, the exact preview I saw, and the evictions.');
  return paragraphs.join('\n\n');
}

/** Words the generated logs and pages use: a message naming one searches for it. */
const vocabulary = new Set(
  'checkout payment payments gateway timeout deadlock inventory stock auth session search webhook webhooks declined broker cache order orders retry error warn'.split(
    ' ',
  ),
);

/** A keyword from the user's message, for later turns: the first word the data knows, else its longest word. */
function keyword(text: string): string {
  const words = (text.match(/[A-Za-z0-9_]{4,}/g) ?? []).map((w) => w.toLowerCase());
  const known = words.find((w) => vocabulary.has(w));
  return known ?? (words.reduce((longest, w) => (w.length > longest.length ? w : longest), '') || 'timeout');
}

/** Later turns: a search and a page fetch in parallel, then a grep across everything still stored. */
function laterTurn(turn: Turn, question: string): ModelReply {
  const word = keyword(question);
  if (turn.step === 0) {
    return {
      content: `Searching the logs and the docs for "${word}".`,
      toolCalls: calls(
        ['search_logs', { pattern: word }],
        ['fetch_page', { url: `https://docs.example.com/search?q=${encodeURIComponent(word)}` }],
      ),
    };
  }
  if (turn.step === 1) {
    return {
      content: `Now grep for "${word}" across every stored result:`,
      toolCalls: calls(['grep', { pattern: word, path: ToolOutputOffload.mount }]),
    };
  }
  const grep = turn.last('grep');
  const hits =
    grep && !grep.isError
      ? textOf(grep)
          .split('\n')
          .filter((line) => line.startsWith('/')).length
      : 0;
  return {
    content:
      `${turn.offloaded} of this turn's results went to the store; grep found ${hits} matching lines across what is still stored. ` +
      'Older results are evicted as new ones arrive: see the Evictions tab in the inspector.',
  };
}

/** The demo's offline model: replays the scenario step that fits the conversation it is shown. */
export function offlineModel(): Model {
  return offlineScriptedModel(
    ({ turn, question, userTurns }) => (userTurns === 1 ? firstTurn(turn) : laterTurn(turn, question)),
    thinkingMs,
    // Streamed like a real provider's reply: text a few characters at a time, then the tool calls.
    { chunkChars: 6, delayMs: 12 },
  );
}
