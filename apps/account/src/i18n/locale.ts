import { useSyncExternalStore } from 'react';
import { i18n } from '@lingui/core';
import { DEFAULT_LOCALE, type Locale } from '@acme/i18n';
import { messagesOf } from './catalogue.ts';

// The active locale. English ships in the login route's bundle; another locale's catalogues come from
// the loader the app registers (one lazy chunk), loaded before the first render that needs them, so a
// page never paints in English first.

type Loader = () => Promise<Readonly<Record<string, object>>>;
const loaders = new Map<Locale, Loader>();
const loaded = new Set<Locale>([DEFAULT_LOCALE]);

/** Where a locale's catalogues come from: every area's catalogue, by area (`app`, `shell`, …). */
export function registerLocale(locale: Locale, load: Loader): void {
  loaders.set(locale, load);
}

/**
 * Loads a locale's catalogues (once) and activates them, with no page around (the build's pre-render
 * too). Returns the locale active: English where the locale has no loader.
 */
export async function loadLocale(locale: Locale): Promise<Locale> {
  const load = loaders.get(locale);
  if (!loaded.has(locale) && load) {
    for (const [area, catalogue] of Object.entries(await load()))
      i18n.load(locale, messagesOf(area, catalogue));
    loaded.add(locale);
  }
  const active = loaded.has(locale) ? locale : DEFAULT_LOCALE;
  if (i18n.locale !== active) i18n.activate(active);
  return active;
}

/** Loads a locale's catalogues (once), activates it and sets `<html lang>`. */
export async function activateLocale(locale: Locale): Promise<void> {
  document.documentElement.lang = await loadLocale(locale);
}

/** The active locale (`en` until another is activated). */
export function currentLocale(): Locale {
  return i18n.locale === 'de' ? 'de' : DEFAULT_LOCALE;
}

const subscribe = (onChange: () => void) => i18n.on('change', onChange);

/** The active locale, re-rendering on a change. */
export function useLocale(): Locale {
  return useSyncExternalStore(subscribe, currentLocale, currentLocale);
}
