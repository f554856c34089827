import { countLines, cutLine, cutToChars, sliceLines, splitLines } from '../text.js';
import { charsWithin } from './cut.js';

/** A preview line longer than this is cut, so one huge line cannot crowd out the others. */
export const maxPreviewLineChars = 500;
/** Tool names are the app's own, but one could be long; the header shows at most this much of it. */
const maxToolNameChars = 64;

/** What the header says about a stored result. */
export interface OffloadedText {
  path: string;
  toolName: string;
  /** The tool's text (all text parts joined). */
  original: string;
  originalBytes: number;
  /** The stored copy: `original` cut to maxResultBytes. */
  stored: string;
  storedBytes: number;
}

export interface PreviewLimits {
  thresholdTokens: number;
  previewLines: number;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** What the preview shows: how many lines, and the line to continue reading from. */
interface Shown {
  lines: number;
  nextOffset: number;
}

/** Line counts, computed once (a stored text may be megabytes). */
interface LineCounts {
  original: number;
  stored: number;
}

/**
 * The header the model sees instead of a stored result (O1): the path, the tool, the original and
 * stored sizes, whether the stored copy was cut, and how to read the rest.
 */
function offloadHeader(result: OffloadedText, limits: PreviewLimits, counts: LineCounts, shown: Shown): string {
  const truncated = result.stored.length < result.original.length;
  const tool = JSON.stringify(cutToChars(result.toolName, maxToolNameChars));
  const path = JSON.stringify(result.path);
  const stored = plural(counts.stored, 'line');
  const lines = [
    `[Stored tool result] The output of tool ${tool} is over ${limits.thresholdTokens} tokens, so it was stored as a file instead of being shown here.`,
    `Path: ${result.path}`,
    `Original size: ${result.originalBytes} bytes, about ${Math.ceil(result.original.length / 4)} tokens, ${plural(counts.original, 'line')}.`,
    truncated
      ? `Stored: the first ${result.storedBytes} bytes (${stored}) only; the text was cut to the maxResultBytes limit and the rest was not stored.`
      : `Stored: all ${result.storedBytes} bytes (${stored}).`,
    `To read more: read_file {"path":${path},"offset":${shown.nextOffset},"limit":100} (offset and limit count lines, from 0). To search: grep {"pattern":"<regex>","path":${path}}.`,
  ];
  if (shown.lines > 0) lines.push(`First ${shown.lines} of ${stored}:`);
  return lines.join('\n');
}

/** Room cutLine's marker ("… [line cut: N of M characters shown]") may take beyond the characters kept. */
const lineCutMarkerChars = 60;

/**
 * The text the model is shown instead of a stored result: the header followed by the first
 * `previewLines` lines, each cut if very long. The whole replacement stays within the threshold:
 * lines that do not fit are left out (the header says how many are shown).
 */
export function offloadReplacement(result: OffloadedText, limits: PreviewLimits): string {
  const budget = charsWithin(limits.thresholdTokens);
  const counts = { original: countLines(result.original), stored: countLines(result.stored) };
  // The header's length barely depends on what is shown; measure it with the largest numbers.
  const widest = { lines: limits.previewLines, nextOffset: limits.previewLines };
  const room = budget - offloadHeader(result, limits, counts, widest).length;
  const shown: string[] = [];
  let firstCut: number | undefined; // reading on starts at the first line not shown whole
  let used = 0;
  for (const line of splitLines(sliceLines(result.stored, 0, limits.previewLines))) {
    const left = Math.min(room - used - 1, maxPreviewLineChars); // each line is preceded by a newline
    if (left < Math.min(line.length, 40)) break; // too little room to show anything useful
    const fits = line.length <= left;
    if (!fits) firstCut ??= shown.length;
    const text = fits ? line : cutLine(line, Math.max(0, left - lineCutMarkerChars));
    shown.push(text);
    used += text.length + 1;
  }
  const header = offloadHeader(result, limits, counts, { lines: shown.length, nextOffset: firstCut ?? shown.length });
  // Cannot cut anything with thresholdTokens ≥ 1000 (the header is well under 4000 characters), but the bound is a promise.
  return cutToChars([header, ...shown].join('\n'), budget);
}
