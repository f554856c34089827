import type { ReadPosition } from '../backends/file-tool-page.js';
import { countLines, cutLine, cutToChars, sliceLines, splitLines } from '../shared/text.js';
import { charsPerTokenMeasure, type TokenMeasure } from '../tokens/token-measure.js';
import { type JsonLayout, jsonShapeLines } from './json-layout.js';
import { type HeaderFacts, offloadHeader, tailMarker } from './words.js';

/** A preview line longer than this is cut, so one huge line cannot crowd out the others. */
const maxPreviewLineChars = 500;

/** What the header says about a stored result. */
interface OffloadedText {
  path: string;
  toolName: string;
  /** The tool's text (all text parts joined). */
  original: string;
  originalBytes: number;
  /** The stored copy: `original` cut to maxResultBytes. */
  stored: string;
  storedBytes: number;
  /** The original's estimated tokens; default four characters a token. */
  originalTokens?: number;
  /** Whether the stored copy was cut to maxResultBytes; default: whether it is shorter than the original. */
  truncated?: boolean;
  /** When the result is JSON: how it was stored, and its value, whose shape the preview shows (O14). */
  json?: Pick<JsonLayout, 'layout' | 'value'>;
}

interface PreviewLimits {
  thresholdTokens: number;
  previewLines: number;
  /** Last lines shown after an elision marker; default 0. */
  previewTailLines?: number;
  /** How tokens are counted; default four characters a token. */
  measure?: TokenMeasure;
  /** The read tools the model has (read_file, grep…); default all of them. The header names only these. */
  readTools?: readonly string[];
}

/** What the header says about `result`, given its line counts (computed once: a stored text may be megabytes). */
function headerFacts(
  result: OffloadedText,
  limits: PreviewLimits,
  counts: { original: number; stored: number },
): HeaderFacts {
  return {
    path: result.path,
    toolName: result.toolName,
    thresholdTokens: limits.thresholdTokens,
    originalBytes: result.originalBytes,
    originalTokens: result.originalTokens ?? Math.ceil(result.original.length / 4),
    originalLines: counts.original,
    storedBytes: result.storedBytes,
    storedLines: counts.stored,
    truncated: result.truncated ?? result.stored.length < result.original.length,
    ...(limits.readTools === undefined ? {} : { readTools: limits.readTools }),
  };
}

/** Room cutLine's marker ("… [line cut: N of M characters shown]") may take beyond the characters kept. */
const lineCutMarkerChars = 60;

/** Lines that fit in `room` characters (each preceded by a newline), each cut if very long; `cut` is the first one cut and how much of it is shown. */
function linesWithin(
  lines: readonly string[],
  room: number,
): { shown: string[]; used: number; cut?: { row: number; kept: number } } {
  const shown: string[] = [];
  let cut: { row: number; kept: number } | undefined;
  let used = 0;
  for (const line of lines) {
    const left = Math.min(room - used - 1, maxPreviewLineChars);
    if (left < Math.min(line.length, 40)) break; // too little room to show anything useful
    const fits = line.length <= left;
    const kept = fits ? line.length : cutToChars(line, Math.max(0, left - lineCutMarkerChars)).length;
    if (!fits) cut ??= { row: shown.length, kept };
    shown.push(fits ? line : cutLine(line, kept));
    used += shown.at(-1)!.length + 1;
  }
  return { shown, used, cut };
}

/** Where reading continues after the preview's first lines: after the last whole one, or within the first one cut. */
function nextAfter(first: ReturnType<typeof linesWithin>): ReadPosition {
  if (first.cut === undefined) return { offset: first.shown.length, charOffset: 0 };
  return { offset: first.cut.row, charOffset: first.cut.kept };
}

/** The last `count` lines of `text`, without their newlines, found from its end. */
function lastLines(text: string, count: number): string[] {
  let end = text.endsWith('\n') ? text.length - 1 : text.length;
  const lines: string[] = [];
  while (lines.length < count && end > 0) {
    const start = text.lastIndexOf('\n', end - 1) + 1;
    lines.unshift(text.slice(start, end));
    end = start - 1;
  }
  return lines;
}

/** A stored result's replacement, as the offload made it: kept as data, never read back from the text (O1, C6). */
export interface OffloadPreview {
  /** What the model is shown: the header, the first lines and, with a tail, the last ones. */
  text: string;
  /** The header alone, reading from line 0: what C6 sends when even the preview is too much. */
  headerOnly: string;
  /** The original text's line count. */
  lines: number;
}

/**
 * The text the model is shown instead of a stored result: the header followed by the first
 * `previewLines` lines and, with `previewTailLines`, an elision marker and the output's last lines,
 * each line cut if very long. The whole replacement stays within the threshold (by the measure's
 * estimate): lines that do not fit are left out (the header and the marker say how many are shown).
 */
export function offloadReplacement(result: OffloadedText, limits: PreviewLimits): OffloadPreview {
  const measure = limits.measure ?? charsPerTokenMeasure;
  const original = countLines(result.original);
  // The stored copy is the original itself unless it was cut: counted once then.
  const counts = { original, stored: result.stored === result.original ? original : countLines(result.stored) };
  const facts = headerFacts(result, limits, counts);
  // A JSON result's lines are those of its laid-out copy; any other's, the original's.
  const lineSource = result.json ? result.stored : result.original;
  const sourceLines = result.json ? counts.stored : counts.original;
  const tailWanted = Math.min(limits.previewTailLines ?? 0, Math.max(0, sourceLines - limits.previewLines));
  const tail = tailWanted > 0 ? lastLines(lineSource, tailWanted) : [];
  const head = splitLines(sliceLines(result.stored, 0, limits.previewLines));
  const text = measure.fit(limits.thresholdTokens, (budget) => {
    // A JSON result's shape first, in at most half the room: the records after it.
    const shape = result.json ? jsonShapeLines(result.json, Math.max(0, Math.floor(budget / 2) - 1200)) : [];
    // The header's length barely depends on what is shown; measure it with the largest numbers.
    const widest = {
      lines: limits.previewLines,
      next: { offset: limits.previewLines, charOffset: maxPreviewLineChars },
    };
    const room = budget - offloadHeader(facts, widest, shape).length;
    const markerChars = tail.length > 0 ? tailMarker(sourceLines, tail.length, sourceLines).length + 1 : 0;
    // With a tail, the first lines take at most half the room, so the last lines are shown too.
    const first = linesWithin(head, tail.length > 0 ? Math.floor((room - markerChars) / 2) : room);
    const last = linesWithin([...tail].reverse(), room - first.used - markerChars);
    const shown = { lines: first.shown.length, next: nextAfter(first) };
    const header = offloadHeader(facts, shown, shape);
    const parts = [header, ...first.shown];
    if (last.shown.length > 0) {
      // The marker only where lines were left out: a preview that shows them all goes straight on.
      const omitted = sourceLines - first.shown.length - last.shown.length;
      if (omitted > 0) parts.push(tailMarker(omitted, last.shown.length, sourceLines));
      parts.push(...last.shown.reverse());
    }
    return cutToChars(parts.join('\n'), Math.max(0, budget));
  });
  const headerOnly = offloadHeader(facts, { lines: 0, next: { offset: 0, charOffset: 0 } }, []);
  return { text, headerOnly, lines: counts.original };
}
