import { setupI18n, type I18n } from '@lingui/core';
import { compileMessageOrThrow } from '@lingui/message-utils/compileMessage';
import { LOCALES, type Locale } from './index.ts';

/**
 * A part's message catalogue: one ICU message per key and locale. English is the source of truth;
 * every other locale must have exactly its keys, which the type {@link Translation} enforces (a
 * missing key and an extra key are both type errors) and {@link catalogueGaps} checks again at test
 * time.
 */
export type Translation<En> = { readonly [K in keyof En]: string };

/** Values put into a message (`{name}`); numbers may be formatted with `{n, number, fixed2}` or plurals. */
export type MessageValues = Readonly<Record<string, string | number | Date>>;

/** Named number and date formats a catalogue's messages may use (`{n, number, fixed2}`, `{at, date, mail}`). */
const FORMATS = {
  fixed2: { minimumFractionDigits: 2, maximumFractionDigits: 2, useGrouping: false },
} as const;

export interface Catalogue<K extends string> {
  /** The message `key` in `locale` with `values` put in. */
  t(locale: Locale, key: K, values?: MessageValues): string;
  /** Every key (the English catalogue's). */
  readonly keys: readonly K[];
}

/**
 * Builds a catalogue from its English messages and their translations. Messages are compiled from
 * ICU syntax once, here, with Lingui's compiler; a message that does not compile throws at start-up.
 */
export function createCatalogue<const En extends Readonly<Record<string, string>>>(
  en: En,
  translations: { readonly [L in Exclude<Locale, 'en'>]: Translation<En> },
): Catalogue<keyof En & string> {
  const sources: Record<Locale, Readonly<Record<string, string>>> = { en, ...translations };
  const instances = new Map<Locale, I18n>();
  for (const locale of LOCALES) {
    const compiled = Object.fromEntries(
      Object.entries(sources[locale]).map(([key, message]) => [key, compileMessageOrThrow(message)]),
    );
    instances.set(locale, setupI18n({ locale, messages: { [locale]: compiled } }));
  }
  return {
    keys: Object.keys(en) as (keyof En & string)[],
    t(locale, key, values) {
      const i18n = instances.get(locale) ?? instances.get('en')!;
      return i18n._(key, values as Record<string, unknown> | undefined, { formats: FORMATS });
    },
  };
}

/** The names of the values a message puts in (`{name}`, `{n, plural, …}`), sorted. */
function argumentsOf(message: string): string[] {
  const names = new Set<string>();
  const visit = (tokens: unknown): void => {
    if (!Array.isArray(tokens)) return;
    for (const token of tokens) {
      if (!Array.isArray(token)) continue;
      const [name, , format] = token as [string, string?, unknown?];
      names.add(name);
      if (format && typeof format === 'object') Object.values(format).forEach(visit);
    }
  };
  visit(compileMessageOrThrow(message));
  return [...names].sort();
}

/**
 * What is wrong with a catalogue: keys a translation lacks or has beyond English, keys whose
 * translation puts in other values than English does, and keys no source refers to (a key counts
 * as used when some source file, the catalogues left out, holds it as a quoted string). Tests
 * assert that all four lists are empty.
 */
export function catalogueGaps(
  en: Readonly<Record<string, string>>,
  translations: Readonly<Record<string, Readonly<Record<string, string>>>>,
  sources: readonly string[],
): { missing: string[]; extra: string[]; mismatched: string[]; unused: string[] } {
  const keys = Object.keys(en);
  const missing: string[] = [];
  const extra: string[] = [];
  const mismatched: string[] = [];
  for (const [locale, messages] of Object.entries(translations)) {
    for (const k of keys) {
      if (!Object.hasOwn(messages, k)) missing.push(`${locale}:${k}`);
      else if (argumentsOf(messages[k]!).join() !== argumentsOf(en[k]!).join())
        mismatched.push(`${locale}:${k}`);
    }
    for (const k of Object.keys(messages)) if (!Object.hasOwn(en, k)) extra.push(`${locale}:${k}`);
  }
  const text = sources.join('\n');
  const unused = keys.filter((k) => !["'", '"', '`'].some((q) => text.includes(`${q}${k}${q}`)));
  return { missing, extra, mismatched, unused };
}
