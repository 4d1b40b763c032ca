import { describe, expect, it } from 'vitest';
import { acceptedLanguages, chooseLocale, type Locale } from './index.ts';

type Row = [input: Parameters<typeof chooseLocale>[0], expected: Locale, why: string];

describe('chooseLocale', () => {
  it.each([
    [{ setting: 'de', accept: 'en-GB,en;q=0.9' }, 'de', 'the person’s setting wins over the browser'],
    [
      { setting: 'fr', accept: 'de-AT,de;q=0.8' },
      'de',
      'a setting we do not ship falls through to the browser',
    ],
    [{ accept: 'fr-CH, de;q=0.7, en;q=0.8' }, 'en', 'the highest q among shipped locales wins'],
    [{ accept: 'de;q=0, en;q=0.1' }, 'en', 'q=0 refuses a language'],
    [{ accept: ['de-DE', 'en-US'] }, 'de', 'navigator.languages are taken in order'],
    [{ accept: 'x'.repeat(10_000) }, 'en', 'an oversized header is cut, never parsed whole'],
    [{ accept: 'de;q=abc,__proto__' }, 'en', 'malformed entries are skipped'],
    [{}, 'en', 'nothing known: English'],
  ] satisfies Row[])('%o → %s (%s)', (input, expected, _why) => {
    expect(chooseLocale(input)).toBe(expected);
  });

  it('orders equal weights by their place in the header', () => {
    expect(acceptedLanguages('fr, de, en;q=0.5')).toEqual(['fr', 'de', 'en']);
  });
});
