import { describe, expect, it } from 'vitest';
import { catalogueGaps, createCatalogue } from './catalogue.ts';

const en = {
  greeting: 'Hello {name},',
  left: '{n, plural, one {# code is left} other {# codes are left}}',
  since: 'expired {minutes, number, fixed2} minutes ago',
} as const;
const catalogue = createCatalogue(en, {
  de: {
    greeting: 'Guten Tag {name},',
    left: '{n, plural, one {# Code ist übrig} other {# Codes sind übrig}}',
    since: 'vor {minutes, number, fixed2} Minuten abgelaufen',
  },
});

describe('catalogues', () => {
  it('put values in, as plain text (a value is never read as ICU syntax)', () => {
    expect(catalogue.t('en', 'greeting', { name: '{n} <b>' })).toBe('Hello {n} <b>,');
    expect(catalogue.t('de', 'greeting', { name: 'Ada' })).toBe('Guten Tag Ada,');
  });

  it('choose ICU plural forms per locale and format numbers with Intl', () => {
    expect(catalogue.t('en', 'left', { n: 1 })).toBe('1 code is left');
    expect(catalogue.t('de', 'left', { n: 3 })).toBe('3 Codes sind übrig');
    expect(catalogue.t('en', 'since', { minutes: 1234.5 })).toBe('expired 1234.50 minutes ago');
    expect(catalogue.t('de', 'since', { minutes: 1234.5 })).toBe('vor 1234,50 Minuten abgelaufen');
  });

  it('catalogueGaps finds missing, extra, mismatched and unused keys', () => {
    const gaps = catalogueGaps(
      { a: 'A {name}', b: 'B', c: 'C {n, plural, one {# x} other {# xs}}' },
      { de: { a: 'A {nmae}', c: 'C {n, plural, one {# x} other {# xe}}', d: 'D' } },
      ["t('a')", 'x("c")'],
    );
    expect(gaps).toEqual({ missing: ['de:b'], extra: ['de:d'], mismatched: ['de:a'], unused: ['b'] });
  });

  it('refuses a message that is not valid ICU at start-up', () => {
    expect(() => createCatalogue({ a: 'broken {a' }, { de: { a: 'kaputt' } })).toThrow();
  });
});
