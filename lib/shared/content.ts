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
  /** read_file's pages: `lines[i]` is (some of) line `offset + i + 1` of a file of `total` lines, and is printed with that number. */
  readonly range?: PageRange;
  /** The tool's closing line, printed last: what it did not show and how to see it. */
  readonly note?: string;
  /** Set by `cutPage`: cut to `limitTokens`, from a page of `of` lines. */
  readonly cut?: { readonly limitTokens: number; readonly of: number };
}

/** Where a read_file page lies in its file, and what its closing line's call asks for. */
interface PageRange {
  readonly offset: number;
  readonly total: number;
  /** The file as read_file was given it: the closing line's call names it. */
  readonly path?: string;
  /** The lines a page of this read_file holds at most: the limit its closing line's call asks for. */
  readonly pageLines?: number;
  /**
   * Rows that show only part of their line (a line longer than a page's room, B5): only the first
   * row (continuing a line) and the last (starting one) can be. `from` is the part's first
   * character in its line (0-based), `length` the whole line's.
   */
  readonly parts?: readonly LinePart[];
}

/** A row of a read_file page that shows part of its line: characters [from, from + its text's length) of `length`. */
export interface LinePart {
  readonly row: number;
  readonly from: number;
  readonly length: number;
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

/**
 * The text a `text/*` file part carries (its base64 data decoded as UTF-8), or undefined: images,
 * audio, other files, and data that is not base64 of UTF-8 text pass on as they are (O5, O15).
 */
function documentText(part: ContentPart): string | undefined {
  if (part.type !== 'file' || !/^text\//i.test(part.mimeType)) return undefined;
  try {
    const binary = atob(part.data);
    const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0));
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** Whether a part is carried as text: a text part, or a `text/*` file whose data is UTF-8 text (O15). */
export function carriesText(part: ContentPart): boolean {
  return part.type === 'text' || documentText(part) !== undefined;
}

/** All the text a result carries — its text parts and its `text/*` files, in order — joined with newlines (O15). */
export function resultText(content: readonly ContentPart[]): string {
  const texts: string[] = [];
  for (const part of content) {
    const text = part.type === 'text' ? part.text : documentText(part);
    if (text !== undefined) texts.push(text);
  }
  return texts.join('\n');
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
