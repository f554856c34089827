import { expect, it } from 'vitest';
import { utf8Bytes } from '../../lib/shared/text.js';

it('runs in a real browser with IndexedDB', () => {
  expect(typeof indexedDB.open).toBe('function');
  expect(utf8Bytes('é')).toBe(2);
});
