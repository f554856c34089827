// The offload's words: every text the model reads from the offload (the preview's header, the
// cut notes, a cleared result's pointer, the read errors, the system prompt lines), each a function
// of data, beside `readBackWith`, the one answer to "how can the model read it back". The read
// tools' page notes are the file tools' own (`readFileCall`, lib/backends), re-used here; the
// eviction reasons' words are the store's (`evictionInWords`), because the store's own read errors
// state them to any reader of a store, and the store imports nothing of the offload.
import { type ReadPosition, readFileCall } from '../backends/file-tool-page.js';
import { pageLinesOf } from '../backends/file-tool-read-file.js';
import { pageLimits } from '../backends/file-tool-specs.js';
import { BackendError } from '../shared/errors.js';
import { cutToChars } from '../shared/text.js';
import { evictionInWords } from '../store/eviction-words.js';
import { StoreReadError } from '../store/store-read-error.js';
import type { TokenMeasure } from '../tokens/token-measure.js';

/** Which of the two tools that read a stored result back the model has: what every text about reading it back says. */
interface ReadBack {
  readFile: boolean;
  grep: boolean;
}

/**
 * How the model can read a stored result back, decided once for every text that says so (the
 * preview's header, a pointer, the system prompt): with read_file and grep when it has them among
 * `readTools` (default: all of the read tools).
 */
function readBackWith(readTools: readonly string[] | undefined): ReadBack {
  return {
    readFile: readTools === undefined || readTools.includes('read_file'),
    grep: readTools === undefined || readTools.includes('grep'),
  };
}

/** `1 line`, `2 lines`: a count and its noun, as every text of the offload words them. */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

// ---- The system prompt (O12) ----

/** The lines the offload adds to the system prompt: naming only the read tools in `readTools` (default all). */
export function systemPromptLines(
  thresholdTokens: number,
  mount: string,
  readTools: readonly string[] | undefined,
): string {
  const { readFile: read, grep } = readBackWith(readTools);
  const how =
    read && grep
      ? 'Read more of one with read_file (path, offset and limit in lines, from 0) or search it with grep (pattern, path).'
      : read
        ? 'Read more of one with read_file (path, offset and limit in lines, from 0).'
        : grep
          ? 'Search one with grep (pattern, path).'
          : 'You have no tool to read them back: they are kept for the app, and only the header and first lines reach you.';
  return [
    `Tool results over ${thresholdTokens} tokens are stored as files under ${mount} and replaced by a header and their first lines.`,
    how,
    'Old stored results may be evicted to save space; run the tool again if you need one back.',
  ].join('\n');
}

// ---- The preview's header (O1) ----

/** The lines a page of the read tools holds: what the header's call asks for, as much as one page shows (B5). */
const pageLines = pageLinesOf(pageLimits());

/** Tool names are the app's own, but one could be long; the header shows at most this much of it. */
const maxToolNameChars = 64;

/** What the header says about a stored result, as data. */
export interface HeaderFacts {
  path: string;
  toolName: string;
  thresholdTokens: number;
  originalBytes: number;
  originalTokens: number;
  originalLines: number;
  storedBytes: number;
  storedLines: number;
  /** Whether the stored copy was cut to maxResultBytes. */
  truncated: boolean;
  /** The read tools the model has; default all of them. The header names only these. */
  readTools?: readonly string[];
}

/** How the header says to read the rest, naming only the tools the model has. */
function readingLine(path: string, next: ReadPosition, readTools: readonly string[] | undefined): string {
  const { readFile: read, grep } = readBackWith(readTools);
  const parts: string[] = [];
  if (read) {
    const count =
      next.charOffset > 0
        ? 'offset and limit count lines, from 0; charOffset characters of that line'
        : 'offset and limit count lines, from 0';
    parts.push(`To read more: ${readFileCall(path, next, pageLines)} (${count}).`);
  }
  if (grep) parts.push(`To search: grep {"pattern":"<regex>","path":${JSON.stringify(path)}}.`);
  if (parts.length > 0) return parts.join(' ');
  return 'You have no tool to read it: it is kept for the app and its inspector, and only the lines below are available to you.';
}

/**
 * The header the model sees instead of a stored result (O1): the path, the tool, the original and
 * stored sizes, whether the stored copy was cut, and how to read the rest from `shown.next`; then
 * `shape` (a JSON result's outline) and, when lines are shown, the line that introduces them.
 */
export function offloadHeader(
  facts: HeaderFacts,
  shown: { lines: number; next: ReadPosition },
  shape: readonly string[],
): string {
  const tool = JSON.stringify(cutToChars(facts.toolName, maxToolNameChars));
  const stored = plural(facts.storedLines, 'line');
  const lines = [
    `[Stored tool result] The output of tool ${tool} is over ${facts.thresholdTokens} tokens, so it was stored as a file instead of being shown here.`,
    `Path: ${facts.path}`,
    `Original size: ${facts.originalBytes} bytes, about ${facts.originalTokens} tokens, ${plural(facts.originalLines, 'line')}.`,
    facts.truncated
      ? `Stored: the first ${facts.storedBytes} bytes (${stored}) only; the text was cut to the maxResultBytes limit and the rest was not stored.`
      : `Stored: all ${facts.storedBytes} bytes (${stored}).`,
    readingLine(facts.path, shown.next, facts.readTools),
    ...shape,
  ];
  if (shown.lines > 0) lines.push(`First ${shown.lines} of ${stored}:`);
  return lines.join('\n');
}

/** The marker between a preview's first lines and its last ones. */
export function tailMarker(omitted: number, shown: number, total: number): string {
  return `[… ${plural(omitted, 'line')} not shown …]\nLast ${shown} of ${plural(total, 'line')} of the output:`;
}

// ---- Cut notes (O1, O11, S3) ----

/** Why a result was cut instead of stored. */
export type CutReason = { kind: 'over-threshold' } | { kind: 'read-from-mount' } | { kind: 'not-stored'; why: string };

const maxWhyChars = 200;

/** The note after a cut result: its size, the limit, how much is shown, and why the rest is not stored. */
export function cutNote(
  reason: CutReason,
  originalChars: number,
  originalTokens: number,
  shownChars: number,
  thresholdTokens: number,
): string {
  const what = `[Cut: this tool result has ${originalChars} characters (about ${originalTokens} tokens), over the ${thresholdTokens}-token limit; only the first ${shownChars} characters are shown.`;
  switch (reason.kind) {
    case 'over-threshold':
      return `${what} The full text was not stored.]`;
    case 'read-from-mount':
      return `${what} It was read from a stored result and is not stored again: read a smaller part with read_file (a smaller offset/limit) or search it with grep.]`;
    case 'not-stored':
      return `${what} It could not be stored (${cutToChars(reason.why, maxWhyChars)}), so the rest is not available.]`;
  }
}

// ---- Read errors (O4) ----

/**
 * The error the model reads when the stored result at `path` (the full path it asked for) cannot be
 * read: the store's reasons (StoreReadError) in words it can act on. `storedBefore` says the offload
 * stored it earlier, so a store that no longer knows it at all was cleared or deleted. Any other
 * error is returned as it is (a custom store's 'evicted' keeps its own words).
 */
export function readFailureInWords(error: unknown, path: string, storedBefore: () => boolean): unknown {
  if (!(error instanceof BackendError)) return error;
  const eviction = error instanceof StoreReadError ? error.eviction : undefined;
  if (error.code === 'evicted' && eviction) {
    return new BackendError('evicted', evictionInWords(path, eviction));
  }
  if (error.code !== 'not-found') return error;
  const damage = error instanceof StoreReadError ? error.damage : undefined;
  if (damage !== undefined) {
    return new BackendError(
      'not-found',
      `${path} is unreadable: ${damage}. The store skips it; other stored results are not affected. Run the tool again if you need it.`,
    );
  }
  if (storedBefore()) {
    return new BackendError(
      'evicted',
      `${path} was cleared: it was stored earlier, but the store no longer has it (its thread was cleared or its database deleted). Run the tool again if you need it.`,
    );
  }
  return new BackendError('not-found', `${path} not found: no tool result was stored under this path.`);
}

// ---- A cleared result's pointer (C2) ----
// One function, so every way in sends the same text, and the store keeps that text byte for byte
// for every later request (C4).
/** The most estimated tokens a pointer takes (C2). */
export const maxPointerTokens = 60;

/** What a pointer says about the result it stands for. */
interface PointerFacts {
  toolName: string;
  /** Estimated tokens of what reading it back gives. */
  tokens: number;
  /** Its non-text parts (images, files), which the pointer drops. */
  mediaParts: number;
  /** Where it is stored; absent for a file tool's page (O11), whose pointer names the call to repeat. */
  path?: string;
  /** The call's arguments, for a page: the call to repeat. */
  args?: unknown;
  /** The read tools the model has; default all of them. The pointer names only these. */
  readTools?: readonly string[];
}

/** How to read a stored path with the tools the model has. */
function howToRead(readTools: readonly string[] | undefined): string | undefined {
  const { readFile: read, grep } = readBackWith(readTools);
  return read && grep ? 'read_file or grep' : read ? 'read_file' : grep ? 'grep' : undefined;
}

function mediaWords(count: number): string {
  if (count === 0) return '';
  return count === 1 ? '; its 1 image/file is not shown' : `; its ${count} images/files are not shown`;
}

/** A tool name as the model calls it when it is a plain name; quoted (and cut) otherwise. */
function callName(name: string, maxChars: number): string {
  return /^[A-Za-z0-9_.-]{1,64}$/.test(name) ? name : JSON.stringify(cutToChars(name, maxChars));
}

function argsJson(args: unknown): string | undefined {
  try {
    return JSON.stringify(args) ?? undefined;
  } catch {
    return undefined; // a model's arguments are JSON; anything else cannot be repeated
  }
}

/** The forms of a pointer, fullest first: each later one leaves out or cuts what a hostile name or argument may inflate. */
function pointerForms(facts: PointerFacts): string[] {
  const media = mediaWords(facts.mediaParts);
  // Its size in tokens alone: what the model weighs, and every character here is paid again each request.
  const size = `about ${facts.tokens} tokens`;
  const named = (chars: number) => `Result of ${JSON.stringify(cutToChars(facts.toolName, chars))}`;
  const forms: string[] = [];
  if (facts.path !== undefined) {
    const { path } = facts;
    const how = howToRead(facts.readTools);
    const reading = how === undefined ? ' for the app (you have no tool to read it).' : `. Read it with ${how}.`;
    const alone = media === '' ? '' : ` (${media.slice(2)})`;
    for (const chars of [64, 24, 8])
      forms.push(`[Cleared from context] ${named(chars)} (${size}${media}), stored at ${path}${reading}`);
    forms.push(`[Cleared from context] A tool result (${size}${media}), stored at ${path}${reading}`);
    forms.push(`[Cleared from context] A tool result${alone}, stored at ${path}${reading}`);
    // The shortest, for a long key under a tokenizer that splits it finely: the path whole, the rest in few words.
    const dropped = facts.mediaParts === 0 ? '' : ` (${facts.mediaParts} media dropped)`;
    const short = how === undefined ? ' (no tool to read it)' : `: ${how} it`;
    forms.push(`[Cleared] ${path}${dropped}${short}.`);
    if (how === 'read_file or grep') forms.push(`[Cleared] ${path}${dropped}; read_file/grep it.`);
    return forms;
  }
  const args = argsJson(facts.args);
  for (const [nameChars, argChars] of [
    [64, 400],
    [24, 120],
    [24, 60],
    [8, 24],
  ] as const) {
    const call =
      args === undefined
        ? 'repeat that call'
        : `call ${callName(facts.toolName, nameChars)} ${args.length > argChars ? `${cutToChars(args, argChars)}…` : args}`;
    forms.push(`[Cleared from context] ${named(nameChars)} (${size}${media}). To see it again, ${call}.`);
  }
  forms.push(`[Cleared from context] ${named(8)} (${size}${media}). To see it again, repeat that call.`);
  forms.push(`[Cleared from context] A tool result${media ? ` (${media.slice(2)})` : ''}: repeat its call to see it.`);
  return forms;
}

/**
 * The pointer a cleared result is shown as (C2): the tool, the size, where it is stored and how to
 * read it back (or, for a file tool's page, the call to repeat), and the media parts dropped; the
 * fullest form within maxPointerTokens by the offload's measure. Undefined when even the shortest
 * is over (an estimator counting far more than usual): the result is then not cleared, since a
 * pointer with its path cut would name a path that does not exist.
 */
export function clearedPointer(facts: PointerFacts, measure: TokenMeasure): string | undefined {
  return pointerForms(facts).find((form) => measure.within(form, maxPointerTokens));
}

// ---- Merged pointers (C10) ----
// When a thread's pointers alone would crowd out the budget, the oldest are merged in blocks: one
// result of a block lists every path, each other is this stub. Both are functions of data, so the
// same block reads the same in every later request (C4).

/** The most estimated tokens a merged result's stub takes (C10). */
export const maxStubTokens = 8;

/** The most estimated tokens a merged listing takes for each path it names, beyond maxPointerTokens for its words (C10). */
export const maxListedPathTokens = 30;

/** What a merged result with a path is sent as: its path is in the listing above, in a few tokens (C10). */
export const mergedStub = '[listed above]';

/**
 * What a merged result without a path (a file tool's page, O11) is sent as (C10): the call that
 * made it is just above, in the assistant's message, so it needs no listing.
 */
export const mergedCallStub = '[repeat the call]';

/** What a merged listing says about its block of cleared results. */
interface ListingFacts {
  /** The keys under the mount, in the order of their results; the first is the listing's own. */
  keys: readonly string[];
  /** Estimated tokens of what reading them all back gives. */
  tokens: number;
  /** Their non-text parts together, which the listing and the stubs drop. */
  mediaParts: number;
  readTools?: readonly string[];
}

/**
 * The one line a block of merged results is listed in (C10), in its first result's place: how many,
 * their size, the mount once, then each key in the order of their results (this result's first,
 * then each one sent as `mergedStub` below it, up to the next listing), and how to read one back.
 */
export function mergedListing(facts: ListingFacts, mount: string): string {
  const how = howToRead(facts.readTools);
  const media = mediaWords(facts.mediaParts).replace('its ', 'their ');
  const reading =
    how === undefined ? ' They are kept for the app (you have no tool to read them).' : ` Read one with ${how}.`;
  return (
    `[Cleared from context] ${plural(facts.keys.length, 'tool result')} (about ${facts.tokens} tokens${media}), ` +
    `this one first, then each "${mergedStub}" below it in order, stored at ${mount} + ${facts.keys.join(' ')}.${reading}`
  );
}
