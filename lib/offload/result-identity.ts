/**
 * The identity of a result offered through `offloadResult` (A1): a frameworks' tool call id is not
 * enough — providers reuse ids (some send the tool name as the id) and some send ids of 1.5 KB — so
 * the key is a short, path-safe prefix of the id for people to recognize plus a hash of the id and
 * the text. The same (callId, text) always gives the same key; another text under the same id, another.
 *
 * The text is hashed in slices, never encoded or copied whole (a 32 MiB text encoded at once cost
 * its size several times over in the renderer): each slice's SHA-256 digest, then the digest of
 * the id with the text's length and the slices' digests in order. `crypto.subtle` has no
 * incremental API; a hash of the slices' digests is as collision-resistant, since where the text is
 * cut depends on its length alone.
 */

/** Characters of the call id shown at the start of the key. */
const idPrefixChars = 24;
/** Bytes of the hash in the key: 96 bits, 16 base64url characters. */
const hashBytes = 12;
/** UTF-16 code units hashed at a time: its UTF-8 (at most 3 bytes a unit) is the only copy made. */
const sliceChars = 262_144;

/** The call id reduced to what a result key may hold: A-Z a-z 0-9 _ -, at most 24 characters. */
function idPrefix(callId: string): string {
  return callId.slice(0, idPrefixChars).replace(/[^A-Za-z0-9_-]/g, '_');
}

/** Base64url: the model reads every key in headers and pointers, and 16 such characters take about 11 tokens where 24 hex took 14. */
function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

/** The end of the slice starting at `start`: `sliceChars` on, or one less so a surrogate pair is not split. */
function sliceEnd(text: string, start: number): number {
  const end = start + sliceChars;
  if (end >= text.length) return text.length;
  const code = text.charCodeAt(end - 1);
  return code >= 0xd800 && code <= 0xdbff ? end - 1 : end;
}

/**
 * 128 bits of FNV-1a over the UTF-16 code units of the parts in order, in four 32-bit lanes with
 * different seeds: only where `crypto.subtle` is missing (a page served over plain http, which is
 * not a secure context). It reads the parts in place, so nothing is copied either.
 */
function fallbackHash(parts: readonly string[]): Uint8Array {
  const lanes = [0x811c9dc5, 0x01000193, 0x9e3779b9, 0x85ebca6b];
  for (const part of parts) {
    for (let i = 0; i < part.length; i++) {
      const unit = part.charCodeAt(i);
      for (let lane = 0; lane < 4; lane++) lanes[lane] = Math.imul(lanes[lane]! ^ (unit + lane), 0x01000193);
    }
  }
  const bytes = new Uint8Array(16);
  const view = new DataView(bytes.buffer);
  for (const [i, lane] of lanes.entries()) view.setUint32(i * 4, lane >>> 0);
  return bytes;
}

/** SHA-256 of `header` then the digests of `text`'s slices (each encoded alone into one reused buffer). */
async function slicedDigest(subtle: SubtleCrypto, header: string, text: string): Promise<Uint8Array> {
  const encoder = new TextEncoder();
  const buffer = new Uint8Array(3 * Math.min(sliceChars, text.length));
  const digests: Uint8Array[] = [];
  for (let start = 0; start < text.length; ) {
    const end = sliceEnd(text, start);
    const { written } = encoder.encodeInto(text.slice(start, end), buffer);
    // digest copies its input when called, so the buffer is free for the next slice.
    digests.push(new Uint8Array(await subtle.digest('SHA-256', buffer.subarray(0, written))));
    start = end;
  }
  const head = encoder.encode(header);
  const all = new Uint8Array(head.length + 32 * digests.length);
  all.set(head);
  for (const [i, sliceDigest] of digests.entries()) all.set(sliceDigest, head.length + 32 * i);
  return new Uint8Array(await subtle.digest('SHA-256', all));
}

/** The key (file name under the mount) of a result: `<id prefix>-<hash of id and text>`, at most 41 characters. */
export async function resultKeyFor(callId: string, text: string): Promise<string> {
  // The id's length first, so no (id, text) pair can be read as another with the boundary moved.
  const header = `${callId.length}:${callId}\n${text.length}\n`;
  const subtle = globalThis.crypto?.subtle;
  const digest = subtle ? await slicedDigest(subtle, header, text) : fallbackHash([header, text]);
  const hash = base64url(digest.slice(0, hashBytes));
  const prefix = idPrefix(callId);
  return prefix === '' ? hash : `${prefix}-${hash}`;
}

/**
 * What identifies a text the offload showed the model without keeping the text: its length and 128
 * bits of its SHA-256, as `<length>:<base64url>`. An eviction record keeps the preview this way, so
 * a later request still knows the preview of an evicted result (C4) by its tool call, its length
 * and this digest, never by reading the text.
 */
export async function shownTextDigest(text: string): Promise<string> {
  const header = `shown\n${text.length}\n`;
  const subtle = globalThis.crypto?.subtle;
  const digest = subtle ? await slicedDigest(subtle, header, text) : fallbackHash([header, text]);
  return `${text.length}:${base64url(digest.slice(0, 16))}`;
}

/** The length a digest of `shownTextDigest` names, so only texts of that length are hashed to compare. */
export function digestedLength(digest: string): number {
  return Number.parseInt(digest, 10);
}
