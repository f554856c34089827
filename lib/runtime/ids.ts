const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * A random id of 22 base64url characters (132 random bits). Uses crypto.getRandomValues because
 * crypto.randomUUID exists only in secure contexts. Path-safe, so it can name a stored result (R9).
 */
export function randomId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(22));
  let id = '';
  for (const byte of bytes) id += alphabet[byte & 63];
  return id;
}
