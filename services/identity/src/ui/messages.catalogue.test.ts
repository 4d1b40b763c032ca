import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { catalogueGaps } from '@acme/i18n/catalogue';
import { describe, expect, it } from 'vitest';
import { de } from './messages.de.ts';
import { en } from './messages.en.ts';
import { catalogue } from './messages.ts';

/** The identity service's sources, its catalogues and tests left out. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    if (!e.name.endsWith('.ts') || e.name.endsWith('.test.ts') || /^messages\.[a-z]+\.ts$/.test(e.name))
      return [];
    return [readFileSync(path, 'utf8')];
  });
}

/** Messages whose text is the value put in (secrets, free-form reasons) or the same word in German. */
const SAME_IN_GERMAN = new Set(['generic', 'secret', 'lookupList', 'labelId']);

describe('identity flow message catalogue', () => {
  it('German has exactly the English keys, with the same values put in, and every key is used', () => {
    const gaps = catalogueGaps(en, { de }, sources(join(import.meta.dirname, '..')));
    expect(gaps).toEqual({ missing: [], extra: [], mismatched: [], unused: [] });
  });

  it('every German text is a translation, not a copy of the English', () => {
    const copies = catalogue.keys.filter((k) => !SAME_IN_GERMAN.has(k) && de[k] === en[k]);
    expect(copies).toEqual([]);
  });
});
