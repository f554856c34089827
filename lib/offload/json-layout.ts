// A JSON result as it is stored for an agent to read back (O14): one function for every way in.
// Each element of a large array and each member of a large object on a line of its own, compact, so
// grep returns a whole record and read_file pages through records with few line numbers to pay for;
// small values stay on one line, and runs of small array elements share lines. The text is laid
// out from its own tokens (never re-serialized: numbers and escapes stay as written), in linear
// passes with an explicit stack, so no depth and no number of keys can overflow the stack or
// freeze the page; only the first few levels are laid out.
import { utf8Bytes } from '../shared/text.js';
import { plural } from './words.js';

/** How a JSON result was stored, for its header and preview. */
export interface JsonLayout {
  /** The text to store: the laid-out form within maxResultBytes, else compact (which the offload cuts). */
  text: string;
  /** `records`: one element or member a line; `compact`: on one line, the laid-out form being over maxResultBytes. */
  layout: 'records' | 'compact';
  /** The parsed value: its shape is what the preview shows first. */
  value: unknown;
}

/** A value whose compact form is longer than this is laid out over lines (its elements or members one a line). */
const lineChars = 2000;
/** Levels laid out over lines at most; deeper values stay compact on their line. */
const maxLaidDepth = 6;
/** Small elements of an array (numbers, strings, small values) share a line up to this many characters. */
const packChars = 200;
const indentUnit = ' ';

/**
 * The text a result is stored as when it is JSON (an object or an array), else undefined: laid out
 * one record a line when that fits `maxResultBytes`, else compact. A text that only looks like
 * JSON, or that the engine cannot parse (too deep), is not JSON here.
 */
export function layoutJson(text: string, maxResultBytes: number): JsonLayout | undefined {
  if (!looksLikeJson(text)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined; // not JSON, or too deep for this engine: stored as the text it is
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const compact = minify(text);
  const laid = layOut(compact);
  if (utf8Bytes(laid) <= maxResultBytes) return { text: laid, layout: 'records', value };
  return { text: compact, layout: 'compact', value };
}

/** Whether the text starts with `{` or `[` and ends with `}` or `]`, whitespace aside: cheap, before parsing. */
function looksLikeJson(text: string): boolean {
  const start = text.search(/\S/);
  if (start === -1) return false;
  let end = text.length - 1;
  while (end > start && /\s/.test(text[end]!)) end--;
  const first = text[start];
  const last = text[end];
  return (first === '{' && last === '}') || (first === '[' && last === ']');
}

/** Valid JSON without the whitespace between its tokens (strings kept as written), in one pass. */
function minify(text: string): string {
  const pieces: string[] = [];
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (char === 0x22) {
      for (i++; text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
    } else if (char === 0x20 || char === 0x09 || char === 0x0a || char === 0x0d) {
      if (i > from) pieces.push(text.slice(from, i));
      from = i + 1;
    }
  }
  if (from < text.length) pieces.push(text.slice(from));
  return pieces.length === 1 ? pieces[0]! : pieces.join('');
}

/** Where each container of the first levels closes: opening index → closing index, in compact text. */
function closings(compact: string): Map<number, number> {
  const closes = new Map<number, number>();
  const open: number[] = [];
  for (let i = 0; i < compact.length; i++) {
    const char = compact.charCodeAt(i);
    if (char === 0x22) {
      // A string: skip to its closing quote.
      for (i++; compact.charCodeAt(i) !== 0x22; i++) if (compact.charCodeAt(i) === 0x5c) i++;
    } else if (char === 0x5b || char === 0x7b) {
      open.push(i);
    } else if (char === 0x5d || char === 0x7d) {
      const start = open.pop()!;
      // Only the levels laid out, and their children, need their ends.
      if (open.length <= maxLaidDepth) closes.set(start, i);
    }
  }
  return closes;
}

/** The end (exclusive) of the value starting at `start`: a container's closing, a string's quote, a literal's last character. */
function valueEnd(compact: string, start: number, closes: Map<number, number>): number {
  const char = compact[start];
  if (char === '[' || char === '{') return closes.get(start)! + 1;
  if (char === '"') {
    let i = start + 1;
    for (; compact.charCodeAt(i) !== 0x22; i++) if (compact.charCodeAt(i) === 0x5c) i++;
    return i + 1;
  }
  let i = start;
  while (i < compact.length && !',]}:'.includes(compact[i]!)) i++;
  return i;
}

/** The compact text laid out: large containers of the first levels over lines, each element or member one line. */
function layOut(compact: string): string {
  const closes = closings(compact);
  const lines: string[] = [];
  const emit = (start: number, end: number, depth: number, prefix: string, suffix: string): void => {
    const indent = indentUnit.repeat(depth);
    const open = compact[start];
    const container = open === '[' || open === '{';
    if (!container || end - start <= lineChars || depth >= maxLaidDepth || end - start === 2) {
      lines.push(`${indent}${prefix}${compact.slice(start, end)}${suffix}`);
      return;
    }
    lines.push(`${indent}${prefix}${open}`);
    const children: Array<{ key: string; start: number; end: number }> = [];
    for (let at = start + 1; at < end - 1; ) {
      let key = '';
      if (open === '{') {
        const keyEnd = valueEnd(compact, at, closes);
        key = `${compact.slice(at, keyEnd)}: `;
        at = keyEnd + 1; // past the colon
      }
      const childEnd = valueEnd(compact, at, closes);
      children.push({ key, start: at, end: childEnd });
      at = childEnd + 1; // past the comma
    }
    const inner = indentUnit.repeat(depth + 1);
    for (let i = 0; i < children.length; ) {
      const child = children[i]!;
      const small = open === '[' && !'[{'.includes(compact[child.start]!) && child.end - child.start < packChars;
      if (!small) {
        emit(child.start, child.end, depth + 1, child.key, i < children.length - 1 ? ',' : '');
        i++;
        continue;
      }
      // A run of small elements shares a line, up to packChars.
      let line = '';
      while (i < children.length) {
        const next = children[i]!;
        const piece = compact.slice(next.start, next.end);
        const isSmall = !'[{'.includes(compact[next.start]!) && piece.length < packChars;
        if (!isSmall || (line !== '' && line.length + piece.length + 1 > packChars)) break;
        line += `${piece}${i < children.length - 1 ? ',' : ''}`;
        i++;
      }
      lines.push(`${inner}${line}`);
    }
    lines.push(`${indent}${compact[end - 1]}${suffix}`);
  };
  emit(0, compact.length, 0, '', '');
  return lines.join('\n');
}

// ---------- the shape, for the preview ----------

/** What a JSON value holds, in a few words: `number`, `string`, `array(2000) of object {…}`, `object {"a": number, …}`. */
function describe(value: unknown, depth: number, budget: { chars: number }): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) {
    const head = `array(${value.length})`;
    if (value.length === 0 || depth <= 0 || budget.chars <= 0) return head;
    return `${head} of ${elementsShape(value, depth - 1, budget)}`;
  }
  if (typeof value === 'object') {
    const keys = Object.keys(value as object);
    if (keys.length === 0) return 'object {}';
    if (depth <= 0 || budget.chars <= 0) return `object (${plural(keys.length, 'key')})`;
    return `object ${membersShape(value as Record<string, unknown>, keys, depth - 1, budget)}`;
  }
  return typeof value;
}

/** The element type of an array: the kinds of its first elements, objects with the keys they have. */
function elementsShape(items: readonly unknown[], depth: number, budget: { chars: number }): string {
  const sample = items.slice(0, 20);
  const objects = sample.filter((item) => typeof item === 'object' && item !== null && !Array.isArray(item));
  if (objects.length === sample.length) {
    const merged: Record<string, unknown> = {};
    for (const item of objects) {
      for (const key of Object.keys(item as object).slice(0, 200)) {
        if (!Object.hasOwn(merged, key)) merged[key] = (item as Record<string, unknown>)[key];
      }
    }
    return `object ${membersShape(merged, Object.keys(merged), depth, budget)}`;
  }
  const kinds = [...new Set(sample.map((item) => describe(item, depth, budget)))];
  return kinds.length === 1 ? kinds[0]! : `mixed (${kinds.slice(0, 4).join(' | ')})`;
}

function membersShape(
  value: Record<string, unknown>,
  keys: readonly string[],
  depth: number,
  budget: { chars: number },
) {
  const members: string[] = [];
  for (const key of keys) {
    if (budget.chars <= 0) {
      members.push(`… ${keys.length - members.length} more`);
      break;
    }
    const member = `${JSON.stringify(key)}: ${describe(value[key], depth, budget)}`;
    budget.chars -= member.length + 2;
    members.push(member);
  }
  return `{${members.join(', ')}}`;
}

/**
 * The preview's lines about a JSON result (O14): that it is JSON and how it was stored, then its
 * shape — every top-level key (or element type) with each array's length, nested as far as
 * `maxChars` allows, deepest first.
 */
export function jsonShapeLines(json: Pick<JsonLayout, 'layout' | 'value'>, maxChars: number): string[] {
  const how =
    json.layout === 'records'
      ? 'JSON, stored one record a line: each element of a large array and each member of a large object on a line of its own, compact; the file is valid JSON.'
      : 'JSON, stored compact on one line (laid out one record a line it would be over maxResultBytes).';
  const { value } = json;
  const keys = Array.isArray(value) ? undefined : Object.keys(value as object);
  for (const depth of [4, 3, 2, 1]) {
    const budget = { chars: maxChars };
    const shape = [`Format: ${how}`, `Shape: ${topWords(value)}`];
    let used = shape.join('\n').length;
    if (keys === undefined) {
      if ((value as unknown[]).length > 0) shape.push(`  ${describe(value, depth, budget)}`);
    } else {
      // Every top-level key that fits: a result with more keys than room says how many are left.
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i]!;
        const row = `  ${JSON.stringify(key)}: ${describe((value as Record<string, unknown>)[key], depth - 1, budget)}`;
        if (used + row.length + 1 > maxChars && depth === 1) {
          shape.push(`  … and ${plural(keys.length - i, 'more key')}`);
          break;
        }
        shape.push(row);
        used += row.length + 1;
        if (used > maxChars) break;
      }
    }
    if (shape.join('\n').length <= maxChars || depth === 1) return shape;
  }
  return [];
}

function topWords(value: unknown): string {
  if (Array.isArray(value)) return `an array of ${plural(value.length, 'element')}${value.length === 0 ? '' : ':'}`;
  const keys = Object.keys(value as object).length;
  return `an object of ${plural(keys, 'key')}${keys === 0 ? '' : ':'}`;
}
