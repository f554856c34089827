const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** One character an idempotency key may hold, as a regular expression class (R9). */
const idempotencyKeyCharacter = '[A-Za-z0-9_-]';

/** The most characters an idempotency key holds (R9). */
const maxIdempotencyKeyLength = 64;

const idempotencyKeyPattern = new RegExp(`^${idempotencyKeyCharacter}{1,${maxIdempotencyKeyLength}}$`);

/**
 * Whether a value is an idempotency key as the runtime guarantees them (R9): a string of 1 to 64
 * characters from A-Z a-z 0-9 _ -, so it is safe as a file name, a URL segment or a database key.
 * Keys from another runtime are input: whoever relies on the shape checks it here.
 */
export function isIdempotencyKey(value: unknown): value is string {
  return typeof value === 'string' && idempotencyKeyPattern.test(value);
}

/** Why a value is not an idempotency key, for error messages; undefined when it is one. */
export function idempotencyKeyProblem(value: unknown): string | undefined {
  if (isIdempotencyKey(value)) return undefined;
  if (typeof value !== 'string')
    return `the idempotency key is ${value === null ? 'null' : typeof value}, not a string`;
  if (value.length === 0) return 'the idempotency key is empty';
  if (value.length > maxIdempotencyKeyLength) {
    return `the idempotency key is ${value.length} characters long (at most ${maxIdempotencyKeyLength})`;
  }
  return `the idempotency key ${JSON.stringify(value)} has characters other than A-Z a-z 0-9 _ -`;
}

/** `chars` random base64url characters (6 bits each), from crypto.getRandomValues: crypto.randomUUID exists only in secure contexts. */
function randomChars(chars: number): string {
  const bytes = crypto.getRandomValues(new Uint8Array(chars));
  let id = '';
  for (const byte of bytes) id += alphabet[byte & 63];
  return id;
}

/**
 * A random id of 22 base64url characters (132 random bits), for messages and turns: unique without
 * coordination between tabs or agents.
 */
export function randomId(): string {
  return randomChars(22);
}

/**
 * A tool call's idempotency key (R9): 12 base64url characters, 72 random bits. Unique per thread
 * without coordination between tabs (among a million calls of one thread, two share a key with a
 * chance of about 1 in 10^10), and short because the model reads it: it is the file name in every
 * header and pointer, about 8 tokens where 22 characters took 15.
 */
export function idempotencyKey(): string {
  return randomChars(12);
}
