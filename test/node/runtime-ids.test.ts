// What an idempotency key is (R9), as the runtime defines it once: the runtime's own keys have
// that shape, and the offload recognizes result paths by it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { idempotencyKey, idempotencyKeyProblem, isIdempotencyKey, randomId } from '../../lib/shared/ids.js';

const keyCharacters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-';
const isKeyCharacter = (c: string) => keyCharacters.includes(c);

describe('idempotency keys (R9)', () => {
  it('every key the runtime makes is one: 12 characters (22 for ids the model never reads), distinct across calls', () => {
    for (const [make, length] of [
      [idempotencyKey, 12],
      [randomId, 22],
    ] as const) {
      const keys = Array.from({ length: 2000 }, make);
      for (const key of keys) {
        expect(isIdempotencyKey(key)).toBe(true);
        expect(key).toHaveLength(length);
      }
      expect(new Set(keys).size).toBe(keys.length);
    }
  });

  it('is 1 to 64 characters of A-Z a-z 0-9 _ -, and nothing else', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 80 }),
          fc.string({ unit: fc.constantFrom(...keyCharacters, '.', '/', 'é'), maxLength: 80 }),
        ),
        (value) => {
          const expected = value.length >= 1 && value.length <= 64 && [...value].every(isKeyCharacter);
          expect(isIdempotencyKey(value)).toBe(expected);
          expect(idempotencyKeyProblem(value) === undefined).toBe(expected);
        },
      ),
    );
    expect(isIdempotencyKey('x'.repeat(64))).toBe(true);
    expect(isIdempotencyKey('x'.repeat(65))).toBe(false);
  });

  it('says what is wrong with a value that is not one', () => {
    expect(idempotencyKeyProblem(undefined)).toBe('the idempotency key is undefined, not a string');
    expect(idempotencyKeyProblem(null)).toBe('the idempotency key is null, not a string');
    expect(idempotencyKeyProblem(42)).toBe('the idempotency key is number, not a string');
    expect(idempotencyKeyProblem('')).toBe('the idempotency key is empty');
    expect(idempotencyKeyProblem('a'.repeat(65))).toBe('the idempotency key is 65 characters long (at most 64)');
    expect(idempotencyKeyProblem('../etc')).toBe(
      'the idempotency key "../etc" has characters other than A-Z a-z 0-9 _ -',
    );
  });
});
