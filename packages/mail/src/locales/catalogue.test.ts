import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { catalogueGaps } from '@acme/i18n/catalogue';
import { describe, expect, it } from 'vitest';
import { de } from './de.ts';
import { en } from './en.ts';

describe('mail catalogue', () => {
  it('German has exactly the English keys, with the same values put in, and every key is used', () => {
    const templates = readFileSync(join(import.meta.dirname, '..', 'templates.ts'), 'utf8');
    expect(catalogueGaps(en, { de }, [templates])).toEqual({
      missing: [],
      extra: [],
      mismatched: [],
      unused: [],
    });
  });

  it('every German text is a translation, not a copy of the English', () => {
    const keys = Object.keys(en) as (keyof typeof en)[];
    const german: Readonly<Record<string, string>> = de;
    expect(keys.filter((k) => german[k] === en[k])).toEqual([]);
  });
});
