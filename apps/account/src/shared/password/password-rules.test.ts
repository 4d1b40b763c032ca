import { describe, expect, it } from 'vitest';
import { canSubmitPassword, checkPassword, SPECIAL_CHARACTERS } from './password-rules.ts';

describe('checkPassword', () => {
  it.each([
    ['', { length: false, digit: false, special: false }],
    ['abcdefgh', { length: true, digit: false, special: false }],
    ['abcdefg1', { length: true, digit: true, special: false }],
    ['abc de1', { length: false, digit: true, special: true }],
    ['abcdef1!', { length: true, digit: true, special: true }],
    ['pass word1', { length: true, digit: true, special: true }],
    ['ünïcødé1~', { length: true, digit: true, special: true }],
  ])('%j', (password, expected) => {
    expect(checkPassword(password)).toEqual(expected);
  });

  it('accepts every listed special character', () => {
    for (const c of SPECIAL_CHARACTERS) expect(checkPassword(`abcdefg1${c}`).special, c).toBe(true);
    expect(SPECIAL_CHARACTERS).toContain('\\');
    expect(SPECIAL_CHARACTERS).toContain(' ');
    expect(checkPassword('abcdefg1§').special).toBe(false);
  });

  it('needs the confirmation to match', () => {
    expect(canSubmitPassword('abcdef1!', 'abcdef1!')).toBe(true);
    expect(canSubmitPassword('abcdef1!', 'abcdef1?')).toBe(false);
    expect(canSubmitPassword('abcdef1!', '')).toBe(false);
    expect(canSubmitPassword('abcdefg1', 'abcdefg1')).toBe(false);
  });
});
