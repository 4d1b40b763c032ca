/**
 * The locales the product ships, and how one is chosen for a person: their own setting first, then
 * what the browser asks for (`Accept-Language`), then English. The app, the identity service's flow
 * messages and the mails all choose through {@link chooseLocale}, so they never disagree.
 */
export const LOCALES = ['en', 'de'] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = 'en';

export function isLocale(value: unknown): value is Locale {
  return typeof value === 'string' && (LOCALES as readonly string[]).includes(value);
}

/** Longest `Accept-Language` header read; anything beyond is ignored, never parsed. */
const MAX_ACCEPT_LANGUAGE = 512;

/**
 * The language tags of an `Accept-Language` header, best first (by `q`, then by order). Malformed
 * entries are skipped; `q=0` means "not this one".
 */
export function acceptedLanguages(header: string | null | undefined): string[] {
  if (!header) return [];
  const entries: { tag: string; q: number; at: number }[] = [];
  header
    .slice(0, MAX_ACCEPT_LANGUAGE)
    .split(',')
    .forEach((part, at) => {
      const [rawTag = '', ...params] = part.trim().split(';');
      const tag = rawTag.trim().toLowerCase();
      if (!/^(?:[a-z]{1,8}(?:-[a-z0-9]{1,8})*|\*)$/.test(tag)) return;
      const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      const q = qParam === undefined ? 1 : Number(qParam.slice(2));
      if (!Number.isFinite(q) || q <= 0 || q > 1) return;
      entries.push({ tag, q, at });
    });
  return entries.sort((a, b) => b.q - a.q || a.at - b.at).map((e) => e.tag);
}

/** The first shipped locale among language tags (`de-AT` counts as `de`), if any. */
export function matchLocale(tags: readonly string[]): Locale | undefined {
  for (const tag of tags) {
    const primary = tag.toLowerCase().split('-')[0];
    if (isLocale(primary)) return primary;
  }
  return undefined;
}

/**
 * The locale for a person: their saved setting when it is one we ship, else the best match of what
 * the browser accepts (a header string or `navigator.languages`), else English.
 */
export function chooseLocale(input: {
  setting?: unknown;
  accept?: string | readonly string[] | null;
}): Locale {
  if (isLocale(input.setting)) return input.setting;
  const tags =
    typeof input.accept === 'string' || input.accept == null ? acceptedLanguages(input.accept) : input.accept;
  return matchLocale(tags) ?? DEFAULT_LOCALE;
}
