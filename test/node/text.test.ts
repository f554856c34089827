import { describe, expect, it } from 'vitest';
import { estimateTokens, utf8Bytes } from '../../lib/text.js';

describe('estimateTokens', () => {
  it('counts four characters a token, rounding up', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('abcd')).toBe(1);
    expect(estimateTokens('abcde')).toBe(2);
  });
  it('utf8Bytes counts encoded bytes, not characters', () => {
    expect(utf8Bytes('é😀')).toBe(6);
  });
});
