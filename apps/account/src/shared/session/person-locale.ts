import { chooseLocale, type Locale } from '@acme/i18n';
import { activateLocale } from '../../i18n/locale.ts';
import { adoptLocalStorageValue, read, remove, write } from '../storage/storage.ts';
import { registry } from '../storage/registry.ts';

function browserLanguages(): readonly string[] {
  return typeof navigator === 'undefined' ? [] : navigator.languages;
}

/**
 * The locale before the session is known: the person's setting as last seen in this browser, then
 * the browser's languages, then English. The account app server chooses the login page's language
 * by the same rule (the setting's cookie, then Accept-Language), so this render matches that page.
 */
export function startLocale(): Locale {
  // Earlier versions kept the setting in local storage, which the server cannot see.
  adoptLocalStorageValue(registry.locale);
  return chooseLocale({ setting: read(registry.locale), accept: browserLanguages() });
}

/**
 * Activates a person's locale once their identity is known: their setting (`traits.locale`, kept
 * for the next visit's first paint), then the browser's languages, then English.
 */
export function activatePersonLocale(setting: unknown): Promise<void> {
  const locale = chooseLocale({ setting, accept: browserLanguages() });
  if (locale === setting) write(registry.locale, locale);
  else remove(registry.locale);
  return activateLocale(locale);
}
