/** The estimate's ratio: a token is taken as this many UTF-16 characters. */
export const charsPerToken = 4;

/** Estimated tokens of a text: four characters a token, rounded up. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / charsPerToken);
}

/** Any UTF-16 code unit past ASCII (surrogates included). */
const nonAscii = /[\u0080-\uffff]/;

/**
 * How many code units at the start of `text` are ASCII (one UTF-8 byte each), looking at most
 * `limit` far. A regex scan: on a megabyte of text it is several times faster than a charCodeAt loop.
 */
function asciiPrefix(text: string, limit = text.length): number {
  const head = text.length > limit ? text.slice(0, limit) : text;
  const at = head.search(nonAscii);
  return at === -1 ? head.length : at;
}

/**
 * UTF-8 bytes of `text`, as TextEncoder would write it (a lone surrogate counts 3 bytes, for U+FFFD).
 * Counts without encoding, so a multi-MB text allocates nothing.
 */
export function utf8Bytes(text: string): number {
  const ascii = asciiPrefix(text);
  let bytes = ascii;
  for (let i = ascii; i < text.length; i++) {
    const size = utf8Size(text, i);
    bytes += size;
    if (size === 4) i++;
  }
  return bytes;
}

/** UTF-8 bytes of the character starting at code unit `i`: 4 for a surrogate pair (two units), else 1–3. */
function utf8Size(text: string, i: number): number {
  const code = text.charCodeAt(i);
  if (code < 0x80) return 1;
  if (code < 0x800) return 2;
  if (isHighSurrogate(code) && i + 1 < text.length && isLowSurrogate(text.charCodeAt(i + 1))) return 4;
  return 3;
}

// ---------- lines ----------
// A line ends at '\n'. A final '\n' ends the last line rather than starting an empty one, so
// 'a\nb\n' and 'a\nb' both have 2 lines and '' has none. Pages cut with `sliceLines` keep their
// newlines, so consecutive pages concatenate back to the text exactly.

/** Number of lines in `text` (see above); scans with indexOf, allocates nothing. */
export function countLines(text: string): number {
  if (text === '') return 0;
  let newlines = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) newlines++;
  return text.endsWith('\n') ? newlines : newlines + 1;
}

/** Index just past the `count`-th newline at or after `from`, or -1 when fewer newlines follow. */
function skipLines(text: string, count: number, from: number): number {
  let index = from;
  for (let n = 0; n < count; n++) {
    const newline = text.indexOf('\n', index);
    if (newline === -1) return -1;
    index = newline + 1;
  }
  return index;
}

/**
 * Lines [offset, offset + limit) of `text`, 0-based, as one substring that keeps their newlines.
 * An offset past the last line gives ''. Only the lines before the page's end are scanned.
 */
export function sliceLines(text: string, offset: number, limit = Number.POSITIVE_INFINITY): string {
  const start = skipLines(text, offset, 0);
  if (start === -1) return '';
  if (limit === Number.POSITIVE_INFINITY) return text.slice(start);
  const end = skipLines(text, limit, start);
  return text.slice(start, end === -1 ? text.length : end);
}

/** The lines of `text`, without their newlines ('' → []). */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

// ---------- cutting ----------

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

function checkLimit(value: number, name: string): void {
  if (!Number.isInteger(value) || value < 0) {
    throw new RangeError(`${name} must be a non-negative integer, got ${value}`);
  }
}

/** The first `maxChars` UTF-16 units of `text`, one fewer when the cut would split a surrogate pair. */
export function cutToChars(text: string, maxChars: number): string {
  checkLimit(maxChars, 'maxChars');
  if (text.length <= maxChars) return text;
  const end =
    maxChars > 0 && isHighSurrogate(text.charCodeAt(maxChars - 1)) && isLowSurrogate(text.charCodeAt(maxChars))
      ? maxChars - 1
      : maxChars;
  return text.slice(0, end);
}

/** The longest prefix of `text` within `maxTokens` estimated tokens (see estimateTokens), never splitting a character. */
export function cutToTokens(text: string, maxTokens: number): string {
  checkLimit(maxTokens, 'maxTokens');
  return cutToChars(text, maxTokens * charsPerToken);
}

/**
 * The longest prefix of `text` whose UTF-8 encoding takes at most `maxBytes` bytes, never cut inside a
 * character (a surrogate pair stays whole; a lone surrogate counts 3 bytes, as TextEncoder writes U+FFFD).
 * Scans at most `maxBytes` code units and allocates only the returned slice.
 */
export function cutToBytes(text: string, maxBytes: number): string {
  checkLimit(maxBytes, 'maxBytes');
  // Every UTF-16 unit encodes to at most 3 bytes, so short texts need no scan.
  if (text.length * 3 <= maxBytes) return text;
  const ascii = asciiPrefix(text, maxBytes);
  if (ascii >= maxBytes) return text.slice(0, maxBytes);
  let bytes = ascii;
  for (let i = ascii; i < text.length; i++) {
    const size = utf8Size(text, i);
    if (bytes + size > maxBytes) return text.slice(0, i);
    bytes += size;
    if (size === 4) i++;
  }
  return text;
}

/**
 * `line` itself when it has at most `maxChars` characters; else its first `maxChars` followed by a marker
 * saying how long the line was, so a reader knows it was cut.
 */
export function cutLine(line: string, maxChars: number): string {
  if (line.length <= maxChars) return line;
  const kept = cutToChars(line, maxChars);
  return `${kept}… [line cut: ${kept.length} of ${line.length} characters shown]`;
}

/**
 * At most about `maxChars` characters of `line` around position `at` (e.g. where a search matched),
 * with '…' where text was left out on either side.
 */
export function excerptAround(line: string, at: number, maxChars: number): string {
  if (line.length <= maxChars) return line;
  let start = Math.max(0, Math.min(at - Math.floor(maxChars / 4), line.length - maxChars));
  if (start > 0 && isLowSurrogate(line.charCodeAt(start)) && isHighSurrogate(line.charCodeAt(start - 1))) start++;
  const body = cutToChars(line.slice(start), maxChars);
  const end = start + body.length;
  return `${start > 0 ? '…' : ''}${body}${end < line.length ? '…' : ''}`;
}
