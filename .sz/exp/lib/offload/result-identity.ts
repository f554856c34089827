/**
 * The identity of a result offered through `offloadResult` (A1): a frameworks' tool call id is not
 * enough — providers reuse ids (some send the tool name as the id) and some send ids of 1.5 KB — so
 * the key is a short, path-safe prefix of the id for people to recognize plus a hash of the id and
 * the text. The same (callId, text) always gives the same key; another text under the same id, another.
 */

/** Characters of the call id shown at the start of the key. */
const idPrefixChars = 24;
/** Bytes of the hash in the key (hex): 96 bits. */
const hashBytes = 12;

/** The call id reduced to what a result key may hold: A-Z a-z 0-9 _ -, at most 24 characters. */
function idPrefix(callId: string): string {
  return callId.slice(0, idPrefixChars).replace(/[^A-Za-z0-9_-]/g, '_');
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/**
 * 128 bits of FNV-1a over the UTF-16 code units, in four 32-bit lanes with different seeds: only
 * where `crypto.subtle` is missing (a page served over plain http, which is not a secure context).
 */
function fallbackHash(input: string): Uint8Array {
  const lanes = [0x811c9dc5, 0x01000193, 0x9e3779b9, 0x85ebca6b];
  for (let i = 0; i < input.length; i++) {
    const unit = input.charCodeAt(i);
    for (let lane = 0; lane < 4; lane++) lanes[lane] = Math.imul(lanes[lane]! ^ (unit + lane), 0x01000193);
  }
  const bytes = new Uint8Array(16);
  const view = new DataView(bytes.buffer);
  for (const [i, lane] of lanes.entries()) view.setUint32(i * 4, lane >>> 0);
  return bytes;
}

async function digest(input: string): Promise<Uint8Array> {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) return fallbackHash(input);
  return new Uint8Array(await subtle.digest('SHA-256', new TextEncoder().encode(input)));
}

/** The key (file name under the mount) of a result: `<id prefix>-<hash of id and text>`, at most 49 characters. */
export async function resultKeyFor(callId: string, text: string): Promise<string> {
  // The id's length first, so no (id, text) pair can be read as another with the boundary moved.
  const hash = hex((await digest(`${callId.length}:${callId}\n${text}`)).slice(0, hashBytes));
  const prefix = idPrefix(callId);
  return prefix === '' ? hash : `${prefix}-${hash}`;
}
