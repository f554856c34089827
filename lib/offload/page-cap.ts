import { cutToChars } from '../shared/text.js';
import { charsPerTokenMeasure } from '../tokens/token-measure.js';
import { isOverThreshold } from './cut.js';

/** A file tool's closing line ("[lines 1-9 of 100; … offset=9]", "[showing 100 of 5230 matches; …]") is never longer. */
const maxContinuationChars = 400;
/** A read_file line: its number, right-aligned, then a tab. */
const numberedLine = /^\s*(\d{1,15})\t/;

function capNote(shown: number, of: number, thresholdTokens: number, nextOffset: number | undefined): string {
  const what = `[Cut: this page is over the ${thresholdTokens}-token limit for a tool result; only its first ${shown} of ${of} lines are shown.`;
  const how =
    nextOffset === undefined
      ? 'Ask for a smaller page: a smaller limit, or a narrower grep/glob (a path or glob that matches less).'
      : `Continue with read_file offset=${nextOffset} and a smaller limit.`;
  return `${what} ${how}]`;
}

/**
 * A file tool's page cut to within the threshold, never stored (O11): whole lines from its start,
 * a note saying to read a smaller page, and — when its last line is the tool's continuation note
 * (it starts with '[') — that line, kept last. A page within the threshold comes back unchanged.
 */
export function capFileToolPage(text: string, thresholdTokens: number, measure = charsPerTokenMeasure): string {
  if (!isOverThreshold(text, thresholdTokens, measure)) return text;
  const lines = text.split('\n');
  const last = lines.at(-1)!;
  const keepLast = lines.length > 1 && last.startsWith('[');
  const body = keepLast ? lines.slice(0, -1) : lines;
  const tail = keepLast ? `\n${cutToChars(last, maxContinuationChars)}` : '';
  // Measured with the longer of its two forms and the largest numbers it can hold, so the page fits whatever is shown.
  const noteChars = Math.max(
    capNote(body.length, body.length, thresholdTokens, 10 ** 15).length,
    capNote(body.length, body.length, thresholdTokens, undefined).length,
  );
  return measure.fit(thresholdTokens, (maxChars) => {
    const room = maxChars - noteChars - tail.length;
    return capPage(body, room, thresholdTokens, tail);
  });
}

function capPage(body: readonly string[], room: number, thresholdTokens: number, tail: string): string {
  const shown: string[] = [];
  let used = 0;
  for (const line of body) {
    if (used + line.length + 1 > room) break;
    shown.push(line);
    used += line.length + 1;
  }
  // One line longer than the whole room (not from the file tools, which cut long lines): its start.
  if (shown.length === 0) shown.push(cutToChars(body[0]!, Math.max(0, room - 1)));
  const next = body[shown.length];
  const number = next === undefined ? undefined : numberedLine.exec(next)?.[1];
  const nextOffset = number === undefined ? undefined : Number(number) - 1;
  return `${shown.join('\n')}\n${capNote(shown.length, body.length, thresholdTokens, nextOffset)}${tail}`;
}
