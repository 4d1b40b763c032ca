import { describe, expect, it } from 'vitest';
import { canAcceptTerms } from './can-accept-terms.ts';

describe('canAcceptTerms', () => {
  it.each([
    [false, false, false],
    [true, false, false],
    [false, true, false],
    [true, true, true],
  ])('terms %s, privacy %s → %s', (terms, privacy, expected) => {
    expect(canAcceptTerms(terms, privacy)).toBe(expected);
  });
});
