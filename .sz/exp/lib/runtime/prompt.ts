import { quoteForMessage } from '../shared/checks.js';
import { charsPerToken, cutToChars, estimateTokens } from '../shared/text.js';
import { callHook, RunFailure } from './failure.js';
import { type HookContext, isBlock, type Middleware } from './middleware.js';

interface PromptSection {
  /** The middleware it came from, named in the cut marker. */
  name: string;
  text: string;
}

/** Between the agent's prompt and each section. */
const separator = '\n\n';
/** The marker used when not even a count fits. */
const shortMarker = '[System prompt sections cut]';
/** The least maxPromptSectionTokens: room for the short marker and its separator, so a cut is never silent. */
export const minPromptSectionTokens = estimateTokens(separator + shortMarker);

/**
 * R3: the system prompt of one model step — the agent's own prompt, then each middleware's section
 * in stack order, collected now from the committed state and never stored. Together the sections
 * stay within `maxTokens` estimated tokens (see composeSystemPrompt).
 */
export async function buildSystemPrompt(
  base: string,
  middleware: readonly Middleware[],
  contextOf: (m: Middleware) => HookContext,
  signal: AbortSignal,
  maxTokens: number,
): Promise<string> {
  const sections: PromptSection[] = [];
  for (const m of middleware) {
    if (!m.systemPrompt) continue;
    const text = await callHook(`systemPrompt of middleware "${m.name}"`, () => m.systemPrompt!(contextOf(m)), signal);
    if (isBlock(text)) throw new RunFailure(`systemPrompt of middleware "${m.name}" blocked: ${text.reason}`);
    if (text === undefined || text === '') continue;
    if (typeof text !== 'string') {
      throw new RunFailure(`systemPrompt of middleware "${m.name}" returned ${typeof text}; expected a string`);
    }
    sections.push({ name: m.name, text });
  }
  return composeSystemPrompt(base, sections, maxTokens);
}

/**
 * `base` whole, then the sections, all joined by blank lines. Everything the sections add after
 * `base` — their texts, the separators and any cut marker — takes at most `maxTokens` estimated
 * tokens (at least minPromptSectionTokens). Over it, sections are kept in order while they fit,
 * the first that does not is cut, the rest are left out, and a marker says how much was cut and,
 * when there is room, which sections.
 */
export function composeSystemPrompt(base: string, sections: readonly PromptSection[], maxTokens: number): string {
  const present = sections.filter((s) => s.text !== '');
  const join = (parts: readonly string[]) => [base, ...parts].filter((part) => part !== '').join(separator);
  const budget = maxTokens * charsPerToken;
  const whole = join(present.map((s) => s.text));
  if (whole.length - base.length <= budget) return whole;
  // The separator after `base` belongs to the sections; without a base the first section needs none.
  const room = budget - (base === '' ? 0 : separator.length);
  for (const marker of markers(maxTokens)) {
    const parts = fitWithMarker(present, room, marker);
    if (parts) return join(parts);
  }
  throw new RangeError(
    `maxPromptSectionTokens ${maxTokens} leaves no room for the cut marker; it must be at least ${minPromptSectionTokens}`,
  );
}

interface Kept {
  /** The texts kept, the last one possibly cut. */
  texts: string[];
  /** Characters they take, each with the separator that follows it. */
  used: number;
  /** The sections not kept whole, quoted, "(partly)" when a head of it is kept. */
  cut: string[];
  cutChars: number;
  totalChars: number;
}

type Marker = (kept: Kept) => string;

/** The markers, most telling first: with the names of the cut sections, with their count, bare. */
function markers(maxTokens: number): Marker[] {
  const amount = (k: Kept) =>
    `about ${Math.ceil(k.cutChars / charsPerToken)} of ${Math.ceil(k.totalChars / charsPerToken)} estimated tokens ` +
    `removed to stay within maxPromptSectionTokens (${maxTokens})`;
  return [
    (k) => `[System prompt sections cut: ${amount(k)}. Cut: ${k.cut.join(', ')}.]`,
    (k) => `[System prompt sections cut: ${amount(k)}. Sections cut: ${k.cut.length}.]`,
    () => shortMarker,
  ];
}

/**
 * The kept texts followed by `marker`, all within `room` characters, or undefined when even the
 * marker alone does not fit. The marker's length depends on what is kept and the reverse, so room
 * is reserved for it and raised until the marker fits; each round reserves more, so it ends.
 */
function fitWithMarker(sections: readonly PromptSection[], room: number, marker: Marker): string[] | undefined {
  for (let reserve = 0; ; ) {
    const kept = keepWithin(sections, Math.max(0, room - reserve));
    const text = marker(kept);
    if (kept.used + text.length <= room) return [...kept.texts, text];
    if (reserve >= room) return undefined;
    reserve = text.length;
  }
}

/** Sections in order, each with a separator after it, while they fit in `room` characters; a head of the first that does not. */
function keepWithin(sections: readonly PromptSection[], room: number): Kept {
  const kept: Kept = { texts: [], used: 0, cut: [], cutChars: 0, totalChars: 0 };
  let full = false;
  for (const { name, text } of sections) {
    kept.totalChars += text.length;
    const cost = text.length + separator.length;
    if (!full && kept.used + cost <= room) {
      kept.texts.push(text);
      kept.used += cost;
      continue;
    }
    const head = full ? '' : cutToChars(text, Math.max(0, room - kept.used - separator.length));
    full = true;
    if (head !== '') {
      kept.texts.push(head);
      kept.used += head.length + separator.length;
    }
    kept.cut.push(`${quoteForMessage(name)}${head === '' ? '' : ' (partly)'}`);
    kept.cutChars += text.length - head.length;
  }
  return kept;
}
