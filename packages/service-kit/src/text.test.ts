import { describe, expect, it } from 'vitest';
import { containsUnstorableText, isStorableText } from './text.ts';

describe('isStorableText', () => {
  it.each(['', 'plain', 'émoji 😀', '\ud83d\ude00', 'tab\tnewline\n'])('accepts %j', (s) => {
    expect(isStorableText(s)).toBe(true);
  });
  it.each(['\u0000', 'a\u0000b', '\ud800', 'x\ud83d', '\ude00y', 'a\udc00\ud800b'])('refuses %j', (s) => {
    expect(isStorableText(s)).toBe(false);
  });
});

describe('containsUnstorableText', () => {
  it('walks values, keys and arrays', () => {
    expect(containsUnstorableText({ a: ['ok', { b: 1, c: null }] })).toBe(false);
    expect(containsUnstorableText({ a: ['ok', { b: 'x\u0000' }] })).toBe(true);
    expect(containsUnstorableText({ 'k\ud800': 'v' })).toBe(true);
    expect(containsUnstorableText('\udfff')).toBe(true);
    expect(containsUnstorableText(42)).toBe(false);
  });
});
