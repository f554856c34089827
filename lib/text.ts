/** Estimated tokens of a text: four characters a token. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

const encoder = new TextEncoder();

export function utf8Bytes(text: string): number {
  return encoder.encode(text).length;
}
