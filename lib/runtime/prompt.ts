import { cutToTokens, estimateTokens } from '../text.js';
import { callHook, RunFailure } from './failure.js';
import { type HookContext, isBlock, type Middleware } from './middleware.js';

interface Section {
  name: string;
  text: string;
}

/**
 * R3: the system prompt of one model step — the agent's own prompt, then each middleware's section
 * in stack order, collected now from the committed state and never stored. Together the sections
 * stay within `maxTokens` estimated tokens: what is over is cut, and a marker says how much.
 */
export async function buildSystemPrompt(
  base: string,
  middleware: readonly Middleware[],
  contextOf: (m: Middleware) => HookContext,
  signal: AbortSignal,
  maxTokens: number,
): Promise<string> {
  const sections: Section[] = [];
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
  return [base, ...boundSections(sections, maxTokens)].filter((part) => part !== '').join('\n\n');
}

/** Keeps sections in order until the budget is spent; the rest is cut, with a marker naming what and how much. */
export function boundSections(sections: readonly Section[], maxTokens: number): string[] {
  const total = sections.reduce((sum, s) => sum + estimateTokens(s.text), 0);
  if (total <= maxTokens) return sections.map((s) => s.text);
  const kept: string[] = [];
  const cut: string[] = [];
  let left = maxTokens;
  for (const section of sections) {
    const tokens = estimateTokens(section.text);
    if (tokens <= left) {
      kept.push(section.text);
      left -= tokens;
      continue;
    }
    const head = cutToTokens(section.text, left);
    left = 0;
    if (head !== '') kept.push(head);
    cut.push(`"${section.name}"${head === '' ? '' : ' (partly)'}`);
  }
  const removed = total - kept.reduce((sum, text) => sum + estimateTokens(text), 0);
  kept.push(
    `[System prompt sections cut: about ${removed} of ${total} estimated tokens removed to stay within ` +
      `maxPromptSectionTokens (${maxTokens}). Cut: ${cut.join(', ')}.]`,
  );
  return kept;
}
