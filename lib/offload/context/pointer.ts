import { cutToChars } from '../../shared/text.js';
import type { TokenMeasure } from '../../tokens/token-measure.js';
import { readBackWith } from '../result-path.js';

// The words a cleared result is shown as (C2): one function, so every way in sends the same text,
// and the store keeps that text byte for byte for every later request (C4).

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
