import { quoteForMessage } from './checks.js';

/** A piece of text in a message or tool result. */
export type TextPart = { type: 'text'; text: string };
/** Non-text content; `data` is base64. The runtime passes it through as it is. */
export type MediaPart = { type: 'image' | 'audio' | 'file'; mimeType: string; data: string; name?: string };
/** One part of a message's or a tool result's content: text, or media passed through as it is. */
export type ContentPart = TextPart | MediaPart;

/**
 * A file tool's page, as data: what it shows, where that lies in the file, and the closing line
 * about the rest. The file tools return it beside their printed text (`ToolOutcome` success's
 * `page`), so a middleware can cut the page by its lines (the offload, O11) instead of storing it.
 */
export interface FilePage {
  /** What is shown, one item a line: a file's lines (read_file), listed paths, matches, or a message. */
  readonly lines: readonly string[];
  /** read_file's pages: `lines[i]` is line `offset + i + 1` of a file of `total` lines, and is printed with that number. */
  readonly range?: { readonly offset: number; readonly total: number };
  /** The tool's closing line, printed last: what it did not show and how to see it. */
  readonly note?: string;
  /** Set by `cutPage`: cut to `limitTokens`, from a page of `of` lines. */
  readonly cut?: { readonly limitTokens: number; readonly of: number };
}

/** A JSON Schema object (draft 2020-12), as tools declare their arguments to a model. */
export type JsonSchema = Record<string, unknown>;

export function textContent(text: string): ContentPart[] {
  return [{ type: 'text', text }];
}

export function isTextPart(part: ContentPart): part is TextPart {
  return part.type === 'text';
}

/** All text parts of some content, joined with newlines. */
export function joinText(content: readonly ContentPart[]): string {
  return content
    .filter(isTextPart)
    .map((p) => p.text)
    .join('\n');
}

/** `string | ContentPart[]` as parts, checking the parts' shape so bad input fails with a clear message. */
export function toContent(value: string | readonly ContentPart[], what: string): ContentPart[] {
  if (typeof value === 'string') return textContent(value);
  if (!Array.isArray(value)) throw new TypeError(`${what} must be a string or an array of content parts`);
  return value.map((part, i) => checkPart(part, `${what}[${i}]`));
}

function checkPart(part: unknown, where: string): ContentPart {
  if (typeof part !== 'object' || part === null) throw new TypeError(`${where} is not a content part`);
  const p = part as Record<string, unknown>;
  if (p.type === 'text') {
    if (typeof p.text !== 'string') throw new TypeError(`${where}.text must be a string, got ${typeof p.text}`);
    return part as TextPart;
  }
  if (p.type === 'image' || p.type === 'audio' || p.type === 'file') {
    if (typeof p.mimeType !== 'string' || typeof p.data !== 'string') {
      throw new TypeError(`${where} (${p.type}) needs string mimeType and data`);
    }
    return part as MediaPart;
  }
  throw new TypeError(`${where} has unknown type ${quoteForMessage(p.type)}`);
}
